/* "Notify me here" on a seat's game page (service/web/push_box.py, templates/web/_push.html.j2): the page made
   installable (its manifest linked), the service worker registered, and on a tap the browser's permission asked,
   a push subscription made with the service's VAPID key and posted with the page's form token. Nothing of it
   runs where the browser has no service worker or Push API: the part stays hidden. */
(function () {
  "use strict";
  var box = document.getElementById("notify");
  if (!box) { return; }
  var link = document.createElement("link");
  link.rel = "manifest";
  link.href = box.dataset.manifest;
  document.head.appendChild(link);
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) { return; }
  var status = document.getElementById("notify-status");
  var button = document.getElementById("notify-me");
  var registered = navigator.serviceWorker.register(box.dataset.sw);
  box.hidden = false;

  function say(key) { status.textContent = box.dataset[key] || ""; }

  function keyBytes(b64) {
    var raw = atob((b64 + "===".slice((b64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/"));
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }

  function post(sub) {
    var body = new URLSearchParams({ csrf: box.dataset.csrf, subscription: JSON.stringify(sub) });
    return fetch(box.dataset.url, { method: "POST", body: body, credentials: "same-origin" }).then(function (r) {
      if (!r.ok) { throw new Error("refused " + r.status); }
      say("on");
      button.disabled = true;
    });
  }

  button.addEventListener("click", function () {
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") { say("denied"); return null; }
      return registered.then(function () { return navigator.serviceWorker.ready; }).then(function (reg) {
        return reg.pushManager.getSubscription().then(function (old) {
          return old || reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key) });
        });
      }).then(post);
    }).catch(function () { say("failed"); });
  });
})();

/* The game page's service worker (service/web/push_box.py): a push (service/webpush.py: JSON of a title, a body, the
   path of the player's game page and a tag) shown as a notification; a tap on it opens that page of this site,
   or brings it forward if it is open. Nothing else: no cache, no fetch handler. */
"use strict";

function samePath(url) {
  return typeof url === "string" && url.charAt(0) === "/" && url.charAt(1) !== "/" ? url : "/";
}

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "Slow Spades", {
    body: data.body || "", tag: data.tag || "slowspades", renotify: true, data: { url: samePath(data.url) }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var path = samePath(event.notification.data && event.notification.data.url);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (list) {
    for (var i = 0; i < list.length; i++) {
      if (new URL(list[i].url).pathname === path && "focus" in list[i]) { return list[i].focus(); }
    }
    return self.clients.openWindow(path);
  }));
});

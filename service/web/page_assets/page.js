// The game page without reloads (service/web/game.py): every few seconds, while the page is in view, ask
// whether the game moved (which also tells the service the player is on the page), and if it did, put the new
// page's content in place; send the page's move forms with fetch and show the page the move redirects to.
// Without this script the forms still work: POST, then a redirect back to the page.
(function () {
  "use strict";
  var body = document.body;
  var every = Math.max(0.2, parseFloat(body.getAttribute("data-every") || "3")) * 1000;
  var pollUrl = body.getAttribute("data-poll");
  var version = body.getAttribute("data-version");
  var ask = body.getAttribute("data-ask");
  var busy = false;
  var generation = 0;
  var timer = null;
  var announce = document.getElementById("announce");

  function swap(html, mine) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("live");
    var live = document.getElementById("live");
    if (!fresh || !live) { return; }
    var focused = document.activeElement && live.contains(document.activeElement) ? document.activeElement.id : "";
    var askBefore = ask;
    live.innerHTML = fresh.innerHTML;
    version = doc.body.getAttribute("data-version");
    ask = doc.body.getAttribute("data-ask");
    body.setAttribute("data-version", version);
    body.setAttribute("data-ask", ask);
    bind();
    var state = document.getElementById("state");
    var flash = document.getElementById("flash");
    if (announce) { announce.textContent = (flash ? flash.textContent + " " : "") + (state ? state.textContent : ""); }
    var heading = document.getElementById("ask-h");
    if ((mine || ask !== askBefore) && heading) {
      heading.focus();
    } else if (mine && state) {
      state.setAttribute("tabindex", "-1");
      state.focus();
    } else if (focused && document.getElementById(focused)) {
      document.getElementById(focused).focus();
    }
  }

  function refresh() {
    var mine = ++generation;  // a later refresh, or a move sent meanwhile (it brings its own page), wins
    return fetch(location.pathname, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.text(); })
      .then(function (html) { if (mine === generation && !busy) { swap(html, false); } });
  }

  function poll() {
    timer = null;
    if (document.visibilityState === "hidden" || busy) { schedule(); return; }
    fetch(pollUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (r.status === 410) { location.reload(); }  // the page expired: show what it says now
        return r.ok ? r.json() : null;
      })
      .then(function (d) {
        if (d && !busy && (String(d.v) !== String(version) || d.ask !== ask)) { return refresh(); }
      })
      .catch(function () {})
      .then(schedule);
  }

  function schedule() {
    if (timer === null) { timer = setTimeout(poll, every); }
  }

  function submit(event) {
    event.preventDefault();
    var form = event.target;
    var data = new FormData(form);
    if (event.submitter && event.submitter.name) { data.append(event.submitter.name, event.submitter.value); }
    var buttons = form.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = true; }
    busy = true;
    generation++;
    function again() { busy = false; for (var j = 0; j < buttons.length; j++) { buttons[j].disabled = false; } }
    fetch(form.action, { method: "POST", body: new URLSearchParams(data), credentials: "same-origin" })
      .then(function (r) { return r.text().then(function (html) { return { down: r.status === 503, html: html }; }); })
      .then(function (got) {
        if (!got.down) { busy = false; swap(got.html, true); return; }
        // the service cannot take moves just now: say so (the page's own words) and let the player try again
        var said = new DOMParser().parseFromString(got.html, "text/html").body.textContent.trim();
        var note = document.getElementById("down") || document.createElement("p");
        note.id = "down";
        note.setAttribute("role", "alert");
        note.textContent = said;
        var live = document.getElementById("live");
        if (live && !note.parentNode) { live.insertBefore(note, live.firstChild); }
        again();
      })
      .catch(again);
  }

  function bind() {
    var forms = document.querySelectorAll("#live form.move");
    for (var i = 0; i < forms.length; i++) { forms[i].addEventListener("submit", submit); }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { if (timer !== null) { clearTimeout(timer); } poll(); }
  });
  bind();
  schedule();
}());

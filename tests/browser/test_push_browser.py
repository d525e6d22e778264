"""The game page's "Notify me here" in a real headless Chromium (issue 43): the page is installable (its manifest
linked and served as ``application/manifest+json``, the service worker registered and active), the button asks the
browser's permission and posts the subscription with the page's form token, and a prompt then reaches the local push
service (:mod:`tests.service.push_receiver`: VAPID checked, the body decrypted) with the page's own path.

Where the real flow stops: headless Chromium has no push service (no Firebase Cloud Messaging connection), so
``pushManager.subscribe`` cannot give a real endpoint. An init script makes it resolve to the local push service's
subscription (and records the ``applicationServerKey`` the page gave it); everything before it (permission, the
service worker) and after it (the POST, the store, the push sent, encrypted and received) is the real thing. The
service worker's ``push`` handler is not driven: only a push service can deliver to it."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from service import webpush
from service.store import clock
from tests.service.push_receiver import PushReceiver, b64url
from tests.service.test_webpush import vapid_key
from tests.waiting import wait_for

from .test_accessibility import AXE, WIDTHS, violations
from .test_game_page_browser import LINK, by_sms_until, start_game, text
from .test_simulator_browser import sent_to

pytestmark = pytest.mark.browser

FAKE_SUBSCRIBE = """
(() => {
  const sub = %s;
  window.__subscribeKeys = [];
  PushManager.prototype.subscribe = function (options) {
    window.__subscribeKeys.push(Array.from(new Uint8Array(options.applicationServerKey)));
    return Promise.resolve({ endpoint: sub.endpoint, toJSON: () => sub });
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(null); };
})();
"""


@pytest.fixture()
def pushing(live_service: Any) -> Iterator[tuple[Any, PushReceiver]]:
    rx = PushReceiver().start()
    live_service.app.config.update(PUSH_VAPID_PRIVATE_KEY=vapid_key(), PUSH_UNSAFE_TEST_HOSTS=rx.host,
                                   DELIVERY="auto")
    live_service.app.config.pop("_SENDERS", None)
    yield live_service, rx
    rx.stop()


def page_link(live: Any, address: str) -> str:
    before = len(sent_to(live, address))
    text(live, address, "WEB")
    wait_for("the link", lambda: len(sent_to(live, address)) > before)
    m = LINK.search(sent_to(live, address)[-1])
    assert m
    return m.group(0)


def a_game_and_a_browser(chromium: Any, live: Any, rx: PushReceiver, granted: bool = True) -> tuple[
        str, str, str, Any, Any]:
    """A game started by SMS; its first seat's address and page link (as ``WEB`` answers); a browser context (its
    notifications permission ``granted`` or not) whose ``pushManager.subscribe`` gives the local push service's
    subscription, and that subscription's receiving side."""
    game_id = start_game(live)
    seat0 = live.svc.store.meta(game_id)["seat0"]
    browser = rx.browser()
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    if granted:
        context.grant_permissions(["notifications"], origin=live.url)  # (else the prompt is dismissed)
    context.add_init_script(FAKE_SUBSCRIBE % json.dumps(browser.subscription()))
    return game_id, seat0, page_link(live, seat0), context, browser


def test_notify_me_here_subscribes_and_a_prompt_is_pushed(chromium: Any, pushing: Any) -> None:
    live, rx = pushing
    game_id, seat0, url, context, browser = a_game_and_a_browser(chromium, live, rx)
    page = context.new_page()
    try:
        assert page.goto(url).status == 200
        notify = page.locator("#notify")
        notify.wait_for(state="visible")  # shown: this browser has a service worker and the Push API
        manifest = page.evaluate("document.querySelector('link[rel=manifest]').href")
        resp = page.request.get(manifest)
        assert resp.status == 200 and resp.headers["content-type"] == "application/manifest+json"
        body = resp.json()
        assert body["start_url"] == url.removeprefix(live.url) and body["display"] == "standalone"
        assert {i["sizes"] for i in body["icons"]} == {"192x192", "512x512"}
        for icon in body["icons"]:
            assert page.request.get(live.url + icon["src"]).headers["content-type"] == "image/png"
        script = page.evaluate("navigator.serviceWorker.ready.then(r => r.active.scriptURL)")
        assert script == live.url + "/push-sw.js"
        page.get_by_role("button", name="Notify me here").click()
        status = page.locator("#notify-status")
        status.get_by_text("Notifications are on in this browser").wait_for()
        assert page.get_by_role("button", name="Notify me here").is_disabled()
        key = webpush.public_key(live.svc.config)
        given = bytes(page.evaluate("window.__subscribeKeys[0]"))
        assert b64url(given) == key  # the page subscribed with the service's VAPID key
        address = webpush.Subscription(browser.endpoint, "", "").address
        assert live.svc.links.route(seat0).links == (address,)
    finally:
        context.close()
    clock.advance(live.svc.redis, float(live.svc.config["PAGE_QUIET_MINUTES"]) * 60 + 120)  # off the page
    by_sms_until(live, game_id, lambda _g: rx.payloads(browser.n))
    pushed = rx.payloads(browser.n)[0]
    assert pushed["url"] == url.removeprefix(live.url) and pushed["tag"] == game_id
    assert rx.refused == []


def test_a_browser_that_refuses_notifications_is_told_and_nothing_is_stored(chromium: Any, pushing: Any) -> None:
    live, rx = pushing
    _game_id, seat0, url, context, _browser = a_game_and_a_browser(chromium, live, rx, granted=False)
    page = context.new_page()
    try:
        page.goto(url)
        page.get_by_role("button", name="Notify me here").click()
        page.locator("#notify-status").get_by_text("does not allow notifications").wait_for()
        assert page.evaluate("window.__subscribeKeys.length") == 0
        assert live.svc.links.route(seat0).links == ()
    finally:
        context.close()


def test_notify_me_here_has_no_axe_violation(chromium: Any, pushing: Any) -> None:
    live, _rx = pushing
    game_id = start_game(live)
    url = f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, 0)}"
    axe = AXE.read_text()
    found = []
    for width in WIDTHS:
        context = chromium.new_context(viewport={"width": width, "height": 844}, bypass_csp=True)
        try:
            page = context.new_page()
            found += [f"at {width} px: {line}" for line in violations(
                page, axe, url, ready="() => !document.getElementById('notify').hidden")]
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        finally:
            context.close()
    assert found == [], "\n".join(found)


def test_notify_me_here_stays_when_the_page_shows_a_move(chromium: Any, pushing: Any) -> None:
    live, rx = pushing
    game_id, seat0, url, context, browser = a_game_and_a_browser(chromium, live, rx)
    page = context.new_page()
    try:
        page.goto(url)
        page.locator("#notify").wait_for(state="visible")
        version = page.evaluate("document.body.dataset.version")
        by_sms_until(live, game_id, lambda g: g.version > int(version) + 1)  # the page shows the moves by itself
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        page.get_by_role("button", name="Notify me here").click()  # still there, and still working
        page.locator("#notify-status").get_by_text("Notifications are on in this browser").wait_for()
        assert live.svc.links.route(seat0).links == (webpush.Subscription(browser.endpoint, "", "").address,)
    finally:
        context.close()

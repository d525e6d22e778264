"""Web Push to the game page (issue 43), through the real webhooks, worker and delivery, to a local push service at
its HTTP boundary (:mod:`tests.service.push_receiver`: it checks each push's VAPID signature and decrypts its
``aes128gcm`` body as a browser would, RFC 8291/8292): "Notify me here" stores the page's subscription, a prompt then
comes to that browser, decrypted, and not by SMS; a subscription the push service says is gone (404/410) is dropped
and the next prompt goes by SMS; a subscription that is not https, names a push service the operator does not allow
or an internal address, is too long or has bad keys is refused with what is allowed, nothing stored and no request
sent; push costs nothing and is not counted by the daily cap."""

from __future__ import annotations

import html
import json
import logging
import re
from dataclasses import replace
from typing import Any

import pytest
from py_vapid import Vapid02

from service import after, daily_cap, prices, webpush
from service import conversation_port as port
from service.addresses import PUSH
from service.channels import candidates
from service.config import EX_CONFIG, config_or_exit
from service.conversation_port import command_text
from service.delivery import deliver
from service.forget import forget
from service.records import Route
from service.store import clock, game_owner
from service.web.push_box import BROWSERS_MAX, REASONS
from spades.game import view

from .chooser import choose
from .helpers import local_messages, post_sms, wait_for, wait_handled, wait_outbox_settled
from .push_receiver import PushReceiver, b64url
from .test_game_page import link_of
from .test_sms_game import ALICE, BOB, load_game, start_sms_game


def vapid_key() -> str:
    v = Vapid02()
    v.generate_keys()
    return b64url(v.private_key.private_numbers().private_value.to_bytes(32, "big"))


@pytest.fixture()
def receiver(app):  # type: ignore[no-untyped-def]
    rx = PushReceiver().start()
    app.config.update(PUSH_VAPID_PRIVATE_KEY=vapid_key(), PUSH_UNSAFE_TEST_HOSTS=rx.host)
    app.config.pop("_SENDERS", None)
    yield rx
    rx.stop()


def page_form(client: Any, token: str) -> dict[str, str]:
    """The "Notify me here" part of the page as served: its data-* attributes."""
    page = client.get(f"/g/{token}").get_data(as_text=True)
    m = re.search(r'<section id="notify"([^>]*)>', page)
    assert m, "no Notify me here on the page"
    return {k: html.unescape(v) for k, v in re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1))}


def subscribe(client: Any, token: str, subscription: Any, csrf: str | None = None) -> Any:
    form = page_form(client, token)
    body = subscription if isinstance(subscription, str) else json.dumps(subscription)
    return client.post(form["url"], data={"csrf": form["csrf"] if csrf is None else csrf, "subscription": body},
                       headers={"Sec-Fetch-Site": "same-origin"})


def away(svc: Any) -> None:
    """The players leave their pages: past the page's quiet time (service.games.presence)."""
    clock.advance(svc.redis, float(svc.config["PAGE_QUIET_MINUTES"]) * 60 + 120)


def play_until(client: Any, svc: Any, gid: str, receiver: PushReceiver, done: Any,
               max_moves: int = 400) -> list[tuple[int, int]]:
    """Each player moves by SMS in turn until ``done(what it returns so far)``; returns, for each of BOB's moves, how many messages ALICE got
    by SMS and how many pushes the local push service took while it was handled."""
    bobs: list[tuple[int, int]] = []
    for _ in range(max_moves):
        if done(bobs):
            return bobs
        game = load_game(svc, gid)
        seat = game.movers[0]
        texts, pushes = len(local_messages(svc, ALICE)), receiver.requests
        _resp, mid = post_sms(client, (ALICE, BOB)[seat], command_text(choose(game, seat)))
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        if seat == 1:
            bobs.append((len(local_messages(svc, ALICE)) - texts, receiver.requests - pushes))
    raise AssertionError("not reached")


def test_a_prompt_comes_to_the_browser_encrypted_and_not_by_sms(client, svc, celery_worker, receiver,
                                                                 caplog) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)  # every line of every logger, urllib3's request lines included
    gid = start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    form = page_form(client, token)
    assert form["key"] == webpush.public_key(svc.config)  # the page subscribes with the service's VAPID key
    browser = receiver.browser()
    resp = subscribe(client, token, browser.subscription())
    assert resp.status_code == 201 and resp.get_json() == {"ok": True}
    address = webpush.Subscription(browser.endpoint, "", "").address
    assert svc.links.route(ALICE).links == (address,)
    assert subscribe(client, token, browser.subscription()).status_code == 201  # sent twice: one address
    assert svc.links.route(ALICE).links == (address,)
    away(svc)
    bobs = play_until(client, svc, gid, receiver, lambda _b: receiver.payloads(browser.n))
    assert bobs[-1] == (0, 1)  # BOB's move prompted ALICE: by push, and no SMS
    push = receiver.received[0]
    assert push.vapid_key == form["key"] and push.claims["aud"] == receiver.origin
    assert set(push.payload) == {"title", "body", "url", "tag"}
    assert push.payload["url"] == f"/g/{token}" and push.payload["tag"] == gid and push.payload["body"]
    assert len(push.headers["topic"]) == 32 and int(push.headers["ttl"]) > 0
    sent = [e for e in svc.store.outbox_entries(game_owner(gid)) if e.get("channel") == PUSH]
    assert sent and all(e["to"] == address and e["status"] == "sent" for e in sent)
    assert browser.endpoint not in json.dumps(sent)  # the endpoint (a capability) is in no outbox entry
    assert receiver.refused == []
    secret = browser.endpoint.rsplit("/", 1)[1]
    lines = [r.getMessage() for r in caplog.records]
    assert any(receiver.host.split(":")[1] in line for line in lines)  # urllib3's request lines were there
    assert not [line for line in lines if secret in line]  # the endpoint's path in no log line, at any level


def test_a_subscription_the_push_service_says_is_gone_is_dropped(client, svc, celery_worker, receiver) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    browser = receiver.browser()
    assert subscribe(client, token, browser.subscription()).status_code == 201
    address = webpush.Subscription(browser.endpoint, "", "").address
    receiver.answer[browser.n] = 410
    away(svc)
    bobs = play_until(client, svc, gid, receiver, lambda _b: receiver.refused)  # the first push: refused
    wait_for(lambda: not svc.push.get(address), what="the subscription dropped")
    assert svc.links.route(ALICE).links == () and svc.links.home(address) == address
    failed = [e for e in svc.store.outbox_entries(game_owner(gid)) if e.get("channel") == PUSH]
    assert failed and all(e["status"] == "failed" for e in failed)
    assert bobs[-1] == (0, 1) and receiver.refused == [(410, "as the test asked")]
    texts = len(local_messages(svc, ALICE))
    beat(svc)  # the prompt the push service did not take: by SMS, at the beat's next tick
    wait_outbox_settled(svc)
    game = load_game(svc, gid)
    assert 0 in game.movers  # (the first push of a game to her is a prompt: she is told nothing until she owes one)
    assert [m["body"] for m in local_messages(svc, ALICE)[texts:]] == [
        port.resend(view(game, 0), "en", "sms", "+1..0002").text]
    requests_then = receiver.requests
    play_until(client, svc, gid, receiver, lambda b: any(texts for texts, _p in b))  # BOB's move prompts ALICE: by SMS
    assert receiver.requests == requests_then  # nothing more to the dropped subscription: the prompts go by SMS


def test_a_push_service_that_redirects_is_not_followed(client, svc, celery_worker, receiver) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    browser = receiver.browser()
    assert subscribe(client, token, browser.subscription()).status_code == 201
    receiver.answer[browser.n] = 307
    away(svc)
    play_until(client, svc, gid, receiver, lambda _b: receiver.refused)
    wait_outbox_settled(svc)
    assert receiver.requests == 1  # the redirect (to an internal address) was not followed, nor the push tried again
    [failed] = [e for e in svc.store.outbox_entries(game_owner(gid)) if e.get("channel") == PUSH]
    assert failed["status"] == "failed" and "redirected" in failed["error"]


@pytest.mark.parametrize(("change", "status", "reason"), [
    (lambda s: dict(s, endpoint=s["endpoint"].replace("http://", "ftp://")), 400, "not_https"),
    (lambda s: dict(s, keys={"p256dh": s["keys"]["p256dh"][:-4], "auth": s["keys"]["auth"]}), 400, "bad_keys"),
    (lambda s: dict(s, keys={"p256dh": "A" * 87, "auth": s["keys"]["auth"]}), 400, "bad_keys"),
    (lambda s: dict(s, keys={"p256dh": s["keys"]["p256dh"], "auth": "short"}), 400, "bad_keys"),
    (lambda s: "{not json", 400, "not_json"),
    (lambda s: dict(s, endpoint=s["endpoint"] + "x" * 1100), 413, "too_long"),
    (lambda s: dict(s, endpoint=s["endpoint"] + "x" * 3000), 413, "too_long"),
])
def test_bad_subscriptions_are_refused_saying_what_is_allowed(client, svc, celery_worker, receiver, change, status,
                                                              reason) -> None:  # type: ignore[no-untyped-def]
    start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    resp = subscribe(client, token, change(receiver.browser().subscription()))
    assert resp.status_code == status and resp.get_json()["error"] == reason
    assert resp.get_json()["message"] == REASONS[reason]
    assert svc.links.route(ALICE).links == () and receiver.requests == 0


def test_a_local_endpoint_is_refused_unless_the_tests_settings_allow_it(client, svc, celery_worker, receiver) -> None:  # type: ignore[no-untyped-def]
    start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    sub = receiver.browser().subscription()
    svc.config["PUSH_UNSAFE_TEST_HOSTS"] = ""
    resp = subscribe(client, token, sub)
    assert resp.status_code == 400 and resp.get_json()["error"] == "not_https"
    svc.config["PUSH_HOSTS"] = "127.0.0.1,localhost"  # even named as a push service: https, and no internal address
    resp = subscribe(client, token, dict(sub, endpoint=sub["endpoint"].replace("http://", "https://")))
    assert resp.status_code == 400 and resp.get_json()["error"] == "private_address"
    resp = subscribe(client, token, dict(sub, endpoint="https://localhost/push/1"))
    assert resp.status_code == 400 and resp.get_json()["error"] == "private_address"
    resp = subscribe(client, token, dict(sub, endpoint="https://push.example.net/push/1"))
    assert resp.status_code == 400 and resp.get_json()["error"] == "host_not_allowed"
    assert subscribe(client, token, sub, csrf="0.bad").status_code == 403  # not from the page: nothing stored
    assert svc.links.route(ALICE).links == () and receiver.requests == 0  # no request left for any of them


def test_an_allowed_push_service_must_resolve_to_public_addresses() -> None:
    cfg = {"PUSH_HOSTS": "fcm.googleapis.com,push.apple.com", "PUSH_UNSAFE_TEST_HOSTS": ""}
    url = "https://fcm.googleapis.com/fcm/send/abc"
    assert webpush.endpoint_refusal(cfg, url, lambda h, p: ["142.250.74.106"]) == ""
    for inside in (["10.0.0.7"], ["127.0.0.1"], ["169.254.169.254"], ["::1"], ["fd00::1"], ["142.250.74.106", "192.168.1.1"], []):
        assert webpush.endpoint_refusal(cfg, url, lambda h, p, a=inside: a) == "private_address", inside
    assert webpush.endpoint_refusal(cfg, "https://web.push.apple.com/x", lambda h, p: ["17.253.1.1"]) == ""
    assert webpush.endpoint_refusal(cfg, "https://evilpush.apple.com.example/x", lambda h, p: ["1.1.1.1"]) == \
        "host_not_allowed"
    assert webpush.endpoint_refusal(cfg, "https://user:pw@fcm.googleapis.com/x", lambda h, p: ["1.1.1.1"]) == \
        "not_https"


def test_push_costs_nothing_and_is_not_capped(svc) -> None:  # type: ignore[no-untyped-def]
    table = prices.prices(svc.config)
    entry = {"channel": PUSH, "to": "push:0123456789abcdef0123", "body": "x" * 500}
    assert table.entry(entry) == 0.0
    assert PUSH not in daily_cap.CAPPED_CHANNELS


def beat(svc: Any) -> None:
    """One tick of the beat, what it causes delivered."""
    after.tick(svc.config, svc.store, svc.steps,
               after.Outlets(lambda ids: [svc.inject(deliver)(i) for i in ids], lambda turn: None))


def pushed_prompt(client: Any, svc: Any, receiver: PushReceiver) -> tuple[str, str]:
    """A game whose player ALICE asked her page to notify her, played until a move of BOB's left her a move to make
    and told her by push; the game and her page's token."""
    gid = start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    assert subscribe(client, token, receiver.browser().subscription()).status_code == 201
    away(svc)
    play_until(client, svc, gid, receiver, lambda b: b and b[-1] == (0, 1) and 0 in load_game(svc, gid).movers)
    return gid, token


def test_a_push_not_seen_is_asked_again_by_sms_after_the_operators_delay(client, svc, celery_worker,
                                                                          receiver) -> None:  # type: ignore[no-untyped-def]
    svc.config["PUSH_FALLBACK_HOURS"] = 2.0
    gid, _token = pushed_prompt(client, svc, receiver)
    texts = len(local_messages(svc, ALICE))
    clock.advance(svc.redis, 3600)
    beat(svc)
    assert len(local_messages(svc, ALICE)) == texts  # not yet
    clock.advance(svc.redis, 3700)
    beat(svc)
    wait_outbox_settled(svc)
    got = local_messages(svc, ALICE)[texts:]
    game = load_game(svc, gid)
    assert len(got) == 1 and got[0]["body"] == port.resend(view(game, 0), "en", "sms", "+1..0002").text
    clock.advance(svc.redis, 8 * 3600)
    beat(svc)
    assert len(local_messages(svc, ALICE)) == texts + 1  # once


def test_a_push_followed_by_a_visit_of_the_page_is_not_asked_again(client, svc, celery_worker,
                                                                    receiver) -> None:  # type: ignore[no-untyped-def]
    svc.config["PUSH_FALLBACK_HOURS"] = 2.0
    _gid, token = pushed_prompt(client, svc, receiver)
    texts = len(local_messages(svc, ALICE))
    assert client.get(f"/g/{token}").status_code == 200  # the notification tapped: the page opened
    clock.advance(svc.redis, 3 * 3600)
    beat(svc)
    assert len(local_messages(svc, ALICE)) == texts


def test_a_push_not_seen_with_no_other_channel_is_told_to_the_operator(client, svc, celery_worker, receiver,
                                                                       caplog) -> None:  # type: ignore[no-untyped-def]
    svc.config["PUSH_FALLBACK_HOURS"] = 2.0
    gid, _token = pushed_prompt(client, svc, receiver)
    _resp, mid = post_sms(client, ALICE, "STOP")  # her number takes no more messages: only the push is left
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert svc.store.meta(gid)["status"] == "active"  # she plays on, by the page
    texts = len(local_messages(svc, ALICE))
    clock.advance(svc.redis, 3 * 3600)
    with caplog.at_level(logging.WARNING, logger="service.lifecycle.push_fallback"):
        beat(svc)
    assert len(local_messages(svc, ALICE)) == texts
    told = [r for r in caplog.records if r.getMessage() == "push fallback: no other channel"]
    assert told and ALICE not in json.dumps(told[0].__dict__, default=str)


def say(client: Any, svc: Any, who: str, text: str) -> str:
    """``who`` texts ``text``; the service's answer."""
    wait_outbox_settled(svc)  # (what came before is counted before)
    before = len(local_messages(svc, who))
    _resp, mid = post_sms(client, who, text)
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    got = local_messages(svc, who)[before:]
    assert len(got) == 1, got
    return str(got[0]["body"])


def test_via_sms_and_via_page_choose_between_the_texts_and_the_browser(client, svc, celery_worker,
                                                                        receiver) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    assert say(client, svc, ALICE, "VIA PAGE").startswith("No browser notifies you yet: open your game page (WEB)")
    assert svc.links.via(ALICE) == ""  # nothing set
    _url, token = link_of(svc, client, ALICE)
    assert subscribe(client, token, receiver.browser().subscription()).status_code == 201
    assert say(client, svc, ALICE, "VIA SMS").startswith("Your turns now go to +1..0001")
    away(svc)
    bobs = play_until(client, svc, gid, receiver, lambda b: b and b[-1][0])  # BOB's move prompts ALICE
    assert bobs[-1] == (1, 0) and receiver.requests == 0  # by SMS, as she asked: the browser is not notified
    assert say(client, svc, ALICE, "VIA PAGE").startswith("Your turns now go to web..")
    away(svc)
    bobs = play_until(client, svc, gid, receiver, lambda b: b and b[-1] != (0, 0))
    assert bobs[-1] == (0, 1)  # by push again


def test_the_free_channels_come_first_unless_via_names_another() -> None:
    route = Route("+15551230001", ("whatsapp:+15551230001", "telegram:42", "push:00000000000000000abc",
                                   "ana@example.com"))
    assert [d.address for d in candidates(route)] == [
        "telegram:42", "push:00000000000000000abc", "+15551230001", "whatsapp:+15551230001", "ana@example.com"]
    assert [d.address for d in candidates(replace(route, via="sms"))][:3] == [
        "+15551230001", "telegram:42", "push:00000000000000000abc"]
    assert [d.channel for d in candidates(replace(route, via="push"))][:2] == [PUSH, "telegram"]


def test_a_push_carries_a_short_text_whatever_the_message() -> None:
    long_greek = "Γύρος 1: εσύ. " * 400  # 5,600 characters, two bytes each in UTF-8
    body = json.loads(webpush.payload({"body": long_greek, "url": "/g/" + "a" * 32, "game": "abc"}))
    assert len(body["body"]) <= webpush.TEXT_MAX and body["body"].endswith("…")
    assert len(webpush.payload({"body": long_greek})) < 3993  # RFC 8291: what one aes128gcm record takes
    assert set(body) == {"title", "body", "url", "tag"}


def test_forgetting_a_player_forgets_their_browsers(svc) -> None:  # type: ignore[no-untyped-def]
    sub = webpush.Subscription("https://fcm.googleapis.com/fcm/send/abc", "k", "a")
    svc.push.save(sub.address, sub.endpoint, sub.p256dh, sub.auth, ALICE)
    svc.links.attach(ALICE, sub.address)
    svc.inject(forget)(ALICE)
    assert svc.push.get(sub.address) == {} and svc.links.home(sub.address) == sub.address


def test_a_sixth_browser_replaces_the_first_and_an_expired_page_takes_none(client, svc, celery_worker,
                                                                           receiver) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    _url, token = link_of(svc, client, ALICE)
    browsers = [receiver.browser() for _ in range(BROWSERS_MAX + 1)]
    for b in browsers:
        assert subscribe(client, token, b.subscription()).status_code == 201
    addresses = [webpush.Subscription(b.endpoint, "", "").address for b in browsers]
    assert svc.links.route(ALICE).links == tuple(addresses[1:])  # the first one to ask: replaced
    assert svc.push.get(addresses[0]) == {} and svc.push.get(addresses[-1])["home"] == ALICE
    form = page_form(client, token)
    for text in ("RESIGN", "YES"):
        _resp, mid = post_sms(client, ALICE, text)
        wait_handled(svc, mid)
    assert svc.store.meta(gid)["status"] == "over"
    clock.advance(svc.redis, (float(svc.config["PAGE_TTL_DAYS"]) + 1) * 86400)
    late = receiver.browser()
    resp = client.post(form["url"], data={"csrf": form["csrf"], "subscription": json.dumps(late.subscription())},
                       headers={"Sec-Fetch-Site": "same-origin"})
    assert resp.status_code == 410 and resp.get_json()["message"] == REASONS["expired"]
    assert webpush.Subscription(late.endpoint, "", "").address not in svc.links.route(ALICE).links


def test_a_reminder_comes_by_push(client, svc, celery_worker, receiver) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(PUSH_FALLBACK_HOURS=0, QUIET_HOURS="0-0")
    _gid, token = pushed_prompt(client, svc, receiver)
    texts, pushes = len(local_messages(svc, ALICE)), len(receiver.received)
    clock.advance(svc.redis, 13 * 3600)  # past the first reminder (REMIND_DELAYS: 12 hours)
    beat(svc)
    wait_outbox_settled(svc)
    assert len(local_messages(svc, ALICE)) == texts  # no SMS
    [reminder] = receiver.payloads()[pushes:]
    assert reminder["url"] == f"/g/{token}" and reminder["body"].startswith("Reminder")


@pytest.mark.parametrize("key", ["nope", "AAAA", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"])
def test_a_vapid_key_that_is_not_one_stops_the_process_naming_it(capsys, key) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as stopped:
        config_or_exit({"SLOWSPADES_PUSH_VAPID_PRIVATE_KEY": key})
    assert stopped.value.code == EX_CONFIG
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("slowspades: not started: SLOWSPADES_PUSH_VAPID_PRIVATE_KEY is not a P-256 private key")
    assert key not in line  # (a secret, even a wrong one, is not repeated)
    assert webpush.public_key(config_or_exit({"SLOWSPADES_PUSH_VAPID_PRIVATE_KEY": vapid_key()}))  # a real one reads

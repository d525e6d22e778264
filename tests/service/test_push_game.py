"""A whole game between a player on their game page with push and a WhatsApp player (issue 43), through the real
webhooks and a real Celery worker: the page player answered YES by SMS, asked her page to notify her, then made
every move from the page; each time her opponent's move left her a move to make she was away from the page, and the
prompt came to her browser by push (to a local push service at its HTTP boundary, VAPID checked and decrypted,
:mod:`tests.service.push_receiver`), never by SMS; the WhatsApp player played by WhatsApp, Twilio's REST API
answered at the SDK's HTTP boundary. What the pushes cost: nothing."""

from __future__ import annotations

from typing import Any

import pytest

from service import prices
from service.addresses import PUSH
from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from service.store import clock, game_owner
from spades.commands import Command, Exchange

from .chooser import choose
from .helpers import post_sms, wait_handled, wait_outbox_settled
from .push_receiver import PushReceiver
from .test_delivery import SID, FakeTwilioHttp
from .test_game_page_play import page_of
from .test_sms_game import load_game
from .test_webpush import subscribe, vapid_key

PAGE_PLAYER = "+15551230001"  # plays from her game page, notified by push; her home is this number (SMS)
WA = "whatsapp:+306912345678"  # a Greek player on WhatsApp


@pytest.fixture()
def services(app, svc):  # type: ignore[no-untyped-def]
    """Twilio for SMS and WhatsApp at the SDK's HTTP boundary, push to a local push service, no quiet hours."""
    http, rx = FakeTwilioHttp(), PushReceiver().start()
    app.config.update(TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="test-auth-token", TWILIO_FROM="+15550000000",
                      TWILIO_WHATSAPP_FROM="+15550000001", TWILIO_HTTP_CLIENT=http, QUIET_HOURS="0-0",
                      PUSH_VAPID_PRIVATE_KEY=vapid_key(), PUSH_UNSAFE_TEST_HOSTS=rx.host, PUSH_FALLBACK_HOURS=0)
    app.config.pop("_SENDERS", None)
    yield http, rx
    rx.stop()


def to(http: FakeTwilioHttp, address: str) -> list[dict[str, str]]:
    return [r["data"] for r in http.requests if r["data"].get("To") == address]


def page_move(client: Any, token: str, command: Command) -> None:
    """``command`` made on the page, as its form sends it."""
    _page, csrf, ask = page_of(client, token)
    form: dict[str, Any] = {"csrf": csrf, "ask": ask, "move": command_text(command)}
    if isinstance(command, Exchange):
        form.update(move="SWAP", card=[c.code for c in command.cards])
    resp = client.post(f"/g/{token}/move", data=form)
    assert resp.status_code == 303 and "m=" not in resp.headers["Location"], resp.headers["Location"]


@pytest.mark.slow
def test_a_whole_game_between_the_page_with_push_and_whatsapp(client, svc, celery_worker, services) -> None:  # type: ignore[no-untyped-def]
    http, rx = services
    _resp, mid = post_sms(client, WA, f"NEW {PAGE_PLAYER} TO 150",
                          sid="SMd43pushgame000000000000000000003")  # one deal (DEALER_SEED), every run: he ends it
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    _resp, mid = post_sms(client, PAGE_PLAYER, "YES")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    seat = 1 if svc.store.meta(gid)["seat1"] == PAGE_PLAYER else 0
    token = svc.players.ensure_web_token(gid, seat)
    browser = rx.browser()
    assert subscribe(client, token, browser.subscription()).status_code == 201
    texts_before = len(to(http, PAGE_PLAYER))
    quiet_s = float(svc.config["PAGE_QUIET_MINUTES"]) * 60 + 60
    prompted, pushed, last = 0, 0, -1
    for _ in range(2000):
        game = load_game(svc, gid)
        if game.phase == "over":
            break
        mover = last = game.movers[0] if len(game.movers) == 1 or seat not in game.movers else seat
        if mover == seat:
            page_move(client, token, choose(game, seat))
            clock.advance(svc.redis, quiet_s)  # she leaves the page: her next prompt is pushed
        else:
            _resp, mid = post_sms(client, WA, command_text(choose(game, mover)))
            wait_handled(svc, mid)
            wait_outbox_settled(svc)
            if load_game(svc, gid).movers == (seat,):  # his move left her one to make: she was told, by push
                prompted += 1
                assert rx.requests > pushed, "no push for a move owed"
            pushed = rx.requests
    game = load_game(svc, gid)
    assert game.phase == "over"
    wait_outbox_settled(svc)
    payloads = rx.payloads(browser.n)
    assert prompted > 10 and len(payloads) >= prompted and rx.refused == []
    assert all(p["url"] == f"/g/{token}" and p["tag"] == gid and p["body"] for p in payloads)
    assert last != seat and "Game over" in payloads[-1]["body"]  # his move ended it: she was told by push
    assert any("Hand 1: you " in p["body"] for p in payloads)  # the end of a hand, in the prompt after it
    assert len(to(http, PAGE_PLAYER)) == texts_before  # not one SMS to her since she asked to be notified
    by_whatsapp = to(http, WA)
    assert by_whatsapp and all(m["From"] == "whatsapp:+15550000001" and (m.get("Body") or m.get("ContentSid"))
                               for m in by_whatsapp)  # (a text, or its answers as a list: service.whatsapp_buttons)
    entries = svc.store.outbox_entries(game_owner(gid))  # (a finished game's outbox is compacted: its last ones)
    pushes = [e for e in entries if e.get("channel") == PUSH]
    assert pushes and all(e["status"] == "sent" for e in pushes)
    table = prices.prices(svc.config)
    assert sum(table.entry(e) for e in pushes) == 0.0 < sum(table.entry(e) for e in entries)

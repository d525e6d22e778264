"""WhatsApp beside SMS through the real webhook (signed with Twilio's own RequestValidator) and a real Celery
worker: a whole game between a WhatsApp player and an SMS player, the 24-hour window (a reminder inside it goes
free-form, outside it as the approved template with its variables, sent by the Twilio SDK answered at its HTTP
boundary), and the fallback to a linked channel when no template is configured."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest

from chat import is_gsm7
from service.conversation_port import command_text
from service.delivery import WINDOW_CLOSED
from service.lifecycle.invitations import game_id_for
from service.logs import pseudonym
from service.store.window import WINDOW_MS
from workers.beat import run_tick

from .chooser import choose
from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_delivery import SID, FakeTwilioHttp
from .test_sms_game import load_game, play_out

WA = "whatsapp:+306912345678"  # a Greek player on WhatsApp
WA_BY_SMS = "+306912345678"  # the same number by SMS: another address, another player until linked
SMS = "+15551230002"
WA_SENDER = "+15550000001"  # the service's WhatsApp sender
GREEK_LOWER_ACCENTED = re.compile("[άέήίόύώ]")
HOUR_S = 3600


def start_game(client: Any, svc: Any, target: int = 500) -> str:
    """The WhatsApp player invites the SMS player, who says YES."""
    resp, mid = post_sms(client, WA, f"NEW {SMS} TO {target}")
    assert resp.status_code == 200
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    resp, mid = post_sms(client, SMS, "YES")
    wait_handled(svc, mid)
    assert svc.store.meta(gid)["status"] == "active"
    wait_outbox_settled(svc)
    return gid


def start_with_whatsapp_to_move(client: Any, svc: Any) -> str:
    """:func:`start_game`, then the SMS player's moves until the WhatsApp player owes one (who draws first is the
    deal's)."""
    gid = start_game(client, svc)
    for _ in range(3):
        game = load_game(svc, gid)
        if 0 in game.movers:
            break
        resp, mid = post_sms(client, SMS, command_text(choose(game, game.movers[0])))
        wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert 0 in load_game(svc, gid).movers
    return gid


def test_a_whole_game_between_a_whatsapp_player_and_an_sms_player(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc, target=150)
    assert svc.store.meta(gid)["seat0"] == WA  # the WhatsApp address is the player, "whatsapp:" and all
    play_out(client, svc, gid, (WA, SMS))
    game = load_game(svc, gid)
    assert game.phase == "over"
    wait_outbox_settled(svc)
    assert all(e["status"] == "sent" for e in svc.store.outbox_entries(f"g:{gid}"))
    to_wa, to_sms = local_messages(svc, WA), local_messages(svc, SMS)
    assert to_wa and to_sms
    # by WhatsApp: Greek in its own lower case and accents, one message per reply, never a template (the player
    # answered within minutes: always inside the window)
    assert all(m["channel"] == "whatsapp" and "content_sid" not in m for m in to_wa)
    assert all(GREEK_LOWER_ACCENTED.search(m["body"]) for m in to_wa if not m["body"].isascii())
    assert sum(not is_gsm7(m["body"]) for m in to_wa) > len(to_wa) // 2
    assert "Γύρος 1: εσύ" in " ".join(m["body"] for m in to_wa)  # "Hand 1: you", as the catalogue writes it
    assert "+30..5678" in " ".join(m["body"] for m in to_sms)  # the opponent's number shortened, never in full
    assert not any("306912345678" in m["body"] for m in to_sms)
    # by SMS: GSM-7 as ever
    assert all(m["channel"] == "sms" and is_gsm7(m["body"]) for m in to_sms)
    assert "Game over:" in to_sms[-1]["body"]
    assert svc.store.last_inbound_ms(WA) is not None and svc.store.last_inbound_ms(SMS) is None


def test_a_whatsapp_address_is_a_player_of_its_own(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    start_game(client, svc)
    resp, mid = post_sms(client, WA_BY_SMS, "HAND")  # the same number, by SMS: no game there
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    [reply] = local_messages(svc, WA_BY_SMS)
    assert reply["channel"] == "sms" and is_gsm7(reply["body"])
    assert svc.players.games(WA_BY_SMS) == [] and len(svc.players.games(WA)) == 1


# -- the window -------------------------------------------------------------------------------------------
@pytest.fixture()
def twilio(app, svc):  # type: ignore[no-untyped-def]
    """Twilio configured for SMS and WhatsApp, its REST API answered at the SDK's HTTP boundary; no quiet hours."""
    http = FakeTwilioHttp()
    app.config.update(TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="test-auth-token", TWILIO_FROM="+15550000000",
                      TWILIO_WHATSAPP_FROM=WA_SENDER, TWILIO_HTTP_CLIENT=http, QUIET_HOURS="0-0")
    app.config.pop("_SENDERS", None)
    return http


def sent_to(twilio: FakeTwilioHttp, address: str) -> list[dict[str, str]]:
    return [r["data"] for r in twilio.requests if r["data"].get("To") == address]


def advance_and_tick(svc: Any, hours: float) -> list[str]:
    """The service's shared clock moved on ``hours``; one beat tick, its messages delivered; their outbox ids."""
    from service.delivery import deliver

    svc.store.clock.advance(hours * HOUR_S)
    ids: list[str] = []
    run_tick(svc, ids.extend, lambda turn: None)
    for oid in ids:
        deliver(svc, oid)
    return ids


def reminder_ids(svc: Any, ids: list[str], to: str) -> list[dict[str, str]]:
    entries = [svc.store.outbox_entry(oid) for oid in ids]
    return [e for e in entries if e and e.get("kind") == "reminder" and e.get("to") == to]


def test_a_reminder_inside_the_window_is_free_text_outside_it_the_template(client, svc, celery_worker,
                                                                           twilio) -> None:  # type: ignore[no-untyped-def]
    svc.config["WHATSAPP_TEMPLATES"] = "reminder.el=HXreminder0el,turn.el=HXturn0el,reminder.en=HXreminder0en"
    try:
        start_with_whatsapp_to_move(client, svc)
        assert sent_to(twilio, WA) and all("ContentSid" not in d for d in sent_to(twilio, WA))  # answers: free text
        assert all(d["From"] == "whatsapp:" + WA_SENDER for d in sent_to(twilio, WA))
        assert all(d["From"] == "+15550000000" for d in sent_to(twilio, SMS))
        before = len(sent_to(twilio, WA))
        [first] = reminder_ids(svc, advance_and_tick(svc, 12), WA)  # 12 hours on: inside the window
        [inside] = sent_to(twilio, WA)[before:]
        assert "ContentSid" not in inside and inside["Body"] == first["body"]
        assert inside["Body"].startswith("Υπενθύμιση") and GREEK_LOWER_ACCENTED.search(inside["Body"])
        assert inside["StatusCallback"].startswith("https://spades.example.test/sms/status?o=")
        [second] = reminder_ids(svc, advance_and_tick(svc, 24), WA)  # 36 hours after it last wrote: closed
        [outside] = sent_to(twilio, WA)[before + 1:]
        assert outside["ContentSid"] == "HXreminder0el" and "Body" not in outside
        assert json.loads(outside["ContentVariables"]) == {"1": second["body"]}  # the reminder itself, in Greek
        assert GREEK_LOWER_ACCENTED.search(second["body"])
        assert outside["From"] == "whatsapp:" + WA_SENDER and outside["StatusCallback"].endswith(
            second["id"].replace(":", "%3A").replace("#", "%23"))
        # the player writes again: the window opens, and the next message to them is free text again
        resp, mid = post_sms(client, WA, "HAND")
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        assert "ContentSid" not in sent_to(twilio, WA)[-1] and sent_to(twilio, WA)[-1]["Body"]
    finally:
        svc.config.pop("WHATSAPP_TEMPLATES", None)


class StaticLinks:
    """The contract's ``Links`` read side (``service.store.links`` of the linking work), held in memory: the
    player's linked addresses, home first."""

    def __init__(self, linked: dict[str, list[str]]) -> None:
        self.links = linked

    def home(self, address: str) -> str:
        return next((h for h, addresses in self.links.items() if address in addresses), address)

    def linked(self, home: str) -> list[str]:
        return list(self.links.get(home, [home]))

    def via(self, home: str) -> str:
        return ""


def test_no_template_falls_back_to_the_linked_channel_and_says_so(client, svc, celery_worker, twilio, caplog,
                                                                  monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(svc, "links", StaticLinks({WA: [WA, WA_BY_SMS]}), raising=False)
    start_with_whatsapp_to_move(client, svc)
    advance_and_tick(svc, 12)  # inside the window: by WhatsApp
    before_sms = len(sent_to(twilio, WA_BY_SMS))
    with caplog.at_level(logging.WARNING, logger="service.channels"):
        ids = advance_and_tick(svc, 24)  # outside it, and no template: by the linked SMS number
    assert reminder_ids(svc, ids, WA) == []
    [entry] = reminder_ids(svc, ids, WA_BY_SMS)
    [sms] = sent_to(twilio, WA_BY_SMS)[before_sms:]
    assert sms["From"] == "+15550000000" and sms["Body"] == entry["body"] and is_gsm7(sms["Body"])
    assert sms["Body"].startswith("YΠENΘYMIΣH")  # Greek by SMS: GSM-7 capitals
    [line] = [r for r in caplog.records if r.name == "service.channels"]
    assert "no template" in line.getMessage() and line.player == pseudonym(WA)  # type: ignore[attr-defined]
    assert "306912345678" not in line.getMessage() + str(line.__dict__.get("player"))


def test_nowhere_else_to_go_the_message_is_not_handed_to_twilio(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    start_with_whatsapp_to_move(client, svc)
    svc.store.clock.advance(WINDOW_MS / 1000 - 12 * HOUR_S)
    sent = len(sent_to(twilio, WA))
    [entry] = reminder_ids(svc, advance_and_tick(svc, 12), WA)
    stored = svc.store.outbox_entry(entry["id"])
    assert stored["status"] == "failed" and stored["error"] == WINDOW_CLOSED
    assert len(sent_to(twilio, WA)) == sent  # Twilio would refuse it (63016): not even asked

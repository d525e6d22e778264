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
from .fake_twilio_content import FakeTwilioContent
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
    """Twilio configured for SMS and WhatsApp, its REST API (its Content API too) answered at the SDK's HTTP boundary;
    no quiet hours."""
    http = FakeTwilioContent()
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
    run_tick(svc.config, svc.store, svc.steps, ids.extend, lambda turn: None)
    for oid in ids:
        svc.inject(deliver)(oid)
    return ids


def reminder_ids(svc: Any, ids: list[str], to: str) -> list[dict[str, str]]:
    entries = [svc.store.outbox_entry(oid) for oid in ids]
    return [e for e in entries if e and e.get("kind") == "reminder" and e.get("to") == to]


def test_a_reminder_inside_the_window_is_free_text_outside_it_the_template(client, svc, celery_worker,
                                                                           twilio) -> None:  # type: ignore[no-untyped-def]
    svc.config["WHATSAPP_TEMPLATES"] = "reminder.el=HXreminder0el,turn.el=HXturn0el,reminder.en=HXreminder0en"
    try:
        start_with_whatsapp_to_move(client, svc)
        assert sent_to(twilio, WA) and all(d.get("ContentSid") in (None, *twilio.contents)  # answers: free-form,
                                           for d in sent_to(twilio, WA))  # as text or with buttons (never a template)
        assert all(d["From"] == "whatsapp:" + WA_SENDER for d in sent_to(twilio, WA))
        assert all(d["From"] == "+15550000000" for d in sent_to(twilio, SMS))
        before = len(sent_to(twilio, WA))
        [first] = reminder_ids(svc, advance_and_tick(svc, 12), WA)  # 12 hours on: inside the window
        [inside] = [r for r in twilio.requests if r["data"].get("To") == WA][before:]
        shown = twilio.shown(inside)  # free-form: the reminder, with the prompt's answers as buttons (issue 43)
        assert shown["body"] == first["body"] and [t for t, _d in shown["buttons"]] == ["DN", "ΤΡΑΒΑ"]
        assert shown["body"].startswith("Υπενθύμιση") and GREEK_LOWER_ACCENTED.search(shown["body"])
        inside = inside["data"]
        assert inside["StatusCallback"].startswith("https://spades.example.test/sms/status?o=")
        [second] = reminder_ids(svc, advance_and_tick(svc, 24), WA)  # 36 hours after it last wrote: closed
        [outside] = sent_to(twilio, WA)[before + 1:]
        assert outside["ContentSid"] == "HXreminder0el" and "Body" not in outside
        assert json.loads(outside["ContentVariables"]) == {"1": second["body"]}  # the reminder itself, in Greek
        assert GREEK_LOWER_ACCENTED.search(second["body"])
        assert outside["From"] == "whatsapp:" + WA_SENDER and outside["StatusCallback"].endswith(
            second["id"].replace(":", "%3A").replace("#", "%23"))
        # the player writes again: the window opens, and the next message to them is free-form again
        resp, mid = post_sms(client, WA, "HAND")
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        assert sent_to(twilio, WA)[-1]["ContentSid"] in twilio.contents  # free-form again: the answer, with buttons
    finally:
        svc.config.pop("WHATSAPP_TEMPLATES", None)


def link(svc: Any, home: str, address: str) -> None:
    """``address`` linked to ``home`` through the links store, as LINK and its code sent back do."""
    now = svc.store.clock.now_ms()
    code = svc.links.new_code(home, address, now, 600)
    assert svc.links.take_code(address, code, now, 5).status == "ok"
    assert svc.links.add_link(home, address)


def test_no_template_falls_back_to_the_linked_channel_and_says_so(client, svc, celery_worker, twilio,
                                                                  caplog) -> None:  # type: ignore[no-untyped-def]
    start_with_whatsapp_to_move(client, svc)
    link(svc, WA, WA_BY_SMS)
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


def whatsapp_waits_a_day(client: Any, svc: Any) -> str:
    """A game in strict alternation (ALT) played until only the SMS player is to move; then the clock moves on a
    day and an hour: the WhatsApp player's window is closed."""
    resp, mid = post_sms(client, WA, f"NEW {SMS} ALT")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    resp, mid = post_sms(client, SMS, "YES")
    wait_handled(svc, mid)
    for _ in range(6):
        game = load_game(svc, gid)
        if game.movers == (1,):
            break
        resp, mid = post_sms(client, (WA, SMS)[game.movers[0]], command_text(choose(game, game.movers[0])))
        wait_handled(svc, mid)
    assert load_game(svc, gid).movers == (1,)
    wait_outbox_settled(svc)
    svc.store.clock.advance(25 * HOUR_S)
    return gid


def sms_moves_until(client: Any, svc: Any, gid: str, told: Any) -> None:
    """The SMS player moves until ``told()`` (the WhatsApp player heard of it)."""
    while not told():
        game = load_game(svc, gid)
        assert game.movers == (1,)
        resp, mid = post_sms(client, SMS, command_text(choose(game, 1)))
        wait_handled(svc, mid)
        wait_outbox_settled(svc)


def test_a_turn_prompt_outside_the_window_without_a_template_goes_by_the_linked_sms(
        client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    """The move's messages written at once into the local outbox: the WhatsApp player's prompt goes to their linked
    number by SMS, and is sent (not refused as if it were nobody's)."""
    gid = whatsapp_waits_a_day(client, svc)
    link(svc, WA, WA_BY_SMS)
    to_wa = len(local_messages(svc, WA))
    sms_moves_until(client, svc, gid, lambda: local_messages(svc, WA_BY_SMS))
    [prompt] = local_messages(svc, WA_BY_SMS)
    assert len(local_messages(svc, WA)) == to_wa and 0 in load_game(svc, gid).movers
    assert prompt["channel"] == "sms" and is_gsm7(prompt["body"]) and prompt["home"] == WA
    entry = svc.store.outbox_entry(prompt["id"])
    assert entry["status"] == "sent" and entry["to"] == WA_BY_SMS


def test_a_turn_prompt_outside_the_window_goes_as_the_turn_template(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    """The WhatsApp player waits (strict alternation in the draw, ALT) more than a day; the SMS player's move makes it
    their turn: the prompt goes as the ``turn`` template, the prompt itself its variable."""
    svc.config["WHATSAPP_TEMPLATES"] = "turn.el=HXturn0el"
    try:
        gid = whatsapp_waits_a_day(client, svc)
        assert all(d.get("ContentSid") in (None, *twilio.contents) for d in sent_to(twilio, WA))  # no template yet
        before = len(sent_to(twilio, WA))
        sms_moves_until(client, svc, gid, lambda: sent_to(twilio, WA)[before:])
        [prompt] = sent_to(twilio, WA)[before:]
        assert 0 in load_game(svc, gid).movers
        entry = next(e for e in svc.store.outbox_entries(f"g:{gid}") if e["to"] == WA and e.get("content_sid"))
        assert prompt["ContentSid"] == "HXturn0el" and "Body" not in prompt and entry["kind"] == "update"
        assert json.loads(prompt["ContentVariables"]) == {"1": entry["body"]} and GREEK_LOWER_ACCENTED.search(entry["body"])
    finally:
        svc.config.pop("WHATSAPP_TEMPLATES", None)


# -- the sender ---------------------------------------------------------------------------------------------
def queue_one(svc: Any, entry: dict[str, Any]) -> str:
    [oid] = svc.store.append("g:g1", -1, outbox=[entry]).outbox_ids
    return str(oid)


def test_twilio_gets_a_template_or_the_text_and_a_long_text_in_parts(svc, twilio, app) -> None:  # type: ignore[no-untyped-def]
    from service.delivery import deliver

    template = queue_one(svc, {"channel": "whatsapp", "to": WA, "body": "Υπενθύμιση: σειρά σου", "kind": "reminder",
                               "content_sid": "HXr", "content_variables": '{"1": "Υπενθύμιση: σειρά σου"}'})
    assert svc.inject(deliver)(template) == "sent"
    [req] = twilio.requests
    assert req["data"] == {"To": WA, "From": "whatsapp:" + WA_SENDER, "ContentSid": "HXr",
                           "ContentVariables": '{"1": "Υπενθύμιση: σειρά σου"}',
                           "StatusCallback": "https://spades.example.test/sms/status?o=g%3Ag1%231"}
    long = " ".join(["άλφα"] * 700)  # 3,499 characters: past Twilio's 1,600, three messages in order
    assert svc.inject(deliver)(queue_one(svc,
                                         {"channel": "whatsapp", "to": WA, "body": long, "kind": "update"})) == "sent"
    bodies = [r["data"]["Body"] for r in twilio.requests[1:]]
    assert len(bodies) == 3 and all(len(b) <= 1600 for b in bodies) and " ".join(bodies) == long
    app.config.update(TWILIO_WHATSAPP_FROM="MG" + "2" * 32)  # a Messaging Service holding the WhatsApp sender
    app.config.pop("_SENDERS", None)
    assert svc.inject(deliver)(queue_one(svc,
                                         {"channel": "whatsapp", "to": WA, "body": "hi", "kind": "help"})) == "sent"
    last = twilio.requests[-1]["data"]
    assert last["MessagingServiceSid"] == "MG" + "2" * 32 and "From" not in last and last["Body"] == "hi"


def test_templates_setting_is_read_or_refused_at_start() -> None:
    from service.config import load_config
    from service.whatsapp import BadTemplates, template_sid

    cfg = load_config({"SLOWSPADES_WHATSAPP_TEMPLATES": "turn.en=HX1, reminder.el=HX2,invite.fr=HX3"})
    assert template_sid(cfg, "reminder", "el") == "HX2" and template_sid(cfg, "reminder", "en") is None
    for bad in ("turn=HX1", "update.en=HX1", "turn.de=HX1", "turn.en="):
        with pytest.raises(BadTemplates):
            load_config({"SLOWSPADES_WHATSAPP_TEMPLATES": bad})


def test_whatsapp_messages_are_not_sms_for_the_daily_cap(svc) -> None:  # type: ignore[no-untyped-def]
    from service import daily_cap, limits

    svc.config.update(SMS_DAILY_CAP=2, SMS_CAP_RESERVE=0)
    try:
        wa = [{"channel": "whatsapp", "to": f"whatsapp:+3069123456{n:02d}", "body": "x", "kind": "invite"}
              for n in range(5)]
        sms = [{"channel": "sms", "to": f"+155512300{n:02d}", "body": "x", "kind": "help"} for n in range(3)]
        may, held = daily_cap.split_sms(svc.config, svc.store, wa + sms)
        assert may[:5] == wa and len(held) == 3  # WhatsApp passes; the batch of 3 SMS crosses the cap of 2
        assert svc.store.sms_today(limits.day())[0] == 3
    finally:
        svc.config.update(SMS_DAILY_CAP=0, SMS_CAP_RESERVE=20)


def test_a_whatsapp_address_in_a_log_line_is_its_player_hash() -> None:
    from service.logs import scrub

    for written in (WA, "whatsapp%3A%2B306912345678"):
        line = scrub(f"sent to {written} at last")
        assert line == f"sent to {pseudonym(WA)} at last" and "6912345678" not in line


def test_an_invitation_outside_the_window_goes_as_the_invite_template(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    """The SMS player asks a REMATCH a day after the WhatsApp player resigned: the invitation goes as the
    ``invite`` template in the WhatsApp player's language."""
    svc.config["WHATSAPP_TEMPLATES"] = "invite.el=HXinvite0el,invite.en=HXinvite0en"
    try:
        gid = start_game(client, svc)
        for text in ("RESIGN", "YES"):
            resp, mid = post_sms(client, WA, text)
            wait_handled(svc, mid)
        assert svc.store.meta(gid)["status"] == "over"
        wait_outbox_settled(svc)
        before = len(sent_to(twilio, WA))
        svc.store.clock.advance(25 * HOUR_S)
        resp, mid = post_sms(client, SMS, "REMATCH")
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        [invitation] = sent_to(twilio, WA)[before:]
        assert invitation["ContentSid"] == "HXinvite0el" and "Body" not in invitation
        text = json.loads(invitation["ContentVariables"])["1"]
        assert "+1..0002" in text and GREEK_LOWER_ACCENTED.search(text)  # who invites, in Greek
        entry = next(e for e in svc.store.outbox_entries(f"g:{game_id_for(mid)}") if e["to"] == WA)
        assert entry["kind"] == "invite" and entry["body"] == text
    finally:
        svc.config.pop("WHATSAPP_TEMPLATES", None)

"""Delivery receipts through the real webhooks: Twilio's status callbacks signed with Twilio's own validator, Mailgun's
events signed as Mailgun signs them; what each code changes, twice and out of order, and an unreachable player's clock."""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from typing import Any
from urllib.parse import quote

import pytest

from service.conversation_port import command_text
from service.delivery import build_email, deliver
from service.store import clock as service_clock
from service.store import game_owner
from tests.lifecycle.helpers import lifecycle_command, load, local, move, mover, other, start_game, tick

from .chooser import choose
from .helpers import BASE, MG_KEY, twilio_sign, wait_for

PHONE = "+15551230009"
MAIL = "dana@example.org"


def queue_sent(svc: Any, to: str = PHONE, body: str = "Your turn.") -> str:
    """An outbox entry written and "sent" through the local outbox, as a move's message is."""
    channel = "email" if "@" in to else "whatsapp" if to.startswith("whatsapp:") else "sms"
    [oid] = svc.store.append(game_owner("g" + uuid.uuid4().hex[:8]), -1,
                             outbox=[{"channel": channel, "to": to, "body": body, "kind": "prompt"}]).outbox_ids
    assert svc.inject(deliver)(oid) == "sent"
    return str(oid)


def twilio_status(client: Any, oid: str, status: str, code: str = "", sid: str = "SMfirst") -> int:
    url = f"{BASE}/sms/status?o={quote(oid, safe='')}"
    params = {"MessageSid": sid, "MessageStatus": status, "AccountSid": "AC" + "0" * 32, "To": PHONE,
              "From": "+15550000000"}
    if code:
        params["ErrorCode"] = code
    resp = client.post(url[len(BASE):], data=params, headers={"X-Twilio-Signature": twilio_sign(url, params)})
    return int(resp.status_code)


def mailgun_event(client: Any, event: dict[str, Any], key: str = MG_KEY, timestamp: float | None = None,
                  token: str | None = None) -> Any:
    """POST a Mailgun event (JSON) signed as Mailgun signs it: HMAC-SHA256 of timestamp + token."""
    ts = str(int(time.time() if timestamp is None else timestamp))
    tok = token or uuid.uuid4().hex + uuid.uuid4().hex[:18]
    sig = hmac.new(key.encode(), (ts + tok).encode(), hashlib.sha256).hexdigest()
    return client.post("/email/events", json={"signature": {"timestamp": ts, "token": tok, "signature": sig},
                                              "event-data": {"id": uuid.uuid4().hex, **event}})


def status(svc: Any, oid: str) -> str:
    return str(svc.store.outbox_entry(oid)["status"])


def test_twice_and_out_of_order_change_nothing_more(client, svc) -> None:  # type: ignore[no-untyped-def]
    oid = queue_sent(svc)
    assert twilio_status(client, oid, "delivered") == 204
    for late in ("sent", "delivered", "undelivered"):  # a 'sent' after 'delivered', a repeat, a late failure
        assert twilio_status(client, oid, late, "30003" if late == "undelivered" else "") == 204
    entry = svc.store.outbox_entry(oid)
    assert (entry["status"], entry["sid"], entry["error"], entry["tries"]) == ("delivered", "SMfirst", None, 0)
    assert [m["body"] for m in local(svc, PHONE)] == ["Your turn."]  # a delivered message is never sent again
    assert svc.reach.unreachable(PHONE) == ""


def test_signature_failures_are_403(client, svc) -> None:  # type: ignore[no-untyped-def]
    oid = queue_sent(svc)
    url = f"/sms/status?o={quote(oid, safe='')}"
    params = {"MessageSid": "SMx", "MessageStatus": "undelivered", "ErrorCode": "30005"}
    assert client.post(url, data=params, headers={"X-Twilio-Signature": "forged"}).status_code == 403
    assert client.post(url, data=params).status_code == 403
    event = {"event": "failed", "severity": "permanent", "user-variables": {"outbox": oid}}
    assert mailgun_event(client, event, key="not-the-key").status_code == 403
    assert client.post("/email/events", data="not json").status_code == 403
    assert client.post("/email/events", json={"event-data": event}).status_code == 403
    assert mailgun_event(client, event, timestamp=time.time() - 3600).status_code == 406  # stale: a replay
    assert status(svc, oid) == "sent" and svc.reach.unreachable(PHONE) == ""


@pytest.mark.parametrize("code", ["30005", "30006", "21610"])
def test_a_permanent_code_marks_the_number_unreachable(client, svc, celery_worker, code) -> None:  # type: ignore[no-untyped-def]
    oid = queue_sent(svc)
    assert twilio_status(client, oid, "undelivered", code) == 204
    wait_for(lambda: svc.reach.unreachable(PHONE) == code, 10, f"{PHONE} unreachable ({code})")
    entry = svc.store.outbox_entry(oid)
    assert (entry["status"], entry["error"], entry["tries"]) == ("failed", f"twilio error {code}", 0)
    assert len(local(svc, PHONE)) == 1  # not sent again


def test_whatsapp_receipts_come_to_the_same_callback(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    wa = "whatsapp:" + PHONE
    read, gone = queue_sent(svc, wa), queue_sent(svc, wa, "Again.")
    assert twilio_status(client, read, "read") == 204 and status(svc, read) == "delivered"  # read counts as delivered
    assert twilio_status(client, gone, "failed", "63003") == 204  # no WhatsApp at that number
    wait_for(lambda: svc.reach.unreachable(wa) == "63003", 10, "the WhatsApp address unreachable")
    assert svc.reach.unreachable(PHONE) == ""  # the same number by SMS is another address


@pytest.mark.parametrize("code", ["30007", "63016"])
def test_carrier_filtering_and_the_whatsapp_window_neither_retry_nor_mark(client, svc, celery_worker,
                                                                          app, code) -> None:  # type: ignore[no-untyped-def]
    from .helpers import worker_idle

    oid = queue_sent(svc)
    assert twilio_status(client, oid, "failed", code) == 204
    worker_idle(app)
    entry = svc.store.outbox_entry(oid)
    assert (entry["status"], entry["error"], entry["tries"]) == ("failed", f"twilio error {code}", 0)
    assert svc.reach.unreachable(PHONE) == "" and len(local(svc, PHONE)) == 1


def test_a_temporary_failure_is_sent_again_later_once_then_the_number_is_unreachable(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    from service.after import sweep

    app.config["RECEIPT_RETRY_DELAYS"] = "3600,7200"
    oid = queue_sent(svc)
    assert twilio_status(client, oid, "undelivered", "30003", sid="SMa") == 204
    wait_for(lambda: status(svc, oid) == "queued", 10, "queued again")
    assert twilio_status(client, oid, "undelivered", "30003", sid="SMa") == 204  # the same receipt twice
    assert twilio_status(client, oid, "sent", sid="SMa") == 204  # and a late one of that attempt
    assert (status(svc, oid), svc.store.outbox_entry(oid)["tries"]) == ("queued", 1)
    assert svc.store.stale_outbox(0) == []  # not before its back-off (an hour)
    assert oid in svc.store.stale_outbox(-3700)  # an hour later the sweep sends it
    sent: list[str] = []
    app.config["SWEEP_AFTER"] = -3700
    sweep(svc.config, svc.store, lambda _name, args: sent.extend(args))
    assert sent == [oid] and svc.inject(deliver)(oid) == "sent"
    assert [m["body"] for m in local(svc, PHONE)] == ["Your turn.", "Your turn."]
    assert twilio_status(client, oid, "delivered", sid="SMa") == 204  # the first attempt's: not this one
    assert status(svc, oid) == "sent"
    # the second attempt fails too, and the third: the retries are spent and the phone counts as unreachable
    assert twilio_status(client, oid, "undelivered", "30003", sid="SMb") == 204
    wait_for(lambda: status(svc, oid) == "queued", 10, "queued again")
    assert svc.store.retry_failed(oid, "SMb", 0, 2) == "moved"  # that attempt is queued again already
    assert svc.inject(deliver)(oid) == "sent" and svc.store.outbox_entry(oid)["tries"] == 2
    assert twilio_status(client, oid, "undelivered", "30003", sid="SMc") == 204
    wait_for(lambda: svc.reach.unreachable(PHONE) == "30003", 10, "unreachable after the retries")
    assert status(svc, oid) == "failed" and len(local(svc, PHONE)) == 3


def test_a_late_receipt_of_an_earlier_attempt_decides_nothing(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    from service.receipts import on_failure

    app.config["RECEIPT_RETRY_DELAYS"] = "0"
    oid = queue_sent(svc)
    assert twilio_status(client, oid, "undelivered", "30003", sid="SMa") == 204  # retried once (the only retry)
    wait_for(lambda: status(svc, oid) == "queued", 10, "queued again")
    assert svc.inject(deliver)(oid) == "sent"
    assert twilio_status(client, oid, "failed", "30007", sid="SMb") == 204  # the retry filtered by the carrier
    from .helpers import worker_idle

    worker_idle(app)
    # the first attempt's 30003 seen again, its retries spent: it does not mark the number (SMb decided: 30007)
    assert on_failure(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, oid, "SMa", "30003",
                      lambda ids: None) == "stale"
    assert twilio_status(client, oid, "undelivered", "30003", sid="SMa") == 204
    worker_idle(app)
    assert svc.reach.unreachable(PHONE) == "" and svc.store.outbox_entry(oid)["error"] == "twilio error 30007"


def test_mailgun_events_delivered_and_a_hard_bounce(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    delivered, bounced = queue_sent(svc, MAIL), queue_sent(svc, MAIL, "Again.")
    # the outbox id rides in the email as Mailgun's user variable, and comes back in its events
    assert build_email(svc.config, {**svc.store.outbox_entry(bounced), "message_id": "<x@y>"})[
        "X-Mailgun-Variables"] == '{"outbox": "%s"}' % bounced
    assert mailgun_event(client, {"event": "delivered", "user-variables": {"outbox": delivered}}).status_code == 200
    assert status(svc, delivered) == "delivered"
    temporary = {"event": "failed", "severity": "temporary", "reason": "generic", "user-variables": {"outbox": bounced}}
    assert mailgun_event(client, temporary).status_code == 200
    assert status(svc, bounced) == "sent" and svc.reach.unreachable(MAIL) == ""  # Mailgun retries it itself
    hard = {"event": "failed", "severity": "permanent", "reason": "bounce", "recipient": MAIL,
            "delivery-status": {"code": 550, "message": "No such mailbox"}, "user-variables": {"outbox": bounced}}
    assert mailgun_event(client, hard).status_code == 200
    wait_for(lambda: svc.reach.unreachable(MAIL) == "bounce", 10, "the address unreachable")
    entry = svc.store.outbox_entry(bounced)
    assert (entry["status"], entry["error"]) == ("failed", "mailgun failed bounce 550")
    token = uuid.uuid4().hex
    assert mailgun_event(client, hard, token=token).status_code == 200  # twice: nothing more
    assert mailgun_event(client, hard, token=token).status_code == 406  # the same post again: a replay
    assert mailgun_event(client, {"event": "delivered", "user-variables": {"outbox": bounced}}).status_code == 200
    assert status(svc, bounced) == "failed" and status(svc, delivered) == "delivered"
    assert mailgun_event(client, {"event": "delivered"}).get_json()["status"] == "ignored"  # not one of ours


def test_an_unreachable_player_does_not_lose_by_timeout(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    p = mover(svc, gid)
    waiting = other(svc, gid, p)
    prompt = [e for e in svc.store.outbox_entries(game_owner(gid)) if e["to"] == p][-1]
    try:
        service_clock.advance(svc.redis, 3600)
        for _ in range(2):  # the receipt twice (and a second message failing): the opponent is told once
            assert twilio_status(client, prompt["id"], "undelivered", "30005", sid="SMp") == 204
            wait_for(lambda: [m["kind"] for m in local(svc, waiting)].count("opponent_unreachable") == 1, 10,
                     "the opponent told")
        from .helpers import worker_idle

        worker_idle(app)
        told = [m for m in local(svc, waiting) if m["kind"] == "opponent_unreachable"]
        assert len(told) == 1  # in their language (two Norwegian numbers):
        assert told[0]["body"].startswith("Meldinger til +47..") and "høyst 7 dager" in told[0]["body"]
        assert svc.reach.unreachable(p) == "30005"
        service_clock.advance(svc.redis, 6 * 86400)  # inside the pause's bound (REACH_PAUSE_MAX_DAYS, 7)
        assert [m["kind"] for m in tick(svc)] == []  # no reminder, no "you may CLAIM"
        res = lifecycle_command(svc, waiting, "CLAIM")
        assert res.outcome != "over" and svc.store.meta(gid)["status"] == "active"
        assert local(svc, waiting)[-1]["body"] == "Partiet er på pause: ingen krav før pausen er over."
        lifecycle_command(svc, p, "GAMES")  # the player writes again: reachable, the clock runs on
        assert svc.reach.unreachable(p) == ""
        service_clock.advance(svc.redis, 6 * 86400)  # 7 days of the turn not yet run out (6 were paused)
        tick(svc)
        assert lifecycle_command(svc, waiting, "CLAIM").outcome != "over"
        service_clock.advance(svc.redis, 2 * 86400)
        assert "claim_possible" in [m["kind"] for m in tick(svc)]
        lifecycle_command(svc, waiting, "CLAIM")
        assert svc.store.meta(gid)["status"] == "over"
    finally:
        service_clock.reset(svc.redis)



def test_a_move_from_a_marked_number_makes_it_reachable_again(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    """A number receipts marked unreachable that writes a move in the game this process holds (the move's read
    takes the player's life hash with the game, not apart) is reachable again."""
    gid = start_game(svc)
    p = mover(svc, gid)
    game = load(svc, gid)
    move(svc, p, command_text(choose(game, game.movers[0])))  # the process now holds the game and its seats
    prompt = [e for e in svc.store.outbox_entries(game_owner(gid)) if e["to"] == p][-1]
    assert twilio_status(client, prompt["id"], "undelivered", "30005", sid="SMm") == 204
    wait_for(lambda: svc.reach.unreachable(p) == "30005", 10, "the number marked unreachable")
    game = load(svc, gid)
    seat = 0 if svc.store.meta(gid)["seat0"] == p else 1
    assert seat in game.movers
    move(svc, p, command_text(choose(game, seat)))
    assert svc.reach.unreachable(p) == ""


def test_a_linked_channel_takes_over_and_the_game_waits_only_when_none_is_left(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    from service.channels import destination
    from service.lifecycle.pauses import paused_until
    from tests.lifecycle.helpers import ALICE, BOB, DAVE

    gid = start_game(svc)
    while mover(svc, gid) != BOB:  # whoever the draw starts with, Bob is to move when his number fails
        game = load(svc, gid)
        move(svc, ALICE, command_text(choose(game, game.movers[0])))
    code = svc.links.new_code(BOB, DAVE, 0, 10**12)  # Bob linked his email (as LINK and the code sent back do)
    assert svc.links.take_code(DAVE, code, 1, 5).status == "ok" and svc.links.add_link(BOB, DAVE)
    prompt = [e for e in svc.store.outbox_entries(game_owner(gid)) if e["to"] == BOB][-1]
    assert twilio_status(client, prompt["id"], "undelivered", "30006", sid="SMl") == 204  # a landline
    wait_for(lambda: svc.reach.unreachable(BOB) == "30006", 10, "the number unreachable")
    assert destination(svc.config, svc.store, svc.links, svc.reach, BOB, "reminder",
                       "nb").address == DAVE  # his email takes over
    from .helpers import worker_idle

    worker_idle(app)
    # the turn he owes is prompted in his mailbox at once, not 12 h on
    [mailed] = wait_for(lambda: [m for m in local(svc, DAVE) if m["kind"] == "reminder"], 10, "the prompt mailed")
    assert mailed["channel"] == "email" and "K" in mailed["body"] and mailed["game"] == gid
    twilio_status(client, prompt["id"], "undelivered", "30006", sid="SMl")  # the receipt again: nothing new
    worker_idle(app)
    assert len([m for m in local(svc, DAVE) if m["kind"] == "reminder"]) == 1
    now = svc.store.clock.now_ms()
    assert paused_until(svc.store, gid,
                        now) is None and "opponent_unreachable" not in [m["kind"] for m in local(svc, ALICE)]
    mail = queue_sent(svc, DAVE)  # then his mailbox bounces too: nothing is left, the game waits
    hard = {"event": "failed", "severity": "permanent", "reason": "bounce", "user-variables": {"outbox": mail}}
    assert mailgun_event(client, hard).status_code == 200
    wait_for(lambda: "opponent_unreachable" in [m["kind"] for m in local(svc, ALICE)], 10, "Alice told")
    assert paused_until(svc.store, gid, svc.store.clock.now_ms()) is not None
    assert destination(svc.config, svc.store, svc.links, svc.reach, BOB, "reminder",
                       "nb").address == BOB  # none left: the home, as before
    lifecycle_command(svc, DAVE, "GAMES")  # he writes from his mailbox: the game goes on
    assert svc.reach.unreachable(DAVE) == "" and svc.reach.unreachable(BOB) == "30006"
    assert paused_until(svc.store, gid, svc.store.clock.now_ms()) is None
    assert destination(svc.config, svc.store, svc.links, svc.reach, BOB, "reminder", "nb").address == DAVE

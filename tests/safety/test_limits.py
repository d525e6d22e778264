"""Abuse limits (issue 15, service.limits): floods, invitations per day and pending, the countries an
SMS invitation may go to, and the daily SMS cap. Each is a setting, and each refusal says why."""

from __future__ import annotations

import logging

import pytest

from service import limits
from service.delivery import deliver
from tests.lifecycle.helpers import lifecycle_command, local, move, start_game
from tests.service.helpers import post_email, post_sms

A, B = "+4791234567", "+4798765432"  # Norway: the limits are told in Norwegian


def test_a_flood_of_texts_is_cut_and_the_sender_told_once(client, svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 3
    answers = []
    for i in range(6):
        resp, mid = post_sms(client, A, f"HELP {i}")
        assert resp.status_code == 200
        answers.append((resp.get_data(as_text=True), svc.store.inbound(A, mid)))
    assert all(rec is not None for _a, rec in answers[:3])  # taken
    assert all(rec is None for _a, rec in answers[3:])  # dropped
    assert [("høyst 3 i minuttet" in a) for a, _r in answers] == [False, False, False, True, False, False]


def test_a_flood_of_emails_is_refused_with_the_reason(client, svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 2
    codes = [post_email(client, "dana@mail.example.org", "play@spades.example.test", "HELP")[0] for _ in range(3)]
    assert [r.status_code for r in codes] == [200, 200, 406]
    assert "too many messages" in codes[2].get_json()["reason"]


def test_invitations_per_day(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(LIMIT_INVITES_PER_DAY=2, LIMIT_PENDING_INVITES=0)
    outcomes = [lifecycle_command(svc, A, f"NEW +4791000{i:03d}").outcome for i in range(3)]
    assert outcomes == ["invited", "invited", "limit_invites_day"]
    assert "2 invitasjoner i dag" in local(svc, A)[-1]["body"]
    assert not local(svc, "+4791000002")  # the third number is never texted


def test_pending_invitations(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(LIMIT_PENDING_INVITES=2)
    assert lifecycle_command(svc, A, f"NEW {B}").outcome == "invited"
    assert lifecycle_command(svc, A, "NEW +4791000001").outcome == "invited"
    assert lifecycle_command(svc, A, "NEW +4791000002").outcome == "limit_invites_pending"
    assert "venter fortsatt på svar" in local(svc, A)[-1]["body"]
    assert lifecycle_command(svc, B, "YES").outcome == "started"  # one answered: room for another
    assert lifecycle_command(svc, A, "NEW +4791000003").outcome == "invited"


@pytest.mark.parametrize("number, allowed", [
    ("+33612345678", True),     # France: a seed country
    ("+4791234560", True),      # Norway
    ("+12025550143", True),     # the US: the operator's own (DEFAULT_REGION)
    ("+447400123456", False),   # the UK: not in the list
    ("+18762101234", False),    # Jamaica, behind +1
    ("+19002001234", False),    # a US premium-rate number
    ("+882351234567", False),   # an international network
])
def test_sms_invitations_only_to_the_allowed_countries(svc, number: str, allowed: bool) -> None:  # type: ignore[no-untyped-def]
    out = lifecycle_command(svc, A, f"NEW {number}")
    assert out.outcome == ("invited" if allowed else "limit_country")
    if not allowed:
        assert "kan ikke sendes på SMS" in local(svc, A)[-1]["body"] and not local(svc, number)


def test_the_country_list_is_a_setting(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["SMS_INVITE_COUNTRIES"] = "GB"
    assert lifecycle_command(svc, A, "NEW +447400123456").outcome == "invited"
    assert lifecycle_command(svc, A, "NEW +33612345678").outcome == "limit_country"
    svc.config["SMS_INVITE_COUNTRIES"] = "*"
    assert lifecycle_command(svc, A, "NEW +18762101234").outcome == "invited"
    assert lifecycle_command(svc, A, "NEW +19002001234").outcome == "limit_country"  # premium rate: never


def test_past_the_daily_sms_cap_only_players_in_a_game_get_texts(svc, caplog) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, A, B)
    svc.config["SMS_DAILY_CAP"] = 10
    svc.redis.set(limits.limit_keys("", 0, limits.day())["sms_day"], 10)  # the day's cap just reached
    with caplog.at_level(logging.WARNING, logger="service.limits"):
        out = lifecycle_command(svc, A, "NEW +4791000009")  # an invitation: 2 SMS, over the cap
    assert out.outcome == "invited"
    statuses = {e["to"]: (e["status"], e["error"]) for e in svc.store.outbox_entries(f"g:{out.game_id}")}
    assert statuses["+4791000009"] == ("failed", limits.CAPPED_ERROR)  # the stranger: held back
    assert statuses[A][0] == "sent"  # the inviter plays already: told
    assert sum("SMS daily cap reached" in r.getMessage() for r in caplog.records) == 1
    assert "CAP REACHED" in limits.status_line(svc)
    res = move(svc, A, "DRAW")  # a move in the game still goes out
    for e in svc.store.outbox_entries(f"g:{gid}")[-len(res.outbox_ids):]:
        assert e["status"] == "sent"
    assert sum("SMS daily cap reached" in r.getMessage() for r in caplog.records) == 1  # told once


def test_the_cap_also_holds_what_the_worker_sends_one_by_one(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["SMS_DAILY_CAP"] = 1
    svc.redis.set(limits.limit_keys("", 0, limits.day())["sms_day"], 5)
    [oid] = svc.store.append("p:+4791000123", -1, message_id="m", outbox=[
        {"channel": "sms", "to": "+4791000123", "body": "hello", "kind": "help"}]).outbox_ids
    assert deliver(svc, oid) == "failed"
    assert svc.store.outbox_entry(oid)["error"] == limits.CAPPED_ERROR


def test_limits_status_on_the_command_line(svc) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from service.cli import main

    out = CliRunner().invoke(main, ["limits", "status", "--redis-url", svc.config["REDIS_URL"]])
    assert out.exit_code == 0 and out.output.startswith("SMS today: ")
    assert "SLOWSPADES_LIMIT_INVITES_PER_DAY=10" in out.output

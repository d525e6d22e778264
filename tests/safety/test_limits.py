"""Abuse limits (issue 15, service.limits): floods, invitations per day and pending, the countries an
SMS invitation may go to, and the daily SMS cap. Each is a setting, and each refusal says why."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest
import time_machine

from service import daily_cap, limits
from service.delivery import deliver
from tests.lifecycle.helpers import lifecycle_command, local, move, start_game, tick
from tests.service.helpers import post_email, post_sms

A, B = "+4791234567", "+4798765432"  # Norway: each is told in Norwegian


def test_a_flood_of_texts_is_cut_and_the_sender_told_once(client, svc, one_minute) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 3
    answers = []
    for i in range(6):
        resp, mid = post_sms(client, A, f"HELP {i}")
        assert resp.status_code == 200
        answers.append((resp.get_data(as_text=True), svc.store.inbound(A, mid)))
    assert all(rec is not None for _a, rec in answers[:3])  # taken
    assert answers[3][1] is not None and answers[3][1].get("flood") == "3"  # taken to be answered with the notice
    assert all(rec is None for _a, rec in answers[4:])  # dropped
    assert not any("høyst 3 i minuttet" in a for a, _r in answers)  # told by the player's channel, not in TwiML
    # (tests/safety/test_flood_notice.py: the notice itself, issue 23 case 14)


def test_a_flood_of_emails_is_refused_with_the_reason(client, svc, one_minute) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 2
    codes = [post_email(client, "dana@mail.example.org", "play@spades.example.test", "HELP")[0] for _ in range(4)]
    assert [r.status_code for r in codes] == [200, 200, 200, 406]  # the first one over: taken to be answered
    assert "too many messages" in codes[3].get_json()["reason"]


def test_invitations_per_day(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(LIMIT_INVITES_PER_DAY=2, LIMIT_PENDING_INVITES=0)
    outcomes = [lifecycle_command(svc, A, f"NEW +4791000{i:03d}").outcome for i in range(3)]
    assert outcomes == ["invited", "invited", "limit_invites_day"]
    assert "grense for invitasjoner (2)" in local(svc, A)[-1]["body"]
    assert not local(svc, "+4791000002")  # the third number is never texted


def test_pending_invitations(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(LIMIT_PENDING_INVITES=2)
    assert lifecycle_command(svc, A, f"NEW {B}").outcome == "invited"
    assert lifecycle_command(svc, A, "NEW +4791000001").outcome == "invited"
    assert lifecycle_command(svc, A, "NEW +4791000002").outcome == "limit_invites_pending"
    assert "venter på svar: 2" in local(svc, A)[-1]["body"]
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
    svc.store.count_sms(limits.day(), 10)  # the day's cap just reached
    with caplog.at_level(logging.WARNING, logger="service.daily_cap"):
        out = lifecycle_command(svc, A, "NEW +4791000009")  # an invitation, over the cap
    assert out.outcome == "invite_held"  # it waits for the next day (issue 22)
    statuses = {e["to"]: (e["status"], e["error"]) for e in svc.store.outbox_entries(f"g:{out.game_id}")}
    assert "+4791000009" not in statuses  # the stranger: nothing yet
    assert statuses[A][0] == "sent"  # the inviter plays already: told
    assert sum("SMS daily cap reached" in r.getMessage() for r in caplog.records) == 1
    assert "CAP REACHED" in daily_cap.status_line(svc.config, svc.store)
    res = move(svc, A, "DRAW")  # a move in the game still goes out
    for e in svc.store.outbox_entries(f"g:{gid}")[-len(res.outbox_ids):]:
        assert e["status"] == "sent"
    assert sum("SMS daily cap reached" in r.getMessage() for r in caplog.records) == 1  # told once


def test_the_cap_also_holds_what_the_worker_sends_one_by_one(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["SMS_DAILY_CAP"] = 1
    svc.store.count_sms(limits.day(), 5)
    [oid] = svc.store.append("p:+4791000123", -1, message_id="m", outbox=[
        {"channel": "sms", "to": "+4791000123", "body": "hello", "kind": "help"}]).outbox_ids
    assert svc.inject(deliver)(oid) == "failed"
    assert svc.store.outbox_entry(oid)["error"] == daily_cap.CAPPED_ERROR


def test_limits_status_on_the_command_line(svc) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from service.cli import main

    out = CliRunner().invoke(main, ["limits", "status", "--redis-url", svc.config["REDIS_URL"]])
    assert out.exit_code == 0 and out.output.startswith("SMS today: ")
    assert "SLOWSPADES_LIMIT_INVITES_PER_DAY=10" in out.output


# -- issue 22 case 3: limits on what an attacker cannot multiply -------------------------------------------------
def test_thirty_plus_addresses_are_one_mailbox_for_the_flood_limit(client, svc, one_minute) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 5
    codes = [post_email(client, f"j.oe+{i}@gmail.com" if i % 2 else f"joe+{i}@gmail.com", "play@spades.example.test",
                        "HELP")[0].status_code for i in range(30)]
    assert codes.count(200) == 6 and codes.count(406) == 24  # five, and the first one over (answered: the notice)


def test_mailboxes_as_limits_count_them() -> None:
    assert limits.mailbox("J.O.E+spades@GMail.com") == "joe@gmail.com"
    assert limits.mailbox("joe+1@googlemail.com") == "joe@gmail.com"
    assert limits.mailbox("j.oe+x@example.org") == "j.oe@example.org"  # dots only where the provider ignores them
    assert limits.mailbox("+4791234567") == "+4791234567"


def test_invitations_of_twelve_mailboxes_of_one_domain_are_held(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_PENDING_INVITES"] = 0
    outcomes = [lifecycle_command(svc, f"user{i}@evil.example", f"NEW +479100{i:02d}{j}0").outcome
                for i in range(12) for j in range(2)]
    per_domain = limits.SETTINGS["LIMIT_DOMAIN_INVITES_PER_DAY"][0]
    assert outcomes.count("invited") == per_domain and outcomes[per_domain:] == ["limit_domain"] * (24 - per_domain)
    assert "evil.example" in local(svc, "user11@evil.example")[-1]["body"]


def test_invitations_of_plus_addresses_count_as_one_mailbox(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(LIMIT_PENDING_INVITES=0, LIMIT_INVITES_PER_DAY=4)
    outcomes = [lifecycle_command(svc, f"joe+{i}@gmail.com", f"NEW +4791001{i:02d}{j}").outcome
                for i in range(6) for j in range(2)]
    assert outcomes == ["invited"] * 4 + ["limit_invites_day"] * 8


def test_invitations_to_numbers_never_seen_have_a_global_rate(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(LIMIT_NEW_NUMBERS_PER_HOUR=3)
    start_game(svc, A, B)  # B has played: not a new number
    outcomes = [lifecycle_command(svc, f"+47910020{i:02d}", f"NEW +47910030{i:02d}").outcome for i in range(5)]
    assert outcomes == ["invited"] * 2 + ["limit_new_numbers"] * 3  # B's invitation was the hour's first
    assert "+4791003002" not in [m["to"] for m in local(svc)]
    assert lifecycle_command(svc, "+4791002099", f"NEW {B}").outcome == "invited"  # a number seen: not counted


@pytest.mark.parametrize("number", ["+882351234567", "+449090123456", "+18762101234"])
def test_a_far_or_premium_number_gets_no_sms_for_help_or_new_bot(svc, number: str) -> None:  # type: ignore[no-untyped-def]
    for text in ("HELP", "NEW BOT", "HELP", "RULES"):
        lifecycle_command(svc, number, text)
    assert local(svc, number) == []
    assert lifecycle_command(svc, A, "HELP") and local(svc, A)  # an allowed country is answered


def test_the_cap_holds_after_new_bot(svc) -> None:  # type: ignore[no-untyped-def]
    stranger = "+4791009999"
    svc.config["SMS_DAILY_CAP"] = 10
    svc.store.count_sms(limits.day(), 10)
    lifecycle_command(svc, stranger, "NEW BOT")
    for _ in range(10):
        lifecycle_command(svc, stranger, "HELP")
    assert local(svc, stranger) == []


def test_the_cap_keeps_a_share_for_games_between_people(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, A, B)
    svc.config.update(SMS_DAILY_CAP=100, SMS_CAP_RESERVE=20)
    svc.store.count_sms(limits.day(), 81)  # past the 80 % others may use
    lifecycle_command(svc, "+4791008888", "HELP")
    assert local(svc, "+4791008888") == []  # a stranger: held
    before = len(local(svc))
    move(svc, A, "DRAW")
    assert len(local(svc)) > before and {m["to"] for m in local(svc)[before:]} <= {A, B}  # the game goes on
    assert gid


def test_an_invitation_the_cap_holds_is_told_held_and_goes_the_next_day(svc) -> None:  # type: ignore[no-untyped-def]
    invitee = "+4791007777"
    with time_machine.travel(datetime(2030, 1, 7, 15, 0, tzinfo=timezone.utc), tick=False) as clock:
        start_game(svc, A, B)
        svc.config["SMS_DAILY_CAP"] = 10
        svc.store.count_sms(limits.day(), 10)
        out = lifecycle_command(svc, A, f"NEW {invitee}")
        assert out.outcome == "invite_held"
        told = local(svc, A)[-1]["body"]
        assert "00:00 UTC" in told and "sent to" not in told.lower() and "venter" in told  # Norwegian: "waits"
        assert local(svc, invitee) == []
        tick(svc)
        assert local(svc, invitee) == []  # still today
        clock.shift(timedelta(hours=9, minutes=1))  # the next day (UTC)
        tick(svc)
        assert [m["kind"] for m in local(svc, invitee)] == ["invite"]
        assert lifecycle_command(svc, invitee, "JA").outcome == "started"


def test_an_invalid_number_of_an_allowed_country_is_refused_with_a_clear_reply(svc) -> None:  # type: ignore[no-untyped-def]
    lifecycle_command(svc, A, "LANG EN")
    out = lifecycle_command(svc, A, "NEW +62 809 1234 5678")
    assert out.outcome == "invite_refused"
    assert "not a valid phone number" in local(svc, A)[-1]["body"]
    assert not svc.players.games("+6280912345678")


def test_a_player_of_the_computer_only_is_looked_up_once_then_known_at_their_first_game_between_people(svc) -> None:  # type: ignore[no-untyped-def]
    """Whether a number has played a game between people is read from its record: looked up in its games once
    (then marked), not at every message to it, and a game between people marks it at once."""
    solo, friend = "+4790001111", "+4790002222"
    lifecycle_command(svc, solo, "NEW BOT")
    assert svc.store.in_people_games([solo]) == [False]
    assert svc.players.get(solo)["people"] == "0"  # looked up once: the next message reads the mark
    start_game(svc, solo, friend)
    assert svc.store.in_people_games([solo, friend]) == [True, True]
    assert svc.players.get("+4790003333") is None and svc.store.in_people_games(["+4790003333"]) == [False]
    assert svc.players.get("+4790003333") is None  # a stranger gets no record from the look-up

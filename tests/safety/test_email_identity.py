"""Email identity (issue 15): an email sender is only ever an email address, Mailgun's SPF/DKIM
verdict must vouch for it, and a game move by email must come to the player's own reply address."""

from __future__ import annotations

import json

import pytest

from service import email_identity
from service.addresses import reply_address
from service.conversation_port import command_text
from service.delivery import deliver
from service.inbound import handle_inbound
from service.lifecycle.invitations import create_game
from service.store import keys
from tests.service.chooser import choose
from tests.service.helpers import (
    local_messages,
    post_email,
    wait_handled,
    wait_outbox_settled,
)
from tests.service.test_sms_game import load_game

SMS_A, SMS_B, THIRD = "+15557770003", "+15557770002", "+15557770004"
DANA, EVE = "dana@mail.example.org", "eve@attacker.example.net"
DOMAIN = "spades.example.test"


def sms_game(svc, gid: str = "g-id-sms") -> str:  # type: ignore[no-untyped-def]
    res = create_game(svc, gid, SMS_A, SMS_B, "setup:" + gid, start_now=True)
    for oid in res.outbox_ids:
        deliver(svc, oid)
    return gid


def email_game(svc, gid: str = "g-id-mail") -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A game between an SMS player and DANA by email; returns (game id, DANA's reply address)."""
    res = create_game(svc, gid, SMS_A, DANA, "setup:" + gid, start_now=True)
    for oid in res.outbox_ids:
        deliver(svc, oid)
    seat = 1
    return gid, reply_address(svc.store.meta(gid)[f"tok{seat}"], DOMAIN)


def to_move_email(svc, gid):  # type: ignore[no-untyped-def]
    """Play SMS moves (directly) until DANA (seat 1) is to move; returns the game then."""
    for i in range(10):
        game = load_game(svc, gid)
        if game.movers[0] == 1:
            return game
        mid = f"sms:SMx{i}{gid}"
        svc.store.record_inbound(SMS_A, mid, {"channel": "sms", "from": SMS_A, "body": command_text(choose(game, 0))}, 600)
        handle_inbound(svc, mid, SMS_A)
    raise AssertionError("DANA never to move")


@pytest.mark.parametrize("body", ["move", f"NEW {THIRD}", "STOP"])
def test_an_email_from_a_phone_number_is_never_that_sms_player(client, svc, celery_worker, body) -> None:  # type: ignore[no-untyped-def]
    gid = sms_game(svc)
    game = load_game(svc, gid)
    mover = (SMS_A, SMS_B)[game.movers[0]]
    text = command_text(choose(game, game.movers[0])) if body == "move" else body
    resp, _mid = post_email(client, mover, "play@" + DOMAIN, text, from_=mover)
    assert resp.status_code == 406 and "email address" in resp.get_json()["reason"]
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == game.version  # no move
    assert not svc.players.games(THIRD) and not local_messages(svc, THIRD)  # no invitation to a third number
    assert svc.redis.hget(keys.player_life(mover), "stopped") is None  # not opted out


def test_an_email_without_a_passing_verdict_is_refused_and_says_why(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid, reply_to = email_game(svc)
    game = to_move_email(svc, gid)
    move = command_text(choose(game, 1))
    for spf in ("", "Fail", "SoftFail", "Neutral"):  # a spoofed From of the player to move, to their reply address
        resp, _ = post_email(client, DANA, reply_to, move, spf=spf)
        assert resp.status_code == 406
        assert "not verified" in resp.get_json()["reason"] and "SPF" in resp.get_json()["reason"]
    resp, _ = post_email(client, DANA, "play@" + DOMAIN, f"NEW {THIRD}", spf="")  # a bare play@, no verdict
    assert resp.status_code == 406
    wait_outbox_settled(svc)
    assert load_game(svc, gid).version == game.version
    assert not local_messages(svc, THIRD) and not svc.players.games(THIRD)


def test_spf_of_another_domain_does_not_vouch_for_the_from(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    """The attacker's own domain passes SPF (and DKIM, signed d=attacker...) while From names the player."""
    gid, reply_to = email_game(svc)
    game = to_move_email(svc, gid)
    resp, _ = post_email(client, EVE, reply_to, command_text(choose(game, 1)), from_=f"Dana <{DANA}>", spf="Pass",
                         dkim="Pass", extra_headers=[["DKIM-Signature", "v=1; a=rsa-sha256; d=attacker.example.net; s=k"]])
    assert resp.status_code == 406 and "other than the From" in resp.get_json()["reason"]
    assert load_game(svc, gid).version == game.version


def test_an_aligned_dkim_pass_is_enough(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid, reply_to = email_game(svc)
    game = to_move_email(svc, gid)
    resp, mid = post_email(client, "bounces@relay.example.com", reply_to, command_text(choose(game, 1)),
                           from_=DANA, spf="Fail", dkim="Pass",
                           extra_headers=[["DKIM-Signature", "v=1; a=rsa-sha256; d=example.org; s=k; bh=x"]])
    assert resp.status_code == 200
    wait_handled(svc, mid)
    assert load_game(svc, gid).version > game.version


def test_a_move_by_email_only_counts_at_the_player_s_own_reply_address(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid, reply_to = email_game(svc)
    game = to_move_email(svc, gid)
    move = command_text(choose(game, 1))
    resp, mid = post_email(client, DANA, "play@" + DOMAIN, move)  # verified, but the bare address
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert load_game(svc, gid).version == game.version
    assert "reply to your game" in local_messages(svc, DANA)[-1]["body"].lower()
    other = reply_address(svc.store.meta(gid)["tok0"] if "tok0" in svc.store.meta(gid) else "0" * 32, DOMAIN)
    resp, _ = post_email(client, DANA, other, move)  # an address not issued to DANA
    assert resp.status_code == 406
    resp, mid = post_email(client, DANA, reply_to, move)  # her own: applied
    assert resp.status_code == 200
    wait_handled(svc, mid)
    assert load_game(svc, gid).version > game.version


@pytest.mark.parametrize("stamp", ["nan", "NaN", "inf", "-inf", "1e400"])
def test_a_timestamp_that_is_not_a_finite_number_is_refused(client, svc, stamp) -> None:  # type: ignore[no-untyped-def]
    resp, _ = post_email(client, DANA, "play@" + DOMAIN, "HELP", timestamp=stamp)
    assert resp.status_code == 406 and resp.get_json()["reason"] == "bad timestamp"


def test_verdicts_read_from_the_form_fields_or_the_message_headers() -> None:
    form = {"sender": DANA, "X-Mailgun-Spf": "Pass"}
    assert email_identity.verdict(form, DANA).verified
    form = {"sender": DANA, "message-headers": json.dumps([["X-Mailgun-Spf", "fail"]])}
    assert not email_identity.verdict(form, DANA).verified
    assert email_identity.aligned("example.org", "mail.example.org")
    assert not email_identity.aligned("org", "mail.example.org")
    assert not email_identity.aligned("ample.org", "mail.example.org")
    with pytest.raises(email_identity.NotAnEmailSender):
        email_identity.sender_of({"from": "+15557770003", "sender": DANA})

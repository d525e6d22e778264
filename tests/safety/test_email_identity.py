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
    res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid, SMS_A,
                      SMS_B, "setup:" + gid, start_now=True)
    for oid in res.outbox_ids:
        svc.inject(deliver)(oid)
    return gid


def email_game(svc, gid: str = "g-id-mail") -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A game between an SMS player and DANA by email; returns (game id, DANA's reply address)."""
    res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid, SMS_A,
                      DANA, "setup:" + gid, start_now=True)
    for oid in res.outbox_ids:
        svc.inject(deliver)(oid)
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
        svc.inject(handle_inbound)(mid, SMS_A)
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


# -- issue 22 case 2: identity judged on the signature that passed; what changes a game needs the reply address --
TWO_SIGNATURES = [["DKIM-Signature", "v=1; a=rsa-sha256; d=attacker.example.net; s=k; bh=x"],
                  ["DKIM-Signature", "v=1; a=rsa-sha256; d=example.org; s=junk; bh=y"]]


@pytest.mark.parametrize("to", ["bare", "reply"])
def test_a_forged_from_with_two_dkim_signatures_is_refused(client, svc, celery_worker, to) -> None:  # type: ignore[no-untyped-def]
    """Mailgun's Pass is for one signature (the attacker's d=attacker...); a junk d=example.org beside it
    must not make the From example.org's."""
    gid, reply_to = email_game(svc)
    game = to_move_email(svc, gid)
    body = f"NEW {THIRD}" if to == "bare" else command_text(choose(game, 1))
    resp, _ = post_email(client, EVE, "play@" + DOMAIN if to == "bare" else reply_to, body, from_=f"Dana <{DANA}>",
                         spf="Pass", dkim="Pass", extra_headers=TWO_SIGNATURES)
    assert resp.status_code == 406 and "not verified" in resp.get_json()["reason"]
    assert "several" in resp.get_json()["reason"]
    wait_outbox_settled(svc)
    assert load_game(svc, gid).version == game.version
    assert not local_messages(svc, THIRD) and not svc.players.games(THIRD)


def test_the_verdict_s_own_signing_domain_is_the_one_that_counts() -> None:
    """Mailgun's Authentication-Results names the domain whose signature passed (header.d)."""
    base = {"sender": EVE, "X-Mailgun-Dkim-Check-Result": "Pass"}
    one = dict(base, **{"message-headers": json.dumps([["DKIM-Signature", "v=1; d=example.org; s=k"]])})
    assert email_identity.verdict(one, DANA).verified
    mixed = dict(base, **{"message-headers": json.dumps(TWO_SIGNATURES)})
    assert not email_identity.verdict(mixed, DANA).verified
    passed_for = [["Authentication-Results", "mx.mailgun.org; dkim=pass header.d=attacker.example.net; spf=pass"],
                  ["DKIM-Signature", "v=1; d=example.org; s=k"]]
    assert not email_identity.verdict(dict(base, **{"message-headers": json.dumps(passed_for)}), DANA).verified


def _resign_pending(svc) -> bool:  # type: ignore[no-untyped-def]
    return svc.redis.hget(keys.player_life(DANA), "resign") is not None


def test_resign_from_the_bare_address_does_nothing_and_says_why(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid, reply_to = email_game(svc)
    for body in ("RESIGN", "YES"):  # verified, but to the bare play@
        resp, mid = post_email(client, DANA, "play@" + DOMAIN, body)
        assert resp.status_code == 200
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        assert "reply to one of our emails" in local_messages(svc, DANA)[-1]["body"].lower()
    assert svc.store.meta(gid)["status"] == "active" and not _resign_pending(svc)
    resp, mid = post_email(client, DANA, reply_to, "RESIGN")  # her own reply address: asked to confirm
    wait_handled(svc, mid)
    assert _resign_pending(svc)


@pytest.mark.parametrize("body", ["PAUSE", "CLAIM", "AUTO OFF", "AUTOPLAY OFF", "NAME Dana", "LANG FR", "STOP",
                                  "NO", "REMIND OFF"])
def test_what_changes_a_game_or_a_player_is_refused_from_the_bare_address(client, svc, celery_worker, body) -> None:  # type: ignore[no-untyped-def]
    gid, _reply_to = email_game(svc)

    def state():  # type: ignore[no-untyped-def]
        record = {k: v for k, v in svc.players.get(DANA).items() if k not in ("rtok", "outseq")}  # the reply's own
        return svc.store.meta(gid), record, svc.store.player_life(DANA)

    before = state()
    resp, mid = post_email(client, DANA, "play@" + DOMAIN, body)
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert "reply to one of our emails" in local_messages(svc, DANA)[-1]["body"].lower()
    assert state() == before


def test_a_player_without_a_game_names_themself_by_replying_to_our_email(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_email(client, DANA, "play@" + DOMAIN, "HELP")  # what starts nothing: from the bare address
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    [entry] = [e for e in local_messages(svc, DANA)]
    own = entry["reply_to"]
    assert own.startswith("play+") and own != "play@" + DOMAIN
    resp, mid = post_email(client, DANA, own, "NAME Dana")
    wait_handled(svc, mid)
    assert svc.players.get(DANA)["name"] == "Dana"
    resp, _ = post_email(client, EVE, own, "NAME Eve")  # another sender at her address: refused at the door
    assert resp.status_code == 406

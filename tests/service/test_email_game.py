"""A game between an SMS player and an email player, through both webhooks, mail over real SMTP."""

from __future__ import annotations

import pytest

from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from tests.backends import BOTH

from .chooser import choose
from .helpers import local_messages, post_email, post_sms, wait_handled, wait_outbox_settled
from .test_sms_game import ALICE, load_game

DANA = "dana@example.org"
pytestmark = BOTH


def mails_to(smtp_server, who):  # type: ignore[no-untyped-def]
    return [m for _f, rcpts, m in smtp_server.messages if who in rcpts]


@pytest.mark.slow
def test_sms_player_against_email_player(client, svc, smtp_server, celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, ALICE, f"NEW {DANA} TO 150")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    [invite] = mails_to(smtp_server, DANA)
    reply_to = invite["Reply-To"]
    assert reply_to.startswith("play+") and reply_to.endswith("@spades.example.test")
    assert "invites you" in invite.get_body(("plain",)).get_content()

    # someone else using Dana's reply address changes nothing
    resp, _ = post_email(client, "eve@example.org", reply_to, "YES")
    assert resp.status_code == 406 and svc.store.meta(gid)["status"] == "invited"

    resp, mid = post_email(client, DANA, reply_to, "YES\n\nOn Mon, Slow Spades wrote:\n> invites you")
    assert resp.status_code == 200
    wait_handled(svc, mid)
    assert svc.store.meta(gid)["status"] == "active"

    moves = 0
    while True:
        game = load_game(svc, gid)
        if game.phase == "over":
            break
        seat = game.movers[0]
        text = command_text(choose(game, seat))
        if seat == 0:
            resp, mid = post_sms(client, ALICE, text)
        else:
            resp, mid = post_email(client, DANA, reply_to, text + "\n\n-- \nDana's phone")
        assert resp.status_code == 200
        wait_handled(svc, mid)
        assert svc.store.version(gid) > game.version
        moves += 1
        assert moves < 3000
    wait_outbox_settled(svc)
    game = load_game(svc, gid)
    assert max(game.scores) >= 150
    mails = mails_to(smtp_server, DANA)
    root = mails[0]["Message-ID"]
    assert all(m["In-Reply-To"] == root and m["References"] == root for m in mails[1:])
    assert len({m["Message-ID"] for m in mails}) == len(mails)
    last = mails[-1]
    assert last.get_body(("plain",)).get_content().startswith("Game over:")
    assert last["Subject"] and "<html" in last.get_body(("html",)).get_content().lower()
    assert any("<table" in m.get_body(("html",)).get_content() for m in mails)  # the hand summaries' tables
    last_sms = local_messages(svc, ALICE)[-1]["body"]  # the last hand's score with it (issue 23 case 1)
    assert "Game over:" in last_sms and f"Hand {len(game.history)}: you " in last_sms, last_sms

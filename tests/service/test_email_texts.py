"""What an email player with two games reads (issue 45 case 11), through the real webhooks (Twilio's signature,
Mailgun's route), a real Celery worker and the local outbox: the game's label is followed by a space ("#2 Your
page...", a subject "#2 Reminder: ..."), a reminder's footer comes once, at the bottom, and the invitation says
what the game is and links the rules."""

from __future__ import annotations

from typing import Any

from service import after
from service.conversation_port import command_text
from service.games.players import number_of
from service.store import clock

from .chooser import choose
from .test_email_replies import DANA
from .test_linked_channels import ALICE, BOB, game, mail, send


def invited(client: Any, svc: Any, inviter: str) -> dict[str, Any]:
    """``inviter`` invites Dana: the invitation she got."""
    out = send(client, svc, inviter, f"NEW {DANA}")
    [invitation] = [m for m in out if m["to"] == DANA]
    return invitation


def test_an_email_player_with_two_games_reads_labels_with_a_space_and_one_footer(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    invitation = invited(client, svc, ALICE)
    body = invitation["body"]
    assert "Spades" in body and "/rules" in body, body  # what the game is, and where its rules are
    mail(client, svc, DANA, invitation["reply_to"], "YES")
    mail(client, svc, DANA, invited(client, svc, BOB)["reply_to"], "YES")
    assert len(svc.players.games(DANA)) == 2
    status, out = mail(client, svc, DANA, invitation["reply_to"], "WEB")
    [web] = [m for m in out if m["to"] == DANA]
    assert web["body"].startswith("#") and web["body"][2] == " ", web["body"]  # "#1 Your page of the game..."
    for gid in svc.players.games(DANA):  # her opponents move until she owes a move in both games
        meta = svc.store.meta(gid)
        seat = int(meta["seat0"] != DANA)
        for _ in range(10):
            g = game(svc, gid)
            if g.may_move(seat):
                break
            send(client, svc, meta[f"seat{1 - seat}"], f"#{number_of(svc.store, meta[f'seat{1 - seat}'], gid)} "
                 + command_text(choose(g, 1 - seat)))
    clock.advance(svc.redis, 13 * 3600)  # past the first reminder of a turn she owes
    after.tick(svc.config, svc.store, svc.steps,
               after.Outlets(lambda ids: after.deliver_local_many(svc.config, svc.store, ids), lambda turn: None))
    reminders = [m for _i, m in svc.store.read_local(count=10_000) if m["to"] == DANA and m.get("kind") == "reminder"]
    assert reminders, "no reminder"
    for m in reminders:
        assert m["subject"][0] != "#" or m["subject"][2] == " ", m["subject"]  # "#2 Reminder: ..."
        assert m["body"].count("slowspades: reply to this email") == 1, m["body"]  # the footer once
        assert m["body"].rstrip().endswith("HELP lists the commands."), m["body"]

"""Every email that asks a player for a move carries a Reply-To that is taken as a move (issue 45 case 2), through
the real webhooks (Twilio's signature, Mailgun's route, a real Celery worker, the local outbox): the answer to
``HAND``, the answer to a move sent to the wrong address, and the waiting turn that ``VIA EMAIL`` re-sends to a
linked mailbox."""

from __future__ import annotations

from typing import Any

from service.conversation_port import command_text

from .chooser import choose
from .test_linked_channels import ALICE, BOB, MAIL, code_in, game, mail, send

DANA = "dana@example.org"


def dana_to_move(client: Any, svc: Any, gid: str) -> tuple[Any, int]:
    """Alice moves by SMS until only Dana (by email) may: the game and Dana's seat."""
    seat = int(svc.store.meta(gid)["seat0"] != DANA)
    for _ in range(40):
        g = game(svc, gid)
        if g.may_move(seat) and not g.may_move(1 - seat):
            return g, seat
        send(client, svc, ALICE, command_text(choose(g, 1 - seat)))
    raise AssertionError("Dana never had to move")


def test_an_email_players_answer_to_hand_takes_a_move_by_reply(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    out = send(client, svc, ALICE, f"NEW {DANA}")
    invite = next(m for m in out if m["to"] == DANA)
    status, _ = mail(client, svc, DANA, invite["reply_to"], "YES")
    gid = svc.players.games(ALICE)[0]
    assert status == 200 and svc.store.meta(gid)["status"] == "active"
    g, seat = dana_to_move(client, svc, gid)
    status, out = mail(client, svc, DANA, invite["reply_to"], "HAND")
    [hand] = [m for m in out if m["to"] == DANA]
    assert hand["channel"] == "email" and hand.get("reply_to")
    status, out = mail(client, svc, DANA, hand["reply_to"], command_text(choose(g, seat)))  # a reply to it: a move
    assert status == 200 and svc.store.version(gid) > g.version, [m["body"] for m in out]
    # a move sent to the service's bare address is refused; the answer's Reply-To then takes it
    g, seat = dana_to_move(client, svc, gid)
    status, out = mail(client, svc, DANA, "play@spades.example.test", command_text(choose(g, seat)))
    [refused] = [m for m in out if m["to"] == DANA]
    assert "must be a reply" in refused["body"] and svc.store.version(gid) == g.version
    status, out = mail(client, svc, DANA, refused["reply_to"], command_text(choose(g, seat)))
    assert status == 200 and svc.store.version(gid) > g.version, [m["body"] for m in out]


def test_via_email_sends_the_waiting_turn_to_the_linked_mailbox(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, ALICE, f"NEW {BOB}")
    send(client, svc, BOB, "YES")
    gid = svc.players.games(ALICE)[0]
    out = send(client, svc, ALICE, f"LINK {MAIL}")
    sent = next(m for m in out if m["to"] == MAIL)
    status, _ = mail(client, svc, MAIL, sent["reply_to"], f"LINK {code_in([sent], MAIL)}")
    assert status == 200 and svc.links.home(MAIL) == ALICE
    seat = int(svc.store.meta(gid)["seat0"] != ALICE)
    for _ in range(5):  # Bob moves until a turn of Alice's waits (who draws first is the deal's)
        g = game(svc, gid)
        if g.may_move(seat):
            break
        send(client, svc, BOB, command_text(choose(g, 1 - seat)))
    assert g.may_move(seat)
    out = send(client, svc, ALICE, "VIA EMAIL")
    assert [m["to"] for m in out] == [ALICE, MAIL], out  # the answer where she asked, and her turn in the mailbox
    assert out[0]["body"].startswith("Your turns now go to ")
    turn = out[1]
    assert turn["channel"] == "email" and turn.get("reply_to") and turn.get("kind") == "status", turn
    status, out = mail(client, svc, MAIL, turn["reply_to"], command_text(choose(g, seat)))
    assert status == 200 and svc.store.version(gid) > g.version, [m["body"] for m in out]

"""Whole games through the webhooks: SMS players, signed requests, a real Celery worker, the local outbox."""

from __future__ import annotations

import re
import time

import pytest

from chat import is_gsm7
from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from spades.events import from_dict
from spades.game import fold
from tests.backends import BOTH
from tests.following import Following

from .chooser import choose
from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled

ALICE, BOB = "+15551230001", "+15551230002"
pytestmark = BOTH


def chosen_tricks(svc, gid) -> int:  # type: ignore[no-untyped-def]
    """The tricks in which both players chose their card (none played for them, RULES 6)."""
    total, autos = 0, 0
    for e in (e.event for e in svc.store.load(gid)):
        if e["type"] == "card_played":
            autos += bool(e.get("auto"))
        elif e["type"] == "trick_won":
            total += autos == 0
            autos = 0
    return total


def load_game(svc, gid):  # type: ignore[no-untyped-def]
    return fold(from_dict(e.event) for e in svc.store.load(gid))


def start_sms_game(client, svc, target: str = ""):  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, ALICE, f"NEW {BOB}{target}")
    assert resp.status_code == 200 and resp.mimetype == "text/xml"
    assert resp.get_data(as_text=True).strip().endswith("<Response />")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    assert "invites you" in local_messages(svc, BOB)[-1]["body"]
    resp, mid = post_sms(client, BOB, "yes")
    wait_handled(svc, mid)
    assert svc.store.meta(gid)["status"] == "active"
    return gid


def play_out(client, svc, gid, addresses, max_moves: int = 5000) -> int:  # type: ignore[no-untyped-def]
    moves = 0
    following = Following(svc.store, gid)  # the game's state, its events folded as they come
    while True:
        game = following()
        if game.phase == "over":
            following.full()  # the same as the whole log folded again
            return moves
        seat = game.movers[0]
        version = game.version
        resp, mid = post_sms(client, addresses[seat], command_text(choose(game, seat)))
        assert resp.status_code == 200
        wait_handled(svc, mid)
        assert svc.store.version(gid) > version, f"move {moves} was not applied"
        moves += 1
        assert moves < max_moves


@pytest.mark.slow
def test_a_complete_game_between_two_sms_players(client, svc, celery_worker, backend) -> None:  # type: ignore[no-untyped-def]
    # on the cluster a game to 200 (NEW ... TO 200: a few hands, their ends and the game's end): each move there
    # waits for the replica (WAIT), and the whole game to 500 is played on the single Redis
    target = 200 if backend == "cluster" else 500
    t0 = time.monotonic()
    gid = start_sms_game(client, svc, "" if target == 500 else f" TO {target}")
    moves = play_out(client, svc, gid, (ALICE, BOB))
    game = load_game(svc, gid)
    assert game.phase == "over" and game.winner in (0, 1) and max(game.scores) >= target
    assert svc.store.meta(gid)["status"] == "over"
    wait_outbox_settled(svc)
    for seat, who in enumerate((ALICE, BOB)):
        last = local_messages(svc, who)[-1]["body"]  # the last tricks, the last hand's score, the end (issue 23 case 1)
        assert "Game over:" in last and ("you win" in last) == (game.winner == seat), last
        assert f"Hand {len(game.history)}: you " in last, last
        assert "REMATCH" in last
    entries = svc.store.outbox_entries(f"g:{gid}")
    assert entries and all(e["status"] == "sent" for e in entries)
    for who in (ALICE, BOB):
        sent = local_messages(svc, who)
        assert all(is_gsm7(m["body"]) for m in sent)  # SMS stay GSM-7 (160 characters a segment)
        # one message at a hand's end (issue 14 case 9): the last trick, the hand's score, the totals (and to
        # the player who draws first, the next hand's first question), no separate summary; news accumulate:
        # each player hears of every trick, even those after which they waited (the last hand's last trick:
        # the game summary says how the game ended)
        assert not any(m["kind"] == "hand_summary" for m in sent)
        for n in range(1, game.hand_no):
            ends = [m["body"] for m in sent if f"Hand {n}: you" in m["body"]]
            assert len(ends) == 1 and "Score: you" in ends[0] and re.search(r"won \w+ v ", ends[0]), ends
            assert "Double nil? DN or DRAW" in ends[0] or "draws first; your turn soon." in ends[0], ends[0]
        told = " ".join(m["body"] for m in sent)
        # every trick in which both chose their card but the last of each hand; of the tricks played for them
        # (forced cards, a decided end) the next message tells the last one, the summary the rest
        assert len(re.findall(r"won \w+ v ", told)) >= chosen_tricks(svc, gid) - game.hand_no
    print(f"\n{moves} moves, {game.hand_no} hands, {time.monotonic() - t0:.1f}s")


def test_an_illegal_move_gets_a_helpful_reply_and_changes_nothing(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = load_game(svc, gid)
    waiting = (ALICE, BOB)[1 - game.movers[0]]
    before = svc.store.version(gid)
    resp, mid = post_sms(client, waiting, "KEEP")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == before
    assert local_messages(svc, waiting)[-1]["body"].startswith("Not your turn: waiting for")
    resp, mid = post_sms(client, waiting, "flibbertigibbet")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert "did not understand" in local_messages(svc, waiting)[-1]["body"]  # chat.explain_error
    assert svc.store.version(gid) == before

"""An answer is read as the answer to the question just asked, and a move's reply tells what it showed the
player (issue 14 cases 3 and 5). Through the real handler and a real Redis."""

from __future__ import annotations

from service import conversation_port as port
from spades.commands import DeclareDoubleNil
from spades.game import legal_moves

from .helpers import CAROL, lifecycle_command, load, local, move, mover, other, start_game

ERIN = "+12125550144"


def _game(svc) -> str:  # type: ignore[no-untyped-def]
    return start_game(svc, CAROL, ERIN, rules="ALT")  # strict alternation (RULES D11): a move passes the turn


def test_no_to_the_resign_question_keeps_the_game(svc) -> None:  # type: ignore[no-untyped-def]
    """Before: ``No invitation is waiting for you...``; after: ``OK, the game goes on...`` (issue 14 case 5)."""
    gid = _game(svc)
    assert lifecycle_command(svc, CAROL, "RESIGN").outcome == "confirm_resign"
    # the opponent as every SMS names them: never the whole number (issue 14 case 1)
    assert local(svc, CAROL)[-1]["body"] == "Resign the game vs +1..0144? YES to confirm."
    res = lifecycle_command(svc, CAROL, "NO")
    assert res.outcome == "resign_kept" and res.game_id == gid
    assert local(svc, CAROL)[-1]["body"] == "OK, the game goes on: you did not resign. HAND shows where it stands."
    # the question is answered: a later YES confirms nothing
    assert lifecycle_command(svc, CAROL, "YES").outcome == "no_invitation"
    assert load(svc, gid).phase != "over"


def test_draw_after_the_double_nil_question_was_answered_says_so(svc) -> None:  # type: ignore[no-untyped-def]
    """Before: ``Double nil only before your first card.``; after: the question was answered (issue 14 case 5,
    RULES D3)."""
    gid = _game(svc)
    who = mover(svc, gid)
    assert move(svc, who, "DRAW").outcome == "applied"
    res = move(svc, who, "DRAW")
    assert res.outcome == "illegal"
    body = local(svc, who)[-1]["body"]
    assert body.startswith("You answered the double nil question of this hand already."), body
    assert "Double nil only before" not in body
    # DN at the same moment is still the engine's own refusal
    move(svc, who, "DN")
    assert "Double nil only before your first card." in local(svc, who)[-1]["body"]


def test_a_keep_that_passes_the_turn_tells_the_card_it_discarded(svc) -> None:  # type: ignore[no-untyped-def]
    """RULES D2: who keeps the first card sees the second as they discard it; the reply to KEEP says it, even
    when the opponent is to move next (issue 14 case 3). Before: nothing until the opponent moved."""
    gid = _game(svc)
    for _ in range(30):
        who = mover(svc, gid)
        before = len(local(svc, who))
        game = load(svc, gid)
        if game.phase != "draw":
            break
        if not game.dn_decided[game.to_move]:
            move(svc, who, "DRAW")
            continue
        move(svc, who, "K")
        after = load(svc, gid)
        told = local(svc, who)[before:]
        seat = game.to_move
        discarded = after.discarded[seat][-1].code
        assert told, "KEEP got no answer"
        assert f"{discarded} went to the discards." in told[-1]["body"], told[-1]["body"]
        # the opponent never reads it
        assert all("went to the discards" not in m["body"] for m in local(svc, other(svc, gid, who)))
        if mover(svc, gid) != who:
            return
    raise AssertionError("no KEEP passed the turn")


def test_a_swap_is_answered_with_the_cards_it_brought(svc) -> None:  # type: ignore[no-untyped-def]
    """RULES D5: the double nil bidder's exchange brings cards from the pile; the reply to SWAP names them, even
    when the opponent is to move next (issue 14 case 3). Before: ``SWAP AC KC KD`` got no answer at all."""
    gid = _game(svc)
    declared = False
    for _ in range(80):
        game = load(svc, gid)
        if game.phase != "draw":
            break
        seat = game.movers[0]
        who = svc.store.meta(gid)[f"seat{seat}"]
        legal = legal_moves(game, seat)
        if any(isinstance(c, DeclareDoubleNil) for c in legal):
            text = "DN" if not declared else "DRAW"
            declared = True
        else:
            text = port.command_text(next(c for c in legal if not isinstance(c, DeclareDoubleNil)))
        assert move(svc, who, text).outcome == "applied", text
    game = load(svc, gid)
    assert game.phase == "exchange"
    seat = game.movers[0]
    who = svc.store.meta(gid)[f"seat{seat}"]
    before = len(local(svc, who))
    thrown = [c.code for c in game.hands[seat][:3]]
    assert move(svc, who, "SWAP " + " ".join(thrown)).outcome == "applied"
    after = load(svc, gid)
    received = [c.code for c in after.hands[seat] if c not in game.hands[seat]]
    told = local(svc, who)[before:]
    assert told and told[-1]["body"].startswith("You received "), told
    said = told[-1]["body"].removeprefix("You received ").split(".")[0].split()
    assert sorted(said) == sorted(received) and len(said) == 3
    assert all("You received" not in m["body"] for m in local(svc, other(svc, gid, who)))

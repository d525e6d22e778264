"""Several games at once, and a whole game against NEW BOT through the real Celery worker."""

from __future__ import annotations

import re
import time

import pytest

from service import conversation_port as port
from service.lifecycle import bot, routing
from tests.following import Following

from .helpers import ALICE, BOB, CAROL, DAVE, lifecycle_command, load, local, move, start_game


def routed_move(svc, sender: str, text: str):  # type: ignore[no-untyped-def]
    """A move through the real handler, which routes it: ``#N`` picks game N, else the game last prompted."""
    return move(svc, sender, text)


def alice_to_move(svc, gid: str) -> None:  # type: ignore[no-untyped-def]
    """Alice may move: her opponent made their double nil choice if they draw first (RULES D11), and their
    first draw decision too in a game of strict alternation."""
    meta = svc.store.meta(gid)
    alice = 0 if meta["seat0"] == ALICE else 1
    if not load(svc, gid).may_move(alice):
        opp = meta[f"seat{1 - alice}"]
        res = move(svc, opp, "DRAW", gid)  # an email player's move: a reply to that game's email (issue 15)
        assert res.outcome == "applied"
        if not load(svc, gid).may_move(alice):  # strict alternation: the opponent's first draw decision too
            assert move(svc, opp, "K", gid).outcome == "applied"
    assert load(svc, gid).may_move(alice)


def test_moves_of_a_player_with_three_games_reach_the_right_games(svc) -> None:  # type: ignore[no-untyped-def]
    # strict alternation (RULES D11's house rule): after K the opponent is to move
    games = [start_game(svc, ALICE, opp, rules="ALT") for opp in (BOB, CAROL, DAVE)]
    assert [routing.number_of(svc, ALICE, g) for g in games] == [1, 2, 3]
    assert routing.number_of(svc, BOB, games[0]) == 1  # numbers are per player
    for g in games:
        alice_to_move(svc, g)
    versions = {g: load(svc, g).version for g in games}
    last = routing.resolve(svc, ALICE).game_id
    assert last in games
    # no prefix: the game whose prompt Alice received last
    assert routed_move(svc, ALICE, "DRAW").game_id == last
    versions[last] += 1
    assert {g: load(svc, g).version for g in games} == versions
    # a #N prefix: that game, and then replies without prefix follow it (its prompt came last)
    for n in (1, 3, 2):
        g = games[n - 1]
        before = routing.resolve(svc, ALICE).game_id
        res = routed_move(svc, ALICE, f"#{n} K" if g == last else f"#{n} DRAW")
        assert res.game_id == g and res.outcome == "applied"
        versions[g] += 1
        assert {x: load(svc, x).version for x in games} == versions
        # DRAW shows her a card of that game: its prompt is now the last; after K the opponent is to move
        assert routing.resolve(svc, ALICE).game_id == (before if g == last else g)
    # GAMES lists the three, numbered, with the opponent, whose turn and the score
    lifecycle_command(svc, ALICE, "GAMES")
    listing = local(svc, ALICE)[-1]["body"]
    # opponents as an SMS shows them: a number never cut (issue 14 case 1)
    assert all(f"#{n} " in listing for n in (1, 2, 3)) and "+47..5432" in listing and "+1..0123" in listing
    assert "dave@.." in listing and BOB not in listing
    # an unknown number changes nothing
    assert routing.resolve(svc, ALICE, 7).game_id is None


@pytest.mark.slow
def test_a_complete_game_against_new_bot_through_the_worker(app, svc, client, celery_worker) -> None:  # type: ignore[no-untyped-def]
    from tests.service.helpers import post_sms, wait_for, wait_handled, wait_outbox_settled

    app.config["BOT_DELAY"] = 0
    _resp, mid = post_sms(client, ALICE, "NEW BOT")  # the webhook, the worker, the lifecycle, the bot's task
    wait_handled(svc, mid)
    gid = svc.players.games(ALICE)[0]
    assert svc.store.meta(gid)["status"] == "active"
    human = 0 if svc.store.meta(gid)["seat0"] == ALICE else 1
    moves = 0
    following = Following(svc.store, gid)  # the game's state, its events folded as they come

    def humans_turn_or_over():  # type: ignore[no-untyped-def]
        game = following()
        return game if game.phase == "over" or game.movers[0] == human else None

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        # the computer's moves come from the worker: until the human may move, or the game is over
        game = wait_for(humans_turn_or_over, timeout=60, what="the computer's move")
        if game.phase == "over":
            break
        text = port.command_text(bot.choose(game, human, bot.EASY))  # the human plays fair cards too
        _resp, mid = post_sms(client, ALICE, text)
        wait_handled(svc, mid)
        moves += 1
    following.full()  # the same as the whole log folded again
    game = load(svc, gid)
    assert game.phase == "over", f"not over after {moves} moves"
    assert game.winner is not None and max(game.scores) >= 500
    assert svc.store.meta(gid)["status"] == "over"
    # archived, whoever made the last move (compressed: a tenth of the memory; it reads the same)
    wait_for(lambda: svc.redis.exists("{g:" + gid + "}:archive"), what="the finished game archived")
    assert not svc.redis.exists("{g:" + gid + "}:ev") and load(svc, gid).winner == game.winner
    wait_outbox_settled(svc)
    # Alice saw every hand's result and the end; nothing was "sent" to the computer
    told = local(svc, ALICE)
    # every hand's result in one message, not a separate summary (issue 14 case 9)
    assert not any(m["kind"] == "hand_summary" for m in told)
    # (the hand's result in Norwegian: "Runde 3. Du: ...; Bot: ..." since the second review, issue 28)
    assert all(sum(bool(re.search(rf"\bRunde {n}(\. Du:|: du )", m["body"])) for m in told) == 1
               for n in range(1, len(game.history)))
    assert told[-1]["body"].startswith("Partiet er slutt:") and "OMKAMP" in told[-1]["body"]  # in Norwegian (+47)
    assert all(m["to"] == ALICE for m in local(svc))


def test_new_bot_plays_the_strong_strategy_and_new_bot_easy_the_basic_one(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 12: NEW BOT is the opponent worth playing (pimc); NEW BOT EASY keeps basic; AUTO ON plays pimc."""
    assert lifecycle_command(svc, ALICE, "NEW BOT").outcome == "started"
    assert lifecycle_command(svc, BOB, "NEW BOT EASY").outcome == "started"
    seats = {}
    for who in (ALICE, BOB):
        meta = svc.store.meta(svc.players.games(who)[0])
        seats[who] = meta["seat1"] if meta["seat0"] == who else meta["seat0"]
    assert seats == {ALICE: "bot:pimc", BOB: "bot:basic"}
    assert [bot.strategy_of(a) for a in (seats[ALICE], seats[BOB], CAROL)] == ["pimc", "basic", "pimc"]
    assert bot.strategy_of("bot:gone") == "pimc"  # a seat naming a strategy no longer known: the strong one

"""Several games at once, and a whole game against NEW BOT through the real Celery worker."""

from __future__ import annotations

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
    assert [routing.number_of(svc.store, ALICE, g) for g in games] == [1, 2, 3]
    assert routing.number_of(svc.store, BOB, games[0]) == 1  # numbers are per player
    for g in games:
        alice_to_move(svc, g)
    versions = {g: load(svc, g).version for g in games}
    last = routing.resolve(svc.store, svc.players, ALICE).game_id
    assert last in games
    # no prefix: the game whose prompt Alice received last
    assert routed_move(svc, ALICE, "DRAW").game_id == last
    versions[last] += 1
    assert {g: load(svc, g).version for g in games} == versions
    # a #N prefix: that game, and then replies without prefix follow it (its prompt came last)
    for n in (1, 3, 2):
        g = games[n - 1]
        before = routing.resolve(svc.store, svc.players, ALICE).game_id
        res = routed_move(svc, ALICE, f"#{n} K" if g == last else f"#{n} DRAW")
        assert res.game_id == g and res.outcome == "applied"
        versions[g] += 1
        assert {x: load(svc, x).version for x in games} == versions
        # DRAW shows her a card of that game: its prompt is now the last; after K the opponent is to move
        assert routing.resolve(svc.store, svc.players, ALICE).game_id == (before if g == last else g)
    # GAMES lists the three, numbered, with the opponent, whose turn and the score
    lifecycle_command(svc, ALICE, "GAMES")
    listing = local(svc, ALICE)[-1]["body"]
    # opponents as an SMS shows them: a number never cut (issue 14 case 1)
    assert all(f"#{n} " in listing for n in (1, 2, 3)) and "+47..5432" in listing and "+1..0123" in listing
    assert "dave@.." in listing and BOB not in listing
    # an unknown number changes nothing
    assert routing.resolve(svc.store, svc.players, ALICE, 7).game_id is None


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
        text = port.command_text(bot.choose(game, human, "basic"))  # the human plays fair cards too
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
    # no "Bot to move. Kept: ..." a second before the computer's own message tells it (issue 23 case 12)
    assert [m["body"] for m in told if m["kind"] == "news"] == []
    assert all(sum(f"Runde {n}: du " in m["body"] for m in told) == 1 for n in range(1, len(game.history)))
    # in Norwegian (+47); the last hand's result first, in the message that ends the game (issue 23 case 1)
    assert "Partiet er slutt:" in told[-1]["body"] and "OMKAMP" in told[-1]["body"]
    assert f"Runde {game.hand_no}: du " in told[-1]["body"]
    assert all(m["to"] == ALICE for m in local(svc))


def _computer(svc, who: str, gid: str | None = None) -> str:  # type: ignore[no-untyped-def]
    """The computer's seat address in ``who``'s game ``gid`` (their newest game if None)."""
    meta = svc.store.meta(gid or svc.players.games(who)[0])
    return meta["seat1"] if meta["seat0"] == who else meta["seat0"]


def _resign(svc, who: str) -> None:  # type: ignore[no-untyped-def]
    assert lifecycle_command(svc, who, "RESIGN").outcome == "confirm_resign"
    assert lifecycle_command(svc, who, "YES").outcome == "resigned"


def test_new_bot_easy_normal_and_hard_are_the_levels_and_auto_on_keeps_the_strong_player(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 25: NEW BOT EASY, NEW BOT (normal), NEW BOT HARD; the seat names the level, which plays it."""
    for who, text in ((ALICE, "NEW BOT EASY"), (BOB, "NEW BOT"), (CAROL, "NEW BOT HARD"), (DAVE, "NEW BOT NORMAL BAGS")):
        assert lifecycle_command(svc, who, text).outcome == "started"
    seats = {who: _computer(svc, who) for who in (ALICE, BOB, CAROL, DAVE)}
    assert seats == {ALICE: "bot:easy", BOB: "bot:normal", CAROL: "bot:hard", DAVE: "bot:normal"}
    assert [bot.strategy_of(seats[w]) for w in (ALICE, BOB, CAROL)] == ["easy", "normal", "hard"]
    # AUTO ON for an absent person: the strong player, as before; seats of games begun before the levels play
    # as they did; a seat naming no known strategy, the strong one
    assert [bot.strategy_of(a) for a in (ALICE, "bot:pimc", "bot:basic", "bot:gone")] == ["pimc", "pimc", "basic", "pimc"]
    # the computer moves at each level (the task's own function), and only its seat's moves
    for who in (ALICE, BOB, CAROL, DAVE):
        gid = svc.players.games(who)[0]
        seat = 0 if svc.store.meta(gid)["seat0"] == seats[who] else 1
        game = load(svc, gid)
        if game.may_move(seat):
            assert bot.move(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.seats, svc.dealer,
                            gid, seat, game.version).outcome == "applied"
            assert load(svc, gid).version > game.version


def test_a_game_begun_before_the_levels_plays_on_as_before(svc) -> None:  # type: ignore[no-untyped-def]
    from service.lifecycle import invitations

    for n, seat in enumerate(("bot:pimc", "bot:basic")):
        gid = f"old{n}"
        invitations.create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid,
                                seat, ALICE if n == 0 else BOB, f"mid-old{n}")
        game = load(svc, gid)
        if game.may_move(0):  # the computer is seat 0: its strategy makes its move
            assert bot.move(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.seats, svc.dealer,
                            gid, 0, game.version).outcome == "applied"
    # REMATCH of such a game: the level nearest to the player it was (pimc: the strong one; basic: normal)
    lifecycle_command(svc, ALICE, "LANG EN")
    _resign(svc, ALICE)
    assert lifecycle_command(svc, ALICE, "REMATCH").outcome == "started"
    assert _computer(svc, ALICE) == "bot:hard"
    _resign(svc, BOB)
    assert lifecycle_command(svc, BOB, "REMATCH").outcome == "started"
    assert _computer(svc, BOB) == "bot:normal"


def test_rematch_keeps_the_level_and_easier_or_harder_steps_it(svc) -> None:  # type: ignore[no-untyped-def]
    lifecycle_command(svc, ALICE, "LANG EN")
    assert lifecycle_command(svc, ALICE, "NEW BOT").outcome == "started"
    first = [m for m in local(svc, ALICE) if m["kind"] == "update"][0]["body"]  # the game's first message
    assert "New game vs Bot (normal), first to 500." in first and "Levels: NEW BOT EASY, NEW BOT, NEW BOT HARD." in first
    steps = [("REMATCH", "started", "bot:normal"), ("REMATCH HARDER", "started", "bot:hard"),
             ("REMATCH HARDER", "level_limit", "bot:hard"), ("REMATCH EASIER", "started", "bot:normal"),
             ("REMATCH EASIER", "started", "bot:easy"), ("REMATCH EASIER", "level_limit", "bot:easy"),
             ("REMATCH", "started", "bot:easy")]
    ends = {"normal": "REMATCH to play again, REMATCH EASIER or REMATCH HARDER for another level.",
            "hard": "REMATCH to play again, REMATCH EASIER for another level.",
            "easy": "REMATCH to play again, REMATCH HARDER for another level."}
    for text, outcome, seat in steps:
        games = svc.players.games(ALICE)
        if svc.store.meta(games[0])["status"] == "active":  # the game before: over, and its end says what may follow
            _resign(svc, ALICE)
            assert local(svc, ALICE)[-1]["body"].endswith(ends[_computer(svc, ALICE).split(":")[1]])
        res = lifecycle_command(svc, ALICE, text)
        assert res.outcome == outcome, (text, res)
        assert len(svc.players.games(ALICE)) == len(games) + (outcome == "started")  # at the limit: no game
        assert _computer(svc, ALICE) == seat, text
        if outcome == "started":  # the new game's first message names its level
            level = seat.split(":")[1]
            assert f"New game vs Bot ({level})" in [m for m in local(svc, ALICE) if m["kind"] == "update"][-1]["body"]
        else:
            told = local(svc, ALICE)[-1]["body"]
            assert told == ("The computer is already at its hardest: REMATCH to play it again." if "HARDER" in text
                            else "The computer is already at its easiest: REMATCH to play it again.")
    # the same REMATCH handled twice (a retried message): one game
    from service.inbound import handle_inbound

    from .helpers import inbound

    _resign(svc, ALICE)
    games = len(svc.players.games(ALICE))
    mid = inbound(svc, ALICE, "REMATCH HARDER")
    assert svc.inject(handle_inbound)(mid, ALICE).outcome == "started"
    assert svc.inject(handle_inbound)(mid, ALICE).outcome == "duplicate"
    assert len(svc.players.games(ALICE)) == games + 1 and _computer(svc, ALICE) == "bot:normal"


def test_rematch_easier_against_a_person_says_levels_are_the_computers(svc) -> None:  # type: ignore[no-untyped-def]
    for who in (ALICE, BOB):
        lifecycle_command(svc, who, "LANG EN")
    lifecycle_command(svc, BOB, "NAME Bo")
    start_game(svc, ALICE, BOB)
    _resign(svc, ALICE)
    told = len(local(svc, BOB))
    res = lifecycle_command(svc, ALICE, "REMATCH HARDER")
    assert res.outcome == "level_limit"
    assert local(svc, ALICE)[-1]["body"] == ("REMATCH EASIER and REMATCH HARDER are for games against the computer: "
                                             "REMATCH to play Bo again.")
    assert len(local(svc, BOB)) == told  # no invitation
    assert lifecycle_command(svc, ALICE, "REMATCH").outcome == "invited"

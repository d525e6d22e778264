"""Several games at once, and a whole game against NEW BOT through the real Celery worker."""

from __future__ import annotations

import time

from chat import parse as chat_parse
from service import conversation_port as port
from service import handlers
from service.lifecycle import bot, hooks, routing
from workers import beat

from .helpers import ALICE, BOB, CAROL, DAVE, inbound, lifecycle_command, load, local, move, send_now, start_game


def routed_move(svc, sender: str, text: str):  # type: ignore[no-untyped-def]
    """A move as the handler routes it: ``#N`` picks game N, else the game last prompted."""
    intent = chat_parse(text, "en")
    target = routing.resolve(svc, sender, intent.game)
    assert target.game_id is not None, target
    body = text.split(None, 1)[1] if intent.game is not None else text
    mid = inbound(svc, sender, body)
    res = handlers._decide_loop(svc, mid, sender, target.game_id, port.parse_text(body), None)
    send_now(svc, res.outbox_ids)
    hooks.after_handled(svc, res.game_id, res.outbox_ids)
    return res


def alice_to_move(svc, gid: str) -> None:  # type: ignore[no-untyped-def]
    game = load(svc, gid)
    if svc.store.meta(gid)[f"seat{game.to_move}"] != ALICE:
        opp = svc.store.meta(gid)[f"seat{game.to_move}"]
        res = routed_move(svc, opp, "DRAW")
        assert res.outcome == "applied"
        assert routed_move(svc, opp, "K").outcome == "applied"
    game = load(svc, gid)
    assert svc.store.meta(gid)[f"seat{game.to_move}"] == ALICE


def test_moves_of_a_player_with_three_games_reach_the_right_games(svc) -> None:  # type: ignore[no-untyped-def]
    games = [start_game(svc, ALICE, opp) for opp in (BOB, CAROL, DAVE)]
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
    assert all(f"#{n} " in listing for n in (1, 2, 3)) and BOB in listing and CAROL in listing and DAVE in listing
    # an unknown number changes nothing
    assert routing.resolve(svc, ALICE, 7).game_id is None


def test_a_complete_game_against_new_bot_through_the_worker(app, svc, client, celery_worker) -> None:  # type: ignore[no-untyped-def]
    from tests.service.helpers import post_sms, wait_handled

    app.config["BOT_DELAY"] = 0
    celery_app = app.extensions["celery"]
    res = lifecycle_command(svc, ALICE, "NEW BOT")
    assert res.outcome == "started"
    gid = str(res.game_id)
    beat.queue_bot(celery_app, svc, res.bot)
    human = 0 if svc.store.meta(gid)["seat0"] == ALICE else 1
    moves = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        game = load(svc, gid)
        if game.phase == "over":
            break
        if game.to_move != human:
            time.sleep(0.005)
            continue
        text = port.command_text(bot.choose(game, human))  # the human plays well too
        _resp, mid = post_sms(client, ALICE, text)
        wait_handled(svc, mid)
        beat.after_handled(celery_app, svc, gid, [])
        moves += 1
    game = load(svc, gid)
    assert game.phase == "over", f"not over after {moves} moves"
    assert game.winner is not None and max(game.scores) >= 500
    meta = svc.store.meta(gid)
    assert meta["status"] == "over"
    # Alice saw every hand's result and the end; nothing was "sent" to the computer by the lifecycle
    assert any("GAME OVER" in m["body"] or "Game over" in m["body"] for m in local(svc, ALICE))
    _ = move

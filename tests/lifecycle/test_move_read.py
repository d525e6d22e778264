"""A move's read and write through ``service.games.apply`` (issue 42; the store's side alone, on both backends:
``tests/contract/test_move_read.py``): the game cache hands every move its own fold and is never changed by one,
nothing is taken out or put back, and a move's one append does what follows a snapshot or a game's end."""

from __future__ import annotations

from typing import Any

import pytest

from service.caches import private_copy
from service.conversation_port import command_text
from service.games.apply import read
from spades import bots, snapshot
from spades.arena import play_game
from spades.dealer import Dealer
from spades.events import HouseRules
from spades.game import Game, decide, view

from .helpers import ALICE, lifecycle_command, load, mover, start_game
from .test_snapshots import state


def test_a_read_for_a_move_is_its_own_and_the_cache_keeps_only_what_was_appended(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    svc.games.clear()
    first = read(svc.config, svc.store, svc.games, svc.seats, gid)
    assert svc.games.held(gid) is None  # a read keeps nothing: nothing to put back
    svc.games.keep(gid, first.taken)
    held = svc.games.held(gid)
    assert held is not None
    kept = snapshot.dump(held.game)
    mine = read(svc.config, svc.store, svc.games, svc.seats, gid)
    assert mine.game is not held.game and snapshot.dump(mine.game) == kept
    seat = mine.game.movers[0]
    for event in decide(mine.game, _a_move(mine.game, seat), svc.dealer(gid, mine.game.version)):
        mine.game.apply(event)
    assert snapshot.dump(svc.games.held(gid).game) == kept  # the cache's game is as it was
    assert lifecycle_command(svc, mover(svc, gid), "DRAW").outcome == "applied"
    assert snapshot.dump(svc.games.load(gid)) == snapshot.dump(load(svc, gid))


@pytest.mark.parametrize("simultaneous", [True, False], ids=["simultaneous_draw", "alternating_draw"])
def test_a_private_copy_shares_nothing_folding_changes(simultaneous: bool) -> None:
    """At every event of four hands (each phase, the hands' starts, both draw rules), the next event folded on a copy
    leaves the game copied as it was: a field the state gains that the copy would share shows here."""
    events = _whole_game(HouseRules(simultaneous_draw=simultaneous), hands=4)
    game = Game()
    for event in events:
        before = snapshot.dump(game)
        copy = private_copy(game)
        assert state(copy) == state(game)
        copy.apply(event)
        assert snapshot.dump(game) == before
        game.apply(event)
        assert state(copy) == state(game)  # the copy went on as the game itself does


def test_the_append_of_a_move_moves_the_log_out_after_a_snapshot(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    assert not svc.store.meta(gid).get("head")
    while not svc.store.meta(gid).get("head"):  # the play of the first hand begins: a snapshot, the head written
        assert lifecycle_command(svc, mover(svc, gid), _any_move(svc, gid)).outcome == "applied"
    assert len(svc.store.read_head(gid)) == int(svc.store.meta(gid)["head"])
    assert lifecycle_command(svc, ALICE, "RESIGN").outcome == "confirm_resign"
    assert lifecycle_command(svc, ALICE, "YES").outcome == "resigned"
    assert svc.store.meta(gid).get("archived")  # the game's end: archived by the append


def _a_move(game: Game, seat: int) -> Any:
    return bots.get("basic", seed=1).choose(view(game, seat))


def _any_move(svc, gid: str) -> str:  # type: ignore[no-untyped-def]
    game = load(svc, gid)
    return command_text(_a_move(game, game.movers[0]))


def _whole_game(rules: HouseRules | None = None, hands: int = 2) -> list[Any]:
    events: list[Any] = []
    play_game("g", [bots.get("basic"), bots.get("basic")], Dealer(7), max_hands=hands, rules=rules,
              on_event=events.append)
    return events

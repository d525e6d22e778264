"""Snapshots (``spades.snapshot``): a snapshot and the events after it fold to the state the whole log gives."""

from __future__ import annotations

import json
import random

import pytest

from spades import bots, snapshot
from spades.arena import play_game
from spades.cards import DECK
from spades.commands import DeclareDoubleNil
from spades.dealer import Dealer
from spades.events import Event, HouseRules
from spades.game import Game, fold, legal_moves
from tests.engine.helpers import run, start


def played(seed: int, rules: HouseRules, auto: bool, strategies: tuple[str, str]) -> list[Event]:
    events: list[Event] = []
    play_game(f"snap-{seed}", [bots.get(s, seed=seed * 2 + i) for i, s in enumerate(strategies)], Dealer(seed=seed),
              max_hands=6, rules=rules, on_event=events.append, auto=auto)
    return events


def state(game: Game) -> dict[str, object]:
    return dict(vars(game))


CASES = [
    (1, HouseRules(), False, ("random", "random")),
    (2, HouseRules(simultaneous_draw=False), True, ("basic", "random")),
    (3, HouseRules(failed_nil_bags=True, floor=-200, target=200), True, ("basic", "basic")),
    (4, HouseRules(), True, ("random", "basic")),
]


@pytest.mark.parametrize("seed,rules,auto,strategies", CASES)
def test_snapshot_and_tail_fold_to_the_full_fold(seed: int, rules: HouseRules, auto: bool,
                                                 strategies: tuple[str, str]) -> None:
    events = played(seed, rules, auto, strategies)
    whole = state(fold(events))
    phases = set()
    for i in [*range(1, len(events) + 1, 5), len(events)]:
        head = fold(events[:i])
        phases.add(head.phase)
        data = json.loads(json.dumps(snapshot.dump(head)))  # as stored: JSON
        assert state(snapshot.load(data)) == state(head), i
        assert state(fold(events[i:], snapshot.load(data))) == whole, i
    assert {"draw", "bid", "play"} <= phases


def test_a_double_nil_hand_round_trips_at_every_point() -> None:
    rng = random.Random(7)
    for first in (0, 1):
        game, events = start(DECK, first)
        run(game, events, DeclareDoubleNil(first))
        while game.phase != "over" and len(game.history) < 2:
            run(game, events, rng.choice(legal_moves(game, game.movers[0])), dealer=Dealer(seed=len(events)))
        assert any(e.type == "cards_exchanged" for e in events)
        whole = state(fold(events))
        for i in range(1, len(events) + 1):
            head = fold(events[:i])
            assert state(fold(events[i:], snapshot.load(json.loads(json.dumps(snapshot.dump(head)))))) == whole, i


@pytest.mark.parametrize("bad", [{}, {"format": "0.0"}, {"format": "999.1"}, None, {"format": snapshot.FORMAT}])
def test_a_snapshot_of_another_format_is_refused(bad: object) -> None:
    with pytest.raises(snapshot.SnapshotFormatError):
        snapshot.load(bad)  # type: ignore[arg-type]

"""``pimc-2026-12``: the frozen opponent plays exactly as it did when it was frozen.

Every later change to ``pimc`` is measured against it (``slowspades arena --duplicate``), so it
must not move: a change to what it shares (the search and quick rule of
``spades.bots.handsearch``, the scoring of RULES.md sections 7-8) that altered one of its
decisions fails here. The pinned game was recorded when it was a copy of ``pimc``.
"""

from __future__ import annotations

import hashlib
import io

from spades import bots
from spades.arena import play_game
from spades.dealer import Dealer
from spades.events import BidMade, Event, HandScored
from spades.replay import verify_log, write_event

#: Two hands of ``pimc-2026-12`` (seed 11, seat 0) against ``basic`` (seed 12), ``Dealer(seed=2026)``:
#: the sha-256 of the event log as ``slowspades arena --events`` writes it.
PINNED_LOG = "5eaf248ffc076ac19a58196bf6301e38687e3703fee2b5e477f05d7bbcc9292d"


def _pinned_game() -> tuple[str, list[Event]]:
    out = io.StringIO()
    log: list[Event] = []

    def record(event: Event) -> None:
        log.append(event)
        write_event(out, "pin", len(log), event)

    strategies = [bots.get("pimc-2026-12", seed=11), bots.get("basic", seed=12)]
    play_game("pin", strategies, Dealer(seed=2026), max_hands=2, on_event=record)
    return hashlib.sha256(out.getvalue().encode()).hexdigest(), log


def test_the_frozen_player_plays_the_pinned_game_exactly() -> None:
    digest, log = _pinned_game()
    verify_log(log)
    assert sum(isinstance(e, BidMade) for e in log) == 4 and sum(isinstance(e, HandScored) for e in log) == 2
    assert digest == PINNED_LOG, "pimc-2026-12 no longer plays as it did when frozen: do not change what it uses"


def test_the_frozen_player_is_an_arena_opponent_apart_from_pimc() -> None:
    frozen, live = bots.get("pimc-2026-12", seed=1), bots.get("pimc", seed=1)
    assert frozen.name == "pimc-2026-12" and type(frozen) is not type(live)
    assert "pimc-2026-12" in bots.names()

"""Every move the searching players choose on fixed seeds, as one digest (run on demand: ``.venv/bin/python
bench/bot_moves.py``; ``--moves FILE`` writes the moves themselves, one a line, to compare two runs with ``diff``).

A change that should not alter how ``pimc``, ``hard`` or the frozen ``pimc-2026-12`` play (moving their code between
modules, a faster search) is checked by running this before and after it: the digests must be equal. Each player
plays both seats against ``basic`` and against the other searching players, on fixed dealers and seeds. The clock
the players read (``time.perf_counter``: their per-decision caps) is replaced by one that advances a nanosecond a
call, so that a loaded machine cannot cut a search short and every run makes the same choices.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spades import bots
from spades.arena import play_game
from spades.dealer import Dealer
from spades.game import PlayerView

SEARCHERS = ("pimc", "hard", "pimc-2026-12")


class Recording:
    """A strategy that notes every choice of the one it wraps: the game, the seat, the phase and the command."""

    def __init__(self, inner: Any, game_id: str, moves: list[str]) -> None:
        self.inner, self.game_id, self.moves = inner, game_id, moves
        self.name = inner.name

    def choose(self, view: PlayerView) -> Any:
        command = self.inner.choose(view)
        self.moves.append(f"{self.game_id} {self.name}@{view.seat} {view.phase} {command!r}")
        return command


def pairings() -> list[tuple[str, str]]:
    """Each searching player at both seats against ``basic`` and against each other one."""
    pairs = [(s, "basic") for s in SEARCHERS] + [("basic", s) for s in SEARCHERS]
    return pairs + list(itertools.permutations(SEARCHERS, 2))


def all_moves(seeds: int, hands: int, pairs: int | None = None) -> list[str]:
    moves: list[str] = []
    for (a, b), seed in itertools.product(pairings()[:pairs], range(seeds)):
        game_id = f"{a}-{b}-{seed}"
        strategies = [Recording(bots.get(name, seed=1000 * seed + seat), game_id, moves)
                      for seat, name in enumerate((a, b))]
        play_game(game_id, strategies, Dealer(seed=seed), max_hands=hands)
    return moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=2, help="dealers (and player seeds) per pairing")
    ap.add_argument("--hands", type=int, default=2, help="hands a game")
    ap.add_argument("--moves", type=Path, help="write every move here, one a line")
    ap.add_argument("--pairings", type=int, help=f"only the first N of the {len(pairings())} pairings (default all)")
    args = ap.parse_args()
    ticks = itertools.count()
    time.perf_counter = lambda: next(ticks) * 1e-9  # the players' caps never cut a search short
    moves = [m for m in all_moves(args.seeds, args.hands, args.pairings) if "basic@" not in m]
    if args.moves:
        args.moves.write_text("\n".join(moves) + "\n", encoding="utf-8")
    digest = hashlib.sha256("\n".join(moves).encode()).hexdigest()
    print(f"{len(moves)} moves of {', '.join(SEARCHERS)}: sha256 {digest}")


if __name__ == "__main__":
    main()

"""Engine benchmark (run on demand: ``.venv/bin/python bench/engine.py``); prints figures, checks nothing.

* complete hands per second through the full path: view -> strategy -> command -> decide ->
  events -> apply, random against random and basic against basic;
* events folded per second (``spades.game.fold``);
* the time to rebuild a whole game's state from its log, from event objects and from the
  stored JSON form (``from_dict`` then fold), and the time to re-check a whole log
  (``spades.replay.verify_log``).

Everything runs in this one process, on one core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spades import bots
from spades.arena import play_game
from spades.dealer import Dealer
from spades.events import Event, from_dict, to_dict
from spades.game import fold
from spades.replay import verify_log


def hands_per_second(names: tuple[str, str], seconds: float = 3.0, cap: int = 40) -> tuple[float, int]:
    hands = 0
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        strategies = [bots.get(names[s], seed=n * 2 + s) for s in (0, 1)]
        game = play_game(f"b{n}", strategies, Dealer(seed=n), max_hands=cap)
        hands += len(game.history)
        n += 1
    return hands / (time.perf_counter() - start), hands


def game_logs(count: int) -> list[list[Event]]:
    logs = []
    for n in range(count):
        log: list[Event] = []
        play_game(f"g{n}", [bots.get("basic", seed=n), bots.get("random", seed=n + 1)], Dealer(seed=n),
                  max_hands=200, on_event=log.append)
        logs.append(log)
    return logs


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="of each hands-per-second run")
    ap.add_argument("--games", type=int, default=20, help="whole games folded, rebuilt and checked")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}")
    for names in (("random", "random"), ("basic", "basic")):
        rate, hands = hands_per_second(names, args.seconds)
        print(f"{names[0]} vs {names[1]}: {rate:,.0f} complete hands/s ({hands} hands)")
    logs = game_logs(args.games)
    n_events = sum(len(log) for log in logs)
    t = best_of(lambda: [fold(log) for log in logs])
    print(f"fold: {n_events / t:,.0f} events/s")
    avg_len = n_events / len(logs)
    avg_hands = sum(len(fold(log).history) for log in logs) / len(logs)
    print(f"a whole game (basic vs random, {avg_hands:.1f} hands, {avg_len:.0f} events on average):")
    print(f"  rebuilt from its events: {t / len(logs) * 1000:.2f} ms")
    stored = [[json.dumps(to_dict(e)) for e in log] for log in logs]
    t_json = best_of(lambda: [fold(from_dict(json.loads(s)) for s in log) for log in stored], 3)
    print(f"  rebuilt from its JSON log (json.loads + from_dict + fold): {t_json / len(logs) * 1000:.2f} ms")
    t_verify = best_of(lambda: [verify_log(log) for log in logs], 3)
    print(f"  re-checked against the rules (verify_log): {t_verify / len(logs) * 1000:.2f} ms")


if __name__ == "__main__":
    main()

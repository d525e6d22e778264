"""CPU time of the hot paths in two checkouts, measured in alternated pairs (run on demand; prints figures, checks
nothing): ``.venv/bin/python bench/hot_paths.py --before /tmp/base --after . --rounds 9``, with the baseline made by,
e.g., ``mkdir /tmp/base && git archive main | tar -x -C /tmp/base``.

* **parse**: a set of messages (cards, bids, commands, plans, addresses, other languages' words) through
  ``chat.parse.parse`` in each of the five languages, many times over;
* **engine**: whole games of ``basic`` against ``random`` played (view, choose, decide, apply), folded again, every
  state's views and legal moves built, and games of ``random`` against ``random``;
* **pimc**: three hands of ``pimc`` against ``hard`` (their sampling and search), the players' clock fixed as in
  ``bench/bot_moves.py``.

Each round runs one process per checkout, the order flipped every round (the machine may be shared: CPU time, by
``time.process_time``, not wall time; the medians of the rounds are compared).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

MESSAGES = [
    "K", "D", "keep", "discard", "DN", "DRAW", "QH", "10s", "♥Q", "Q♥️", "queen of hearts", "as de pique",
    "4", "bid 4", "BID FOUR", "4 tricks", "nil", "swap AS KH 2C", "swap none", "HAND", "score", "rules",
    "#2 QH", "#3", "LANG FR", "NEW +15551230002", "NEW BOT HARD", "NEW ana@example.com BAGS FLOOR 200 TO 300",
    "LINK +33612345678", "LINK 482913", "VIA email", "IF H 4H S AS D LOW C WIN", "ALWAYS D LOW", "LEAD AS KS",
    "BID 0-3 5 4+ 3", "DN HIGH", "PLAN", "PLAN OFF", "REMIND OFF", "AUTO ON", "PAUSE 3", "RESUME", "TZ Europe/Paris",
    "NAME Ana", "SAY good game!", "hello there", "garde", "je joue la dame de coeur", "STOP", "help me", "👍",
    "what is this", "quatre plis", "JETTE", "SPILL 10H", "ΚΡΑΤΑ", "MAIN QH", "vacation 7", "REMATCH HARDER",
]
LANGS = ("en", "fr", "nb", "id", "el")
PASSES = 300
FIGURES = ("parse", "engine", "pimc")


def measure(tree: Path, small: bool = False) -> dict[str, float]:
    """The CPU seconds of each figure, with ``tree``'s packages imported (run in a process of its own); ``small``: a
    tiny run, to show that it runs."""
    sys.path.insert(0, str(tree))
    sys.path.insert(0, str(tree / "bench"))
    from engine import game_logs  # bench/engine.py of that tree

    from chat.parse import parse
    from spades import bots
    from spades.arena import play_game
    from spades.dealer import Dealer
    from spades.game import fold, legal_moves, view

    assert Path(sys.modules["chat.parse"].__file__ or "").is_relative_to(tree)
    out: dict[str, float] = {}
    start = time.process_time()
    for _ in range(1 if small else PASSES):
        for lang in LANGS:
            for message in MESSAGES:
                parse(message, lang)
    out["parse"] = time.process_time() - start

    start = time.process_time()
    logs = game_logs(2 if small else 30)
    for _ in range(5):
        for log in logs:
            fold(log)
    for log in logs[:4]:
        game = fold([])
        for event in log:
            game.apply(event)
            for seat in (0, 1):
                view(game, seat)
                legal_moves(game, seat)
    for n in range(1 if small else 20):
        play_game(f"r{n}", [bots.get("random", seed=n), bots.get("random", seed=n + 1)], Dealer(seed=n), max_hands=40)
    out["engine"] = time.process_time() - start

    ticks = itertools.count()
    time.perf_counter = lambda: next(ticks) * 1e-9  # (after the parse and engine figures: they do not read it)
    start = time.process_time()
    play_game("p", [bots.get("pimc", seed=1), bots.get("hard", seed=2)], Dealer(seed=3), max_hands=1 if small else 3)
    out["pimc"] = time.process_time() - start
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="the baseline checkout")
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent, help="this one by default")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--small", action="store_true", help="a tiny run: the figures mean nothing, it shows it runs")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # one process's figures, for main's rounds
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure.resolve(), args.small)))
        return
    if args.before is None:
        ap.error("--before: the checkout to compare with")
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    runs: dict[str, dict[str, list[float]]] = {name: {f: [] for f in FIGURES} for name in trees}
    for r in range(args.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            command = [sys.executable, __file__, "--measure", str(trees[name])] + (["--small"] if args.small else [])
            res = json.loads(subprocess.run(command, check=True, capture_output=True, text=True, cwd="/").stdout)
            for figure in FIGURES:
                runs[name][figure].append(res[figure])
        print(f"round {r + 1}: " + ", ".join(f"{name} " + " ".join(f"{f} {v[-1]:.3f}" for f, v in d.items())
                                              for name, d in runs.items()), flush=True)
    passes = 1 if args.small else PASSES
    print(f"CPU seconds, medians of {args.rounds} alternated rounds (parse: {passes * len(LANGS) * len(MESSAGES)} "
          f"messages):")
    for figure in FIGURES:
        before, after = (statistics.median(runs[name][figure]) for name in ("before", "after"))
        print(f"  {figure}: before {before:.3f}, after {after:.3f}, after / before {after / before:.3f}")


if __name__ == "__main__":
    main()

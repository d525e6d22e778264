"""Which Redis commands one move costs, by command (run on demand: ``.venv/bin/python bench/commands.py``).

The same setup as ``bench/trace_move.py`` (a ``redis-server`` on a free port, the app with the local outbox, one
process): ``--games`` games between two phones, each move a signed ``POST /sms`` (the webhook) and the worker's
task body (``workers.tasks.handle_inbound``), its moves chosen by the ``basic`` bot. ``INFO commandstats`` is
reset before each move and read after it, so the driver's own reads are not counted; the broker's ``LPUSH`` (the
task queued on the same Redis) is printed apart. Commands run by a script count as ``INFO`` counts them: the
``EVALSHA`` and each command inside it.

``--limits`` keeps the abuse limits at their defaults (the flood counter at the webhook: ``SET NX EX`` for a
sender's first message of a minute, then ``INCR``); without it they are off, as in ``bench/trace_move.py``. ``bench/load.py --cluster`` gives the total
on a cluster's masters under load (two worker processes, replica waits): more than here.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from bench.stack import command_calls
from bench.trace_move import local_app, next_text, start_redis, two_phone_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--moves", type=int, default=100, help="moves counted in each game (after 8 to warm up)")
    ap.add_argument("--limits", action="store_true", help="the abuse limits at their defaults (else off)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_redis(tmp)
        try:
            app = local_app(url, tmp, "commands", limits=args.limits)
            svc = app.extensions["slowspades"]
            r = redis.Redis.from_url(url)
            counted: collections.Counter[str] = collections.Counter()
            moves = 0
            for g in range(args.games):
                gid, players = two_phone_game(app, svc, f"+1555777{g % 10}{g // 10 % 10}01",
                                              f"+1555777{g % 10}{g // 10 % 10}02")
                for i in range(8 + args.moves):
                    if svc.games.load(gid).phase == "over":
                        break
                    seat, text = next_text(svc, gid, ("", ""))
                    r.config_resetstat()
                    players[seat].send(text)
                    if i < 8:
                        continue
                    moves += 1
                    counted.update(command_calls(r))
            for skip in ("config|resetstat", "info"):
                counted.pop(skip, None)
            broker = counted.pop("lpush", 0)
            print(f"{moves} moves in {args.games} games (limits {'on' if args.limits else 'off'}): "
                  f"{sum(counted.values()) / moves:.1f} Redis commands a move, the broker's LPUSH apart "
                  f"({broker / moves:.1f})")
            for name, n in counted.most_common():
                print(f"  {name:<12} {n / moves:6.2f}")
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()

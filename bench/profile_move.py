"""Where a move's CPU goes, in one process (run on demand: ``.venv/bin/python bench/profile_move.py``).

The same setup as ``bench/trace_move.py`` (a ``redis-server`` on a free port, the app with the local outbox),
then ``--moves`` moves of a game between two phones, each a signed ``POST /sms`` (the webhook) and the
worker's task body (``workers.tasks.handle_inbound``), under ``cProfile``: the webhook's and the worker's
functions printed apart, most time first, with the CPU of each per move. No Celery round trip and no
gunicorn: what is left is the project's own work on a move and its Redis round trips.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import pstats
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.trace_move import local_app, next_text, start_redis, two_phone_game


def by_package(stats: pstats.Stats) -> list[tuple[str, float]]:
    """Own time (``tottime``) summed by where the function lives: a project package, a library, the stdlib."""
    totals: dict[str, float] = {}
    root = str(Path(__file__).resolve().parent.parent)
    for (filename, _line, _name), row in stats.stats.items():  # type: ignore[attr-defined]
        tottime = row[2]
        if filename.startswith(root + "/.venv/") or "site-packages" in filename:
            group = filename.split("site-packages/")[-1].split("/")[0]
        elif filename.startswith(root):
            parts = Path(filename).relative_to(root).parts
            group = "/".join(parts[:2]) if parts[0] == "service" and len(parts) > 2 else parts[0]
        elif filename == "~":
            group = "builtins"
        else:
            group = "stdlib"
        totals[group] = totals.get(group, 0.0) + tottime
    return sorted(totals.items(), key=lambda kv: -kv[1])


def show_commands(url: str, move: Callable[[], None]) -> None:
    """The Redis commands one move sends (``MONITOR``), webhook and worker, each shortened to a line."""
    import redis

    lines: list[str] = []
    stop = threading.Event()
    ready = threading.Event()

    def watch() -> None:
        with redis.Redis.from_url(url).monitor() as mon:
            ready.set()
            for cmd in mon.listen():
                if stop.is_set() and "STOP-MONITOR" in cmd["command"]:
                    return
                lines.append(cmd["command"][:150])

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    ready.wait(5)
    time.sleep(0.2)
    move()
    stop.set()
    redis.Redis.from_url(url).echo("STOP-MONITOR")
    thread.join(5)
    print(f"{len(lines)} Redis commands in one move (webhook + worker):")
    for line in lines:
        print("   ", line)


def redis_cpu(url: str) -> float:
    """The Redis server's CPU so far (user + system, seconds)."""
    import redis

    info = redis.Redis.from_url(url).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


class MetricsOff:
    """While inside: every update of a prometheus_client metric (``labels``, ``inc``, ``observe``, ``set``) does
    nothing, as if the service counted no metrics."""

    def __enter__(self) -> None:
        from prometheus_client import metrics

        self.saved = [(cls, name, cls.__dict__[name]) for cls in (metrics.MetricWrapperBase, metrics.Counter,
                                                                    metrics.Gauge, metrics.Histogram)
                      for name in ("labels", "inc", "observe", "set", "dec") if name in cls.__dict__]
        for cls, name, _f in self.saved:
            setattr(cls, name, (lambda self, *a, **k: self) if name == "labels" else (lambda *a, **k: None))

    def __exit__(self, *exc: object) -> None:
        for cls, name, f in self.saved:
            setattr(cls, name, f)


def metrics_pair(moves: int, rounds: int) -> None:
    """Issue 26's "the metrics cost at most 5 %": the CPU of a move (this process and Redis) with the metrics counted
    and without, in alternating slices; the metrics in multiprocess mode (a ``PROMETHEUS_MULTIPROC_DIR``), as the
    deployed processes count them."""
    import os

    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # read when prometheus_client is imported: start again with it
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.environ["BENCH_OWN_METRICS_DIR"] = tempfile.mkdtemp()
        os.execv(sys.executable, [sys.executable, *sys.argv])
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_redis(tmp)
        try:
            app = local_app(url, tmp, "profile")
            svc = app.extensions["slowspades"]
            spent = {"on": 0.0, "off": 0.0}
            games = iter(range(1, 1_000_000))
            for round_ in range(rounds + 1):  # the first round warms the caches up and is not counted
                for mode in ("on", "off") if round_ % 2 else ("off", "on"):
                    redis0 = redis_cpu(url)
                    done = 0
                    with (MetricsOff() if mode == "off" else contextlib.nullcontext()):
                        while done < moves:
                            game = next(games)
                            gid, players = two_phone_game(app, svc, f"+1555777{game:04d}", f"+1555888{game:04d}")
                            while done < moves and svc.games.load(gid).phase != "over":
                                seat, text = next_text(svc, gid, ("", ""))
                                t0 = time.process_time()
                                players[seat].handle(players[seat].post(text))
                                spent[mode] += time.process_time() - t0
                                done += 1
                    spent[mode] += redis_cpu(url) - redis0
                if round_ == 0:
                    spent = {"on": 0.0, "off": 0.0}
            per = {mode: secs / (moves * rounds) * 1000 for mode, secs in spent.items()}
            print(f"{rounds} x {moves} moves each way; CPU per move (webhook + worker + Redis): metrics counted "
                  f"{per['on']:.3f} ms, metrics off {per['off']:.3f} ms: the metrics cost "
                  f"{(per['on'] - per['off']) / per['off'] * 100:+.1f} %")
        finally:
            proc.terminate()
            proc.wait()
            if os.environ.get("BENCH_OWN_METRICS_DIR"):
                shutil.rmtree(os.environ["BENCH_OWN_METRICS_DIR"], ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--monitor", action="store_true", help="print the Redis commands of the last move (MONITOR)")
    ap.add_argument("--sort", default="tottime", choices=["tottime", "cumulative"])
    ap.add_argument("--callers", default="", help="print the callers of the functions matching this")
    ap.add_argument("--plain", action="store_true",
                    help="no profiler: the CPU a move costs this process and the Redis server, as they run")
    ap.add_argument("--only", default="", help="list only the functions whose file path contains this")
    ap.add_argument("--metrics-pair", type=int, default=0, metavar="ROUNDS",
                    help="no profiler: ROUNDS alternating slices of --moves moves with the metrics counted and with "
                         "them off (prometheus_client's updates made no-ops), in multiprocess mode as deployed")
    args = ap.parse_args()
    if args.metrics_pair:
        metrics_pair(args.moves, args.metrics_pair)
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_redis(tmp)
        try:
            app = local_app(url, tmp, "profile")
            svc = app.extensions["slowspades"]
            web, worker = cProfile.Profile(time.process_time), cProfile.Profile(time.process_time)
            done = 0
            spent = {"web": 0.0, "worker": 0.0}
            redis0 = redis_cpu(url)
            game = 0
            while done < args.moves:
                game += 1
                gid, players = two_phone_game(app, svc, f"+1555777{game:04d}", f"+1555888{game:04d}")
                while done < args.moves and svc.games.load(gid).phase != "over":
                    seat, text = next_text(svc, gid, ("", ""))
                    mover = players[seat]
                    if args.monitor and done == args.moves - 1:
                        show_commands(url, lambda: mover.handle(mover.post(text)))
                        done += 1
                        break
                    t0 = time.process_time()
                    sid = mover.post(text) if args.plain else web.runcall(mover.post, text)
                    t1 = time.process_time()
                    if args.plain:
                        mover.handle(sid)
                    else:
                        worker.runcall(mover.handle, sid)
                    t2 = time.process_time()
                    spent["web"] += t1 - t0
                    spent["worker"] += t2 - t1
                    done += 1
            if args.plain:
                cpu = redis_cpu(url) - redis0
                print(f"{done} moves; CPU per move: webhook {spent['web'] / done * 1000:.2f} ms, worker "
                      f"{spent['worker'] / done * 1000:.2f} ms (this process), Redis {cpu / done * 1000:.2f} ms")
                return
            print(f"{done} moves; CPU per move in this process (profiled, so inflated): "
                  f"webhook {spent['web'] / done * 1000:.2f} ms, worker {spent['worker'] / done * 1000:.2f} ms")
            for name, prof in (("webhook", web), ("worker", worker)):
                stats = pstats.Stats(prof)
                print(f"\n== {name}: own CPU by package, ms per move")
                for group, secs in by_package(stats):
                    print(f"    {group:28} {secs / done * 1000:7.3f}")
                print(f"\n== {name}: top {args.top} by {args.sort}")
                stats.sort_stats(args.sort).print_stats(*([args.only] if args.only else []), args.top)
                if args.callers:
                    stats.print_callers(args.callers)
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()

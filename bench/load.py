"""Load benchmark of the service (run on demand: ``.venv/bin/python bench/load.py``); prints figures.

It starts a ``redis-server`` (appendonly, on a free port), gunicorn and a Celery worker as separate
processes, as the Procfile does, and drives them from this process:

1. **baseline**: ``--sessions`` closed-loop sessions each POST a bare Flask route that queues a no-op
   Celery task and wait until that task has run; messages per second end to end.
2. **moves**: as many games, each played by a chooser of legal moves through signed ``/sms``
   webhooks (the next move is sent when the previous one is in the game's stream); moves per
   second, webhook response time p50/p99, and webhook -> outbox time p50/p99 (the append that writes
   the events and the outbox entries is one Lua script; its time is the stream entry's ``t``).
3. **memory**: ``--finish`` games played to their end (to 500) through the same path, then, once
   their outbox is sent, the Redis memory of each finished game's keys (``MEMORY USAGE``) with what
   remains of its outbox (a finished game keeps only the entries not known to be sent and the last
   to each player, until ``SLOWSPADES_OUTBOX_TTL``: ``Store.compact_outbox``) and without it; and,
   the claims of its messages (``{p:<addr>}:seen:<n>``: once handled, a message is 8 bytes of its
   sender's set, kept ``SLOWSPADES_HANDLED_MESSAGE_TTL`` to twice that) counted in.

The baseline and the moves runs go in ``--rounds`` alternating slices (baseline, moves, baseline, ...),
so that the ratio is not skewed by a change of the machine's speed between them.

4. **spread** (``--games N``): N games with a history of ``--hands`` hands and a few moves (written straight
   through the store, ``bench/histories.py``), with the processes' game cache (``SLOWSPADES_GAME_CACHE_SIZE``,
   ``--cache``, 200 by default then) far smaller than N; the same closed loop (``--sessions`` moves
   outstanding) spread over them, in a third slice of each round: moves per second and CPU per move next to
   the moves run's, and the Redis memory of a sample of those games in play.

Options: ``--seconds 30 --rounds 3 --sessions 32 --threads 8 --finish 4 --games 0 --hands 3 --cache
--web-workers 2 --worker-concurrency 2 --worker-pool prefork --cluster --wait-ms 1000``.

``--cluster`` (``bench/load_cluster.py``): the moves run on the single Redis and, in alternating slices, on
a Redis Cluster with RabbitMQ and ``SLOWSPADES_REPLICA_WAIT_MS`` (``--wait-ms``); prints the ratio of the two.
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import requests

from bench.games import GameDriver, new_games, run_moves, signed_sms, take_replies
from bench.histories import write_histories
from bench.load_cluster import main_cluster
from bench.stack import TOKEN, Cluster, cpu_by_group, pct
from service.bootstrap import Dependencies, bootstrap
from service.config import load_config
from service.store.keys import game_head, game_owner, game_snapshot, owner_keys


def run_spread(svc: Dependencies, base: str, games: list[GameDriver], sessions: int, threads: int, seconds: float,
               stats: dict[str, list[float]]) -> int:
    """The closed loop of :func:`run_moves` with ``sessions`` moves outstanding, spread over all ``games``: a
    session whose move is done sends the next one to the next game of its share, in turn (so a worker
    meets a game again only after all the others of its share: with far more games than its cache holds,
    nearly every move is a cold load). Returns the moves completed in ``seconds``."""
    stop = time.monotonic() + seconds
    lock = threading.Lock()
    total = [0]

    def loop(mine: list[GameDriver], outstanding: int) -> None:
        session = requests.Session()
        queue = collections.deque(g for g in mine if g.game.phase != "over")
        waiting: dict[str, GameDriver] = {}
        while time.monotonic() < stop + 60 and (waiting or time.monotonic() < stop):
            late = time.monotonic() >= stop
            while not late and queue and len(waiting) < outstanding:
                g = queue.popleft()
                sender, text = g.next_text()
                g.sent_at = time.time()
                dt, g.mid = signed_sms(session, base, sender, text)
                stats["webhook"].append(dt)
                waiting["{g:" + g.gid + "}:ev"] = g
            if not waiting:
                break
            reply = svc.redis.xread({k: g.last or "0-0" for k, g in waiting.items()}, block=200)
            queue += take_replies(reply, waiting, stats, None if late else (lock, total))

    per = [sessions // threads + (1 if i < sessions % threads else 0) for i in range(threads)]
    ts = [threading.Thread(target=loop, args=(games[i::threads], per[i])) for i in range(threads) if per[i]]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return total[0]


def run_baseline(svc: Dependencies, base: str, sessions: int, threads: int, seconds: float) -> tuple[int, list[float]]:
    stop = time.monotonic() + seconds
    done = [0]
    lock = threading.Lock()
    rt: list[float] = []

    def loop(n: int) -> None:
        session = requests.Session()
        inbox = "bench:inbox:" + uuid.uuid4().hex
        outstanding = 0
        fresh = n
        while time.monotonic() < stop or (outstanding and time.monotonic() < stop + 60):
            if time.monotonic() >= stop:  # the messages sent are waited for (not counted)
                fresh = 0
            late = time.monotonic() >= stop
            for _ in range(fresh):
                t0 = time.perf_counter()
                resp = session.post(base + "/bench/noop", data={"k": inbox}, timeout=30)
                rt.append(time.perf_counter() - t0)
                assert resp.status_code == 204
                outstanding += 1
            got = svc.redis.blpop([inbox], timeout=1)  # the no-op task pushes here when it has run
            fresh = 0
            while got:
                fresh += 1
                got = svc.redis.lpop(inbox)
            outstanding -= fresh
            if not late:
                with lock:
                    done[0] += fresh

    per = [sessions // threads + (1 if i < sessions % threads else 0) for i in range(threads)]
    ts = [threading.Thread(target=loop, args=(n,)) for n in per if n]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return done[0], rt


def inbound_keys(svc: Dependencies, g: GameDriver) -> list[bytes]:
    """The keys the players of ``g`` (who played no other game) hold for their inbound messages: the
    records not yet handled and the sets of the handled ones' claims."""
    return [k for p in g.players for pattern in ("in:*", "seen:*")
            for k in svc.redis.scan_iter("{p:" + p + "}:" + pattern, count=5000)]


def game_keys(gid: str) -> list[str]:
    """Every key a game may have (named, not scanned: a scan of a Redis holding thousands of games is slow)."""
    k = owner_keys(game_owner(gid))
    return [k[n] for n in ("ev", "meta", "consumed", "archive", "outbox", "outq")] + [  # (the life fields: in the meta)
        game_snapshot(gid), game_head(gid)]


def game_memory(svc: Dependencies, g: GameDriver, claims: bool = True) -> tuple[int, int, int]:
    """(bytes of all the game's keys, what remains of its outbox included; bytes without the outbox
    and consumed ids, which expire SLOWSPADES_OUTBOX_TTL after the game; bytes of the claims of the
    game's messages, kept SLOWSPADES_HANDLED_MESSAGE_TTL to twice that; ``claims`` False: 0)."""
    total = durable = 0
    for key in game_keys(g.gid):
        size = int(svc.redis.memory_usage(key, samples=0) or 0)
        total += size
        name = key.decode() if isinstance(key, bytes) else key
        if name.endswith(":local"):  # the local outbox's part of the game (no provider): not the game's
            total -= size
        elif not name.endswith((":outbox", ":consumed", ":outq")):
            durable += size
    inbound = sum(int(svc.redis.memory_usage(k, samples=0) or 0) for k in inbound_keys(svc, g)) if claims else 0
    return total, durable, inbound


def print_spread(svc: Dependencies, args: argparse.Namespace, many: list[GameDriver], spread: int, rate: float,
                 cpu: dict[str, float], cpu_moves: dict[str, float], moves: int, stats: dict[str, list[float]]) -> None:
    """The figures of the run spread over ``--games`` games, next to the ``--sessions`` games' run."""
    spread_rate = spread / args.seconds
    per = {k: v / max(spread, 1) * 1000 for k, v in cpu.items()}
    per_moves = {k: v / max(moves, 1) * 1000 for k, v in cpu_moves.items()}
    service = ("web", "worker", "redis")
    print(f"spread over {len(many)} games (game cache {args.cache} per process): {spread_rate:.0f} moves/s "
          f"({spread} moves; {spread_rate / max(rate, 1e-9):.2f} of the {args.sessions}-game run's)")
    print("  CPU per move (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in per.items())
          + f"; service {sum(per[k] for k in service):.2f} against {sum(per_moves[k] for k in service):.2f} "
            f"({sum(per[k] for k in service) / max(sum(per_moves[k] for k in service), 1e-9):.2f})")
    print(f"  webhook -> outbox entry: p50 {pct(stats['to_outbox'], 50) * 1000:.1f} ms, "
          f"p99 {pct(stats['to_outbox'], 99) * 1000:.1f} ms")
    time.sleep(2)  # the last messages sent
    sample = [g for g in random.Random(2).sample(many, min(200, len(many))) if g.game.phase != "over"]
    sizes = [game_memory(svc, g, claims=False)[0] for g in sample]
    hands = [g.game.hand_no for g in sample]
    print(f"Redis memory per game in play ({len(sample)} of them, hands {min(hands)} - {max(hands)}): mean "
          f"{statistics.mean(sizes) / 1024:.1f} KB, max {max(sizes) / 1024:.1f} KB (its keys, MEMORY USAGE)")


def flame_graphs(folder: str, groups: dict[str, int], seconds: float) -> list[subprocess.Popen[bytes]]:
    """Start ``py-spy record`` on the web (gunicorn and its workers) and the worker (Celery and its children) for
    ``seconds``; each writes ``<folder>/<name>.svg`` when it ends."""
    exe = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or sys.exit("py-spy is needed: pip install "
                                                                                      "-e '.[dev]'")
    Path(folder).mkdir(parents=True, exist_ok=True)
    return [subprocess.Popen([exe, "record", "--pid", str(groups[name]), "--subprocesses", "--nonblocking",
                              "--rate", "200", "--duration", str(max(1, int(seconds))), "--output",
                              str(Path(folder) / f"{name}.svg")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name in ("web", "worker")]


def main() -> None:
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # figures as they come
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=30, help="of each run (baseline, moves), in --rounds slices")
    ap.add_argument("--rounds", type=int, default=3, help="alternating slices of the baseline and the moves runs")
    ap.add_argument("--sessions", type=int, default=32, help="concurrent games (and baseline sessions)")
    ap.add_argument("--threads", type=int, default=8, help="load generator threads")
    ap.add_argument("--finish", type=int, default=4, help="games played to the end for the memory figure")
    ap.add_argument("--games", type=int, default=0,
                    help="also: this many games with histories (written through the store), the same closed loop "
                         "spread over them, in the same slices")
    ap.add_argument("--hands", type=int, default=3, help="hands of each --games history (and a few moves more)")
    ap.add_argument("--cache", type=int, default=None,
                    help="SLOWSPADES_GAME_CACHE_SIZE of the processes (with --games: 200 unless given)")
    ap.add_argument("--web-workers", type=int, default=2)
    ap.add_argument("--web-threads", type=int, default=4)
    ap.add_argument("--worker-concurrency", type=int, default=2)
    ap.add_argument("--worker-pool", choices=["prefork", "solo"], default="prefork",
                    help="solo: --worker-concurrency workers of Celery's solo pool instead of one prefork worker")
    ap.add_argument("--cluster", action="store_true", help="the moves on the single Redis and on a Redis Cluster "
                                                           "with RabbitMQ, side by side (bench/load_cluster.py)")
    ap.add_argument("--flame", metavar="DIR", default="",
                    help="record flame graphs (py-spy, the dev extra) of the web and the worker during the first "
                         "moves slice: DIR/web.svg, DIR/worker.svg")
    ap.add_argument("--wait-ms", type=int, default=1000, help="with --cluster: SLOWSPADES_REPLICA_WAIT_MS")
    args = ap.parse_args()
    if args.cluster:
        main_cluster(args)
        return
    if args.games and args.cache is None:
        args.cache = 200

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the processes are stopped
    cluster = Cluster(args)
    cluster.start()
    try:
        cfg = load_config(overrides={"REDIS_URL": cluster.redis_url, "PUBLIC_BASE_URL": cluster.base,
                                     "TWILIO_AUTH_TOKEN": TOKEN})
        svc = bootstrap(cfg)
        print(f"machine: {os.cpu_count()} cores; gunicorn {args.web_workers}x{args.web_threads} threads, "
              f"celery {args.worker_pool} {args.worker_concurrency}; {args.sessions} concurrent sessions; {args.seconds:.0f} s each")

        groups = {name: p.pid for name, p in zip(("redis", "web", "worker"), cluster.procs)}
        games = new_games(svc, args.sessions, "7")
        many = [GameDriver(svc, gid, players, game, last)
                for gid, players, game, last in write_histories(svc, args.games, "6", args.hands)] if args.games else []
        random.Random(1).shuffle(many)
        stats: dict[str, list[float]] = {"webhook": [], "to_outbox": []}
        spread_stats: dict[str, list[float]] = {"webhook": [], "to_outbox": []}
        spread = 0
        cpu_spread: dict[str, float] = {}
        # the two runs in alternating slices, so that a change in the machine's speed (a shared
        # machine's CPU is not steady) weighs on both alike
        done = moves = 0
        rt: list[float] = []
        cpu_base: dict[str, float] = {}
        cpu_moves: dict[str, float] = {}
        slice_s = args.seconds / args.rounds
        for _ in range(args.rounds):
            for run in ("baseline", "moves", "spread") if many else ("baseline", "moves"):
                cpu0 = cpu_by_group(groups)
                if run == "baseline":
                    n, times = run_baseline(svc, cluster.base, args.sessions, args.threads, slice_s)
                    done += n
                    rt += times
                elif run == "moves":
                    spies = flame_graphs(args.flame, groups, slice_s) if args.flame and not moves else []
                    moves += run_moves(svc, cluster.base, games, args.threads, slice_s, stats, renew="7")
                else:
                    spread += run_spread(svc, cluster.base, many, args.sessions, args.threads, slice_s, spread_stats)
                    for spy in spies:
                        spy.wait(60)
                cpu1 = cpu_by_group(groups)
                into = {"baseline": cpu_base, "moves": cpu_moves, "spread": cpu_spread}[run]
                for k in cpu1:
                    into[k] = into.get(k, 0.0) + cpu1[k] - cpu0[k]
        base_rate = done / args.seconds
        print(f"baseline (bare route + no-op task, end to end): {base_rate:.0f} msg/s, "
              f"response p50 {pct(rt, 50) * 1000:.1f} ms p99 {pct(rt, 99) * 1000:.1f} ms")
        print("  CPU per message (ms): " + ", ".join(f"{k} {v / max(done, 1) * 1000:.2f}" for k, v in cpu_base.items()))
        rate = moves / args.seconds
        print(f"moves: {rate:.0f} moves/s sustained ({moves} moves in {args.seconds:.0f} s)")
        print("  CPU per move (ms): " + ", ".join(f"{k} {v / max(moves, 1) * 1000:.2f}" for k, v in cpu_moves.items()))
        print(f"webhook response: p50 {pct(stats['webhook'], 50) * 1000:.1f} ms, "
              f"p99 {pct(stats['webhook'], 99) * 1000:.1f} ms")
        print(f"webhook -> outbox entry: p50 {pct(stats['to_outbox'], 50) * 1000:.1f} ms, "
              f"p99 {pct(stats['to_outbox'], 99) * 1000:.1f} ms")
        print(f"ratio to baseline: {rate / base_rate:.2f}")
        if many:
            print_spread(svc, args, many, spread, rate, cpu_spread, cpu_moves, moves, spread_stats)

        if args.finish:
            time.sleep(2)
            fin = new_games(svc, args.finish, "8")
            t0 = time.monotonic()
            run_moves(svc, cluster.base, fin, min(args.threads, args.finish), 900,
                      {"webhook": [], "to_outbox": []})
            if any(g.game.phase != "over" for g in fin):
                print("some games did not finish in 900 s")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and any(svc.redis.zcard("{g:" + g.gid + "}:outq") for g in fin):
                time.sleep(0.2)
            deadline = time.monotonic() + 30  # the last messages handled (their records are dropped then)
            while time.monotonic() < deadline and any(b":in:" in k for g in fin for k in inbound_keys(svc, g)):
                time.sleep(0.2)
            sizes = [game_memory(svc, g) for g in fin]
            outboxes = [sum(1 for f in svc.redis.hkeys("{g:" + g.gid + "}:outbox") if f.isdigit()) for g in fin]
            moves_f = [g.moves for g in fin]
            print(f"finished games: {len(fin)} in {time.monotonic() - t0:.0f} s, "
                  f"{statistics.mean(moves_f):.0f} moves and "
                  f"{statistics.mean(g.game.version for g in fin):.0f} events on average")
            print(f"Redis memory per finished game, the claims of its messages included: "
                  f"{statistics.mean(s[0] + s[2] for s in sizes) / 1024:.1f} KB with what "
                  f"remains of its outbox (about {statistics.mean(outboxes):.0f} entries), "
                  f"{statistics.mean(s[1] + s[2] for s in sizes) / 1024:.1f} KB once that expires "
                  f"(SLOWSPADES_OUTBOX_TTL), {statistics.mean(s[1] for s in sizes) / 1024:.1f} KB once the "
                  f"claims expire too (SLOWSPADES_HANDLED_MESSAGE_TTL)")
            print(f"  of which the claims of its {statistics.mean(len(g.mids) for g in fin):.0f} messages "
                  f"({{p:<addr>}}:seen:<n>, 8 bytes each): {statistics.mean(s[2] for s in sizes) / 1024:.1f} KB per game")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()

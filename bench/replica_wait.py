"""What ``SLOWSPADES_REPLICA_WAIT_MS`` costs a move: the latency of ``Store.append`` (a move's append: events,
outbox entries, consumed id, turn) on a real Redis Cluster (three masters, a replica each, on this machine's
loopback: ``tests.cluster``), without and with ``WAIT 1``, in alternating slices; and on one Redis for
comparison.

    .venv/bin/python bench/replica_wait.py [--appends 2000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: the project's packages

from service.store import Store, game_owner
from service.store import connect as redis_client
from tests import cluster as test_cluster

EVENTS = [{"type": "card_played", "v": 1, "seat": 0, "card": "AS"}, {"type": "trick_won", "v": 1, "seat": 0}]
OUTBOX = [{"channel": "sms", "to": "+15550001001", "body": "x" * 140, "kind": "update"},
          {"channel": "sms", "to": "+15550001002", "body": "y" * 140, "kind": "update"}]


def run(store: Store, n: int, tag: str) -> list[float]:
    """``n`` appends to 50 games in turn; their latencies in ms."""
    out = []
    versions: dict[str, int] = {}
    for i in range(n):
        gid = f"{tag}{i % 50}"
        v = versions.get(gid, 0)
        t0 = time.perf_counter()
        res = store.append(game_owner(gid), v, EVENTS, message_id=f"m{tag}{i}", outbox=OUTBOX, turn=(v + 2, "1", i))
        out.append((time.perf_counter() - t0) * 1000)
        versions[gid] = res.version
    return out


def summary(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100)
    return f"{name:<28} p50 {q[49]:6.3f} ms  p99 {q[98]:6.3f} ms  mean {statistics.fmean(ms):6.3f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--appends", type=int, default=2000)
    ap.add_argument("--slices", type=int, default=4)
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="ss-wait-"))
    c = test_cluster.start(d / "cluster")
    single = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", "0", "--unixsocket",
                               str(d / "r.sock"), "--save", "", "--appendonly", "no", "--dir", str(d)],
                              stdout=subprocess.DEVNULL)
    try:
        client = redis_client({"REDIS_URL": c.url})
        one = redis.Redis(unix_socket_path=str(d / "r.sock"))
        for _ in range(100):
            try:
                one.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        runs: dict[str, list[float]] = {"single Redis": [], "cluster, no WAIT": [], "cluster, WAIT 1 1000": []}
        per = max(100, args.appends // args.slices)
        for s in range(args.slices):
            runs["single Redis"] += run(Store(one), per, f"s{s}-")
            runs["cluster, no WAIT"] += run(Store(client), per, f"n{s}-")
            runs["cluster, WAIT 1 1000"] += run(Store(client, replica_wait_ms=1000), per, f"w{s}-")
        for name, ms in runs.items():
            print(summary(name, ms))
        base = statistics.median(runs["cluster, no WAIT"])
        print(f"WAIT adds {statistics.median(runs['cluster, WAIT 1 1000']) - base:.3f} ms to the median append")
    finally:
        c.stop()
        single.terminate()
        single.wait(10)


if __name__ == "__main__":
    main()

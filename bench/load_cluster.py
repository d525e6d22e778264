"""``bench/load.py --cluster``: the same closed-loop games on two stacks started side by side, in alternating
slices: the single Redis (the Redis broker, as ``bench/load.py``) and a Redis Cluster (three masters, a replica
each, ``tests.cluster``'s layout) with RabbitMQ as the broker (``amqp://guest:guest@127.0.0.1:5672//``, which
must answer) and ``SLOWSPADES_REPLICA_WAIT_MS`` (``--wait-ms``, default 1000; 0 for none); prints each one's
moves/s, CPU per move, webhook -> outbox latency, and the cluster's ratio to the single Redis.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import requests
from redis.cluster import RedisCluster

from bench.games import new_games, run_moves
from bench.stack import TOKEN, Cluster, command_calls, cpu_by_group, pct, worker_command
from service.bootstrap import Dependencies, bootstrap
from service.config import load_config
from tests import cluster as test_cluster

AMQP = "amqp://guest:guest@127.0.0.1:5672//"


class ClusterStack(Cluster):
    """Six redis-server (one process group) joined into a cluster, gunicorn and a Celery worker on RabbitMQ."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args)
        self.ports = test_cluster._free_ports(6)
        self.redis_url = f"redis+cluster://127.0.0.1:{self.ports[0]}"
        self.queue = "bench-" + uuid.uuid4().hex[:8]

    def env(self) -> dict[str, str]:
        env = super().env()
        env.update({"SLOWSPADES_BROKER_URL": AMQP, "SLOWSPADES_QUEUE": self.queue,
                    "SLOWSPADES_REPLICA_WAIT_MS": str(self.args.wait_ms)})
        return env

    def start(self) -> None:
        exe = shutil.which("redis-server") or sys.exit("redis-server is needed")
        nodes = []
        for p in self.ports:
            d = self.tmp / str(p)
            d.mkdir()
            nodes.append(f"{exe} --port {p} --bind 127.0.0.1 --dir {d} --cluster-enabled yes "
                         f"--cluster-config-file nodes.conf --cluster-node-timeout 5000 --appendonly yes --save ''")
        self._spawn("redis", ["sh", "-c", " & ".join(nodes) + " & wait"])  # one process group: its CPU summed
        c = test_cluster.Cluster(self.ports, [], self.tmp, exe)
        for p in self.ports:
            self._wait(lambda p=p: c.node(p).ping(), f"redis {p}")
        subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in self.ports],
                        "--cluster-replicas", "1", "--cluster-yes"], check=True, stdout=subprocess.DEVNULL)
        test_cluster.wait_ok(c, 60)
        venv_bin = os.path.dirname(sys.executable)
        self._spawn("web", [f"{venv_bin}/gunicorn", "--bind", f"127.0.0.1:{self.web_port}", "--workers",
                            str(self.args.web_workers), "--threads", str(self.args.web_threads), "load_app:flask_app"])
        self._spawn("worker", worker_command(Path(venv_bin), self.args))
        self._wait(lambda: requests.get(self.base + "/healthz", timeout=1).status_code == 200, "web")
        time.sleep(2)


def _services(stack: Cluster, broker: str) -> Dependencies:
    return bootstrap(load_config(overrides={"REDIS_URL": stack.redis_url, "BROKER_URL": broker,
                                            "PUBLIC_BASE_URL": stack.base, "TWILIO_AUTH_TOKEN": TOKEN}))


def commands_processed(r: Any) -> int:
    """Commands the Redis masters have processed so far (``INFO stats``; a replica's own not counted)."""
    if isinstance(r, RedisCluster):
        return sum(int(info["total_commands_processed"])
                   for info in r.info("stats", target_nodes=RedisCluster.PRIMARIES).values())
    return int(r.info("stats")["total_commands_processed"])


def main_cluster(args: argparse.Namespace) -> None:
    try:
        socket.create_connection(("127.0.0.1", 5672), timeout=1).close()
    except OSError:
        sys.exit("RabbitMQ does not answer on 127.0.0.1:5672 (rabbitmq-server -detached)")
    single, clustered = Cluster(args), ClusterStack(args)
    stacks = {"single Redis": single, "Redis Cluster + RabbitMQ": clustered}
    try:
        for s in stacks.values():
            s.start()
        svcs = {"single Redis": _services(single, single.redis_url),
                "Redis Cluster + RabbitMQ": _services(clustered, AMQP)}
        print(f"machine: {os.cpu_count()} cores; both stacks: gunicorn {args.web_workers}x{args.web_threads}, celery "
              f"prefork {args.worker_concurrency}; {args.sessions} concurrent games each, a load thread each; {args.seconds:.0f} s each; "
              f"cluster: 3 masters + 3 replicas, " + (f"WAIT 1 {args.wait_ms} ms" if args.wait_ms else "no WAIT"))
        games = {name: new_games(svc, args.sessions, "7" if name == "single Redis" else "6")
                 for name, svc in svcs.items()}
        moves = {name: 0 for name in stacks}
        commands = {name: 0 for name in stacks}
        by_command: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in stacks}
        cpu: dict[str, dict[str, float]] = {name: {} for name in stacks}
        lat: dict[str, dict[str, list[float]]] = {name: {"webhook": [], "to_outbox": []} for name in stacks}
        slice_s = args.seconds / args.rounds
        # a thread per game on both stacks: each waits for its game's stream with a blocking XREAD of one key
        # (the one form a cluster takes); sharing a thread between games would make the cluster's load
        # generator poll, and its polls ate more CPU of these two cores than the whole stack under test
        threads = args.sessions
        for _ in range(args.rounds):
            for name, stack in stacks.items():
                groups: dict[str, Any] = {n: p.pid for n, p in zip(("redis", "web", "worker"), stack.procs)}
                cpu0, n0 = cpu_by_group(groups), commands_processed(svcs[name].redis)
                calls0 = command_calls(svcs[name].redis)
                moves[name] += run_moves(svcs[name], stack.base, games[name], threads, slice_s, lat[name],
                                         renew="7" if name == "single Redis" else "6")
                cpu1 = cpu_by_group(groups)
                commands[name] += commands_processed(svcs[name].redis) - n0
                by_command[name].update(command_calls(svcs[name].redis) - calls0)
                for k in cpu1:
                    cpu[name][k] = cpu[name].get(k, 0.0) + cpu1[k] - cpu0[k]
        rates = {name: moves[name] / args.seconds for name in stacks}
        for name in stacks:
            print(f"{name}: {rates[name]:.0f} moves/s ({moves[name]} moves); CPU per move (ms): "
                  + ", ".join(f"{k} {v / max(moves[name], 1) * 1000:.2f}" for k, v in cpu[name].items())
                  + f"; Redis commands per move {commands[name] / max(moves[name], 1):.1f}")
            print(f"  webhook p50 {pct(lat[name]['webhook'], 50) * 1000:.1f} ms p99 "
                  f"{pct(lat[name]['webhook'], 99) * 1000:.1f} ms; webhook -> outbox p50 "
                  f"{pct(lat[name]['to_outbox'], 50) * 1000:.1f} ms p99 {pct(lat[name]['to_outbox'], 99) * 1000:.1f} ms")
            calls, n = by_command[name], max(moves[name], 1)
            calls.pop("info", None)
            watch = calls.pop("xread", 0)  # the load generator's reads of the games' streams, not the service's
            print(f"  by command (the load generator's XREAD apart, {watch / n:.1f} a move: "
                  f"{sum(calls.values()) / n:.1f} a move): "
                  + ", ".join(f"{c} {k / n:.2f}" for c, k in calls.most_common() if k / n >= 0.05))
        print(f"ratio cluster / single: {rates['Redis Cluster + RabbitMQ'] / max(rates['single Redis'], 1e-9):.2f}")
    finally:
        for s in stacks.values():
            s.stop()

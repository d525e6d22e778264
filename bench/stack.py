"""The stack a load benchmark drives, and how its figures are taken.

:class:`Cluster` starts a ``redis-server`` (appendonly, on a free port), gunicorn and a Celery worker as
separate processes, as the Procfile does (``bench/load_app.py``: the service plus the baseline's bare
route); :func:`cpu_by_group` reads the CPU each process group has used so far, :func:`pct` takes a
percentile. Used by ``bench/load.py`` and ``bench/load_cluster.py``.
"""

from __future__ import annotations

import argparse
import collections
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
import requests
from redis.cluster import RedisCluster

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def worker_command(venv_bin: Path, args: argparse.Namespace) -> list[str]:
    """The Celery worker as the benchmark starts it: one prefork worker of ``--worker-concurrency`` processes, or with
    ``--worker-pool solo`` as many workers of the solo pool (each takes its task and runs it in its own process,
    without the prefork pool's hand-over to a child), in one process group."""
    cmd = [str(venv_bin / "celery"), "-A", "load_app:celery", "worker", "--loglevel=WARNING", "--without-gossip",
           "--without-mingle", "--without-heartbeat"]
    if args.worker_pool != "solo":
        return [*cmd, "--concurrency", str(args.worker_concurrency)]
    one = " ".join(shlex.quote(c) for c in [*cmd, "--pool", "solo"])
    return ["sh", "-c", " ".join(f"{one} -n solo{i}@%h &" for i in range(args.worker_concurrency)) + " wait"]


class Cluster:
    """redis-server + gunicorn + celery worker processes."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="slowspades-load-"))
        self.redis_port, self.web_port = free_port(), free_port()
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        self.base = f"http://127.0.0.1:{self.web_port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.args = args

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "SLOWSPADES_REDIS_URL": self.redis_url, "SLOWSPADES_PUBLIC_BASE_URL": self.base,
            "SLOWSPADES_TWILIO_AUTH_TOKEN": TOKEN, "SLOWSPADES_DELIVERY": "local",
            # bots play far faster than people: limits too high to bite, but counted as in production
            # (the flood counter at the webhook, the day's SMS count at each delivery: service.limits)
            "SLOWSPADES_LIMIT_MESSAGES_PER_MINUTE": "1000000", "SLOWSPADES_SMS_DAILY_CAP": "1000000000",
            "PYTHONPATH": f"{ROOT / 'bench'}:{ROOT}",
        })
        if self.args.cache:
            env["SLOWSPADES_GAME_CACHE_SIZE"] = str(self.args.cache)
        return env

    def start(self) -> None:
        exe = shutil.which("redis-server") or sys.exit("redis-server is needed")
        self._spawn("redis", [exe, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--dir", str(self.tmp),
                              "--appendonly", "yes", "--save", ""])
        client = redis.Redis.from_url(self.redis_url)
        self._wait(lambda: client.ping(), "redis")
        venv_bin = Path(sys.executable).parent
        self._spawn("web", [str(venv_bin / "gunicorn"), "--bind", f"127.0.0.1:{self.web_port}", "--workers",
                            str(self.args.web_workers), "--threads", str(self.args.web_threads), "load_app:flask_app"])
        self._spawn("worker", worker_command(venv_bin, self.args))
        self._wait(lambda: requests.get(self.base + "/healthz", timeout=1).status_code == 200, "web")
        time.sleep(2)  # let the worker connect

    def _spawn(self, name: str, cmd: list[str]) -> None:
        log = open(self.tmp / f"{name}.log", "wb")
        self.procs.append(subprocess.Popen(cmd, env=self.env(), cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT,
                                           start_new_session=True))

    @staticmethod
    def _wait(pred: Any, what: str) -> None:
        for _ in range(300):
            try:
                if pred():
                    return
            except Exception:  # noqa: BLE001 - not up yet
                pass
            time.sleep(0.1)
        sys.exit(f"{what} did not start")

    def stop(self) -> None:
        for p in reversed(self.procs):
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            print("logs kept in", self.tmp)


def cpu_by_group(groups: dict[str, int]) -> dict[str, float]:
    """CPU seconds used so far by each process group (and by this process), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {name: 0.0 for name in groups}
    by_pgid = {pgid: name for name, pgid in groups.items()}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = by_pgid.get(int(fields[2]))
        if name:
            out[name] += (int(fields[11]) + int(fields[12])) / tick
    t = os.times()
    out["load generator"] = t.user + t.system
    return out


def command_calls(r: Any) -> collections.Counter[str]:
    """Calls so far by command on the Redis masters (``INFO commandstats``; a script's ``EVALSHA`` and each
    command in it count)."""
    nodes = list(r.info("commandstats", target_nodes=RedisCluster.PRIMARIES).values()) \
        if isinstance(r, RedisCluster) else [r.info("commandstats")]
    out: collections.Counter[str] = collections.Counter()
    for stats in nodes:
        for name, row in stats.items():
            out[name.removeprefix("cmdstat_")] += int(row["calls"])
    return out

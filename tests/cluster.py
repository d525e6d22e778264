"""A real Redis Cluster for the tests: three masters with one replica each, on free loopback ports.

:func:`start` launches six ``redis-server --cluster-enabled yes`` and joins them with
``redis-cli --cluster create ... --cluster-replicas 1``, then waits for ``cluster_state:ok`` on every
node and for every replica to be in sync. The short ``cluster-node-timeout`` lets a replica take over
a killed master within about a second (the failover test).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

NODE_TIMEOUT_MS = 1000


def _free_ports(n: int) -> list[int]:
    """``n`` free loopback ports whose cluster bus ports (+10000) are free too."""
    ports: list[int] = []
    while len(ports) < n:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535 or port in ports:
            continue
        try:
            with socket.socket() as b:
                b.bind(("127.0.0.1", port + 10000))
        except OSError:
            continue
        ports.append(port)
    return ports


@dataclass
class Cluster:
    """The running nodes: ``ports[i]`` served by ``procs[i]``."""

    ports: list[int]
    procs: list[subprocess.Popen]  # type: ignore[type-arg]
    dir: Path
    exe: str = "redis-server"
    killed: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

    def masters(self) -> list[int]:
        """The ports of the live masters."""
        out = []
        for port in self.ports:
            if port in self.killed:
                continue
            if self.node(port).info("replication")["role"] == "master":
                out.append(port)
        return out

    def replica_of(self, master_port: int) -> int:
        for port in self.ports:
            if port in self.killed or port == master_port:
                continue
            info = self.node(port).info("replication")
            if info["role"] == "slave" and int(info["master_port"]) == master_port:
                return port
        raise LookupError(f"no replica of {master_port}")

    def kill(self, port: int) -> None:
        """SIGKILL the node on ``port`` (no goodbye to its replica)."""
        proc = self.procs[self.ports.index(port)]
        proc.kill()
        proc.wait(10)
        self.killed.append(port)

    def restart(self, port: int) -> None:
        """Start again a killed node (it rejoins, as a replica of whoever took its slots)."""
        i = self.ports.index(port)
        self.procs[i] = _spawn(self.exe, port, self.dir)
        self.killed.remove(port)
        wait_ok(self, 30)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _spawn(exe: str, port: int, base: Path) -> subprocess.Popen:  # type: ignore[type-arg]
    d = base / str(port)
    d.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(d),
                             "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                             "--cluster-node-timeout", str(NODE_TIMEOUT_MS), "--save", "", "--appendonly", "no",
                             "--repl-diskless-sync-delay", "0",
                             "--protected-mode", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_ok(cluster: Cluster, timeout_s: float) -> None:
    """Until every live node says ``cluster_state:ok`` and every replica is in sync with its master."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            live = [p for p in cluster.ports if p not in cluster.killed]
            ok = all(cluster.node(p).cluster("info")["cluster_state"] == "ok" for p in live)
            synced = all(cluster.node(p).info("replication").get("master_link_status", "up") == "up" for p in live)
            if ok and synced:
                return
        except (redis.RedisError, KeyError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the Redis Cluster did not reach cluster_state:ok")
        time.sleep(0.1)


def start(base: Path, timeout_s: float = 60, attempts: int = 3) -> Cluster:
    """Six nodes (three masters, one replica each) joined into a cluster; raises if it does not come up.
    Tried again on other ports if one of the free ports was taken meanwhile (by another xdist worker's server)."""
    exe = shutil.which("redis-server")
    cli = shutil.which("redis-cli")
    if not exe or not cli:
        raise RuntimeError("redis-server / redis-cli not found: apt-get install redis-server")
    for _attempt in range(attempts):
        ports = _free_ports(6)
        procs = [_spawn(exe, p, base) for p in ports]
        cluster = Cluster(ports, procs, base, exe)
        try:
            if not all(_own_node(cluster, i) for i in range(len(ports))):
                cluster.stop()
                continue
            subprocess.run([cli, "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports], "--cluster-replicas",
                            "1", "--cluster-yes"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                           timeout=timeout_s)
            wait_ok(cluster, timeout_s)
        except BaseException:
            cluster.stop()
            raise
        return cluster
    raise RuntimeError(f"the Redis Cluster's nodes did not start ({attempts} tries)")


def _own_node(cluster: Cluster, i: int) -> bool:
    """Node ``i`` answers, from its own process (not another server that took its port first)."""
    proc, client = cluster.procs[i], cluster.node(cluster.ports[i])
    deadline = time.monotonic() + 10
    while proc.poll() is None:
        try:
            return int(client.info("server")["process_id"]) == proc.pid
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
    return False


def flush(cluster: Cluster) -> None:
    """Empty every master (the replicas follow)."""
    for port in cluster.masters():
        cluster.node(port).flushall()

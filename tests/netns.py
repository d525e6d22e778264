"""A simulated network for the partition tests and ``bench/partitions.py``: each Redis Cluster node, and the web and
worker processes, in a network namespace of its own, all joined by veth pairs to one bridge.

The layout (``ip netns``, ``ip link``; root needed):

* a hub namespace holding the bridge; every other namespace has one veth (``eth0``, 10.X.Y.n/24) whose peer is a
  port of that bridge; the test process's own (root) namespace has one too (10.X.Y.1): the driver, playing Twilio,
  reaches the web from outside any partition; the Celery broker (a plain ``redis-server``) has a namespace of its own,
  never cut off;
* a node runs ``redis-server`` on port 7000 in its namespace, behind :mod:`tests.netproxy` on port 7100 (the port
  it announces: clients and its replica reach it through the proxy, so delay and loss can be put on the path to
  it); its cluster bus is on 17000, direct;
* a partition (:meth:`Net.cut`) is ``blackhole`` routes in the namespaces on each side towards the other side's
  addresses: what was sent is dropped silently, both ways (this kernel has no ``netem`` qdisc and the image no
  nftables; routes are enough for a cut, and the proxy gives delay and loss); :meth:`Net.heal` removes them.

:func:`available` says why namespaces cannot be made here (not root, no ``ip``, no permission), for a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import redis

from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]
NODE_PORT, PROXY_PORT, BUS_PORT = 7000, 7100, 17000
PREFIX = "ssn"  # every namespace and link made here starts with it (and the maker's pid)


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), check=check, capture_output=True, text=True, timeout=30)


def available() -> str | None:
    """None if network namespaces can be made here; else why not (for ``pytest.skip``)."""
    if shutil.which("ip") is None:
        return "no `ip` command (Debian: apt-get install iproute2)"
    if os.geteuid() != 0:
        return "network namespaces need root (the partition tests run as root in CI)"
    name = f"{PREFIX}{os.getpid()}probe"
    made = run("ip", "netns", "add", name, check=False)
    if made.returncode != 0:
        return f"`ip netns add` failed: {made.stderr.strip()}"
    run("ip", "netns", "del", name, check=False)
    return None


def clean_stale() -> None:
    """Remove the namespaces (and with them their links) left by runs whose process is gone."""
    out = run("ip", "netns", "list", check=False).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        if not name.startswith(PREFIX):
            continue
        pid = "".join(c for c in name[len(PREFIX):].split("-")[0] if c.isdigit())
        if pid and not Path(f"/proc/{pid}").exists():
            run("ip", "netns", "del", name, check=False)


@dataclass
class Host:
    """A namespace on the bridge: its name and address."""

    name: str
    ns: str
    ip: str
    outside: bool = False

    def exec(self, cmd: list[str]) -> list[str]:
        """``cmd`` run inside this namespace."""
        return ["ip", "netns", "exec", self.ns, *cmd]


class Net:
    """The bridge and the namespaces on it; :meth:`cut` and :meth:`heal` make and end partitions."""

    def __init__(self) -> None:
        pid = os.getpid()
        self.tag = f"{PREFIX}{pid}"
        self.net = f"10.{200 + pid % 50}.{(pid // 50) % 250}"
        self.hub = f"{self.tag}-hub"
        self.hosts: dict[str, Host] = {}
        self.cuts: list[tuple[Host, str]] = []  # (namespace, address) blackholed
        clean_stale()
        run("ip", "netns", "add", self.hub)
        self._ns(self.hub, "ip", "link", "add", "br0", "type", "bridge")
        self._ns(self.hub, "ip", "link", "set", "br0", "up")
        self._ns(self.hub, "ip", "link", "set", "lo", "up")
        # the root namespace's port on the bridge: the driver, and the broker
        root_if = f"{self.tag}r"[-15:]
        run("ip", "link", "add", root_if, "type", "veth", "peer", "name", "hr", "netns", self.hub)
        run("ip", "addr", "add", f"{self.net}.1/24", "dev", root_if)
        run("ip", "link", "set", root_if, "up")
        self._ns(self.hub, "ip", "link", "set", "hr", "master", "br0")
        self._ns(self.hub, "ip", "link", "set", "hr", "up")
        self.root_ip = f"{self.net}.1"

    def _ns(self, ns: str, *cmd: str) -> None:
        run("ip", "netns", "exec", ns, *cmd)

    def add(self, name: str, n: int, outside: bool = False) -> Host:
        """A namespace ``name`` at address ``.n`` on the bridge (``outside``: never in a partition)."""
        host = Host(name, f"{self.tag}-{name}", f"{self.net}.{n}", outside)
        run("ip", "netns", "add", host.ns)
        peer = f"h{name}"[:15]
        run("ip", "link", "add", "eth0", "netns", host.ns, "type", "veth", "peer", "name", peer, "netns", self.hub)
        self._ns(host.ns, "ip", "addr", "add", f"{host.ip}/24", "dev", "eth0")
        self._ns(host.ns, "ip", "link", "set", "eth0", "up")
        self._ns(host.ns, "ip", "link", "set", "lo", "up")
        self._ns(self.hub, "ip", "link", "set", peer, "master", "br0")
        self._ns(self.hub, "ip", "link", "set", peer, "up")
        self.hosts[name] = host
        return host

    def cut(self, side: Iterable[Host], other: Iterable[Host] | None = None) -> None:
        """Partition ``side`` from ``other`` (default: every other namespace but those ``outside``): nothing sent from
        one to the other arrives. The root namespace (the driver) and the broker still reach both sides."""
        a = list(side)
        b = list(other) if other is not None else [h for h in self.hosts.values() if h not in a and not h.outside]
        routes: dict[str, list[str]] = {}
        for x in a:
            for y in b:
                for src, dst in ((x, y.ip), (y, x.ip)):
                    routes.setdefault(src.ns, []).append(dst)
                    self.cuts.append((src, dst))
        self._routes("add", routes)

    def heal(self) -> None:
        """End every partition."""
        routes: dict[str, list[str]] = {}
        for src, dst in self.cuts:
            routes.setdefault(src.ns, []).append(dst)
        self.cuts = []
        self._routes("del", routes, check=False)

    @staticmethod
    def _routes(verb: str, routes: dict[str, list[str]], check: bool = True) -> None:
        """``ip route <verb> blackhole`` of each address in each namespace: one ``ip -batch`` per namespace, all
        at once (the partition starts, or ends, everywhere within a few milliseconds)."""
        procs = [subprocess.Popen(["ip", "-n", ns, "-force", "-batch", "-"], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for ns in routes]
        for proc, dsts in zip(procs, routes.values()):
            assert proc.stdin is not None
            proc.stdin.write("".join(f"route {verb} blackhole {d}/32\n" for d in dsts))
            proc.stdin.close()
        for proc in procs:
            err = proc.stderr.read() if proc.stderr is not None else ""
            if proc.wait(30) != 0 and check:
                raise RuntimeError(f"ip route {verb}: {err.strip()}")

    def close(self) -> None:
        for host in self.hosts.values():
            run("ip", "netns", "del", host.ns, check=False)
        run("ip", "netns", "del", self.hub, check=False)  # the root's veth goes with its peer


@dataclass
class Node:
    host: Host
    proc: subprocess.Popen[bytes]
    proxy: subprocess.Popen[bytes]
    control: Path

    @property
    def addr(self) -> str:
        return f"{self.host.ip}:{PROXY_PORT}"

    def client(self, timeout: float = 2.0) -> redis.Redis:
        return redis.Redis(host=self.host.ip, port=PROXY_PORT, socket_timeout=timeout, socket_connect_timeout=timeout)

    def shape(self, delay_ms: float = 0, jitter_ms: float = 0, loss: float = 0.0) -> None:
        """Delay (``delay_ms`` +- ``jitter_ms``) and lose (``loss``: a segment's share that waits a retransmission)
        what goes through this node's proxy, both ways; all zero: straight through."""
        tmp = self.control.with_suffix(".tmp")
        tmp.write_text(json.dumps({"delay_ms": delay_ms, "jitter_ms": jitter_ms, "loss": loss}))
        os.replace(tmp, self.control)


@dataclass
class NetCluster:
    """Six nodes, three masters with a replica each, in namespaces ``n0``..``n5`` of :attr:`net`."""

    net: Net
    nodes: list[Node]
    dir: Path
    node_timeout_ms: int
    extra: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis+cluster://{self.nodes[0].addr}"

    def by_addr(self, addr: str) -> Node:
        host, _, port = addr.rpartition(":")
        return next(n for n in self.nodes if n.host.ip == host)

    def role(self, node: Node) -> dict[str, Any]:
        info: dict[str, Any] = node.client().info("replication")
        return info

    def master_of(self, key: str) -> Node:
        """The node serving ``key``'s slot now (asked of the nodes themselves, majority view)."""
        slot = int(self.nodes[0].client().cluster("keyslot", key))
        for node in self.nodes:
            try:
                for start, end, master, *_ in node.client().execute_command("CLUSTER", "SLOTS"):
                    if int(start) <= slot <= int(end):
                        return self.by_addr(f"{master[0].decode()}:{master[1]}")
            except redis.RedisError:
                continue
        raise LookupError(key)

    def replica_of(self, master: Node) -> Node:
        for node in self.nodes:
            if node is master:
                continue
            try:
                info = self.role(node)
            except redis.RedisError:
                continue
            if info["role"] == "slave" and info["master_host"] == master.host.ip:
                return node
        raise LookupError(f"no replica of {master.host.name}")

    def wait_ok(self, timeout_s: float = 60) -> None:
        """Until every node says ``cluster_state:ok``, agrees on three masters, and every replica is in sync."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                ok = all(n.client().cluster("info")["cluster_state"] == "ok" for n in self.nodes)
                roles = [self.role(n) for n in self.nodes]
                synced = all(r.get("master_link_status", "up") == "up" for r in roles)
                masters = sum(1 for r in roles if r["role"] == "master")
                good = all(int(r.get("connected_slaves", 1)) >= 1 for r in roles if r["role"] == "master")
                if ok and synced and masters == 3 and good:
                    return
            except (redis.RedisError, KeyError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not come back to cluster_state:ok, 3 masters, in sync")
            time.sleep(0.05)

    def stop(self) -> None:
        for node in self.nodes:
            for p in (node.proc, node.proxy):
                if p.poll() is None:
                    p.terminate()
        for node in self.nodes:
            for p in (node.proc, node.proxy):
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()


def start_cluster(net: Net, base: Path, node_timeout_ms: int = 1000, min_replicas: bool = True,
                  max_lag_s: int = 1) -> NetCluster:
    """The six nodes in namespaces ``n0``..``n5`` (addresses .10 to .15), joined into a cluster.

    ``min_replicas``: the masters refuse writes while they have no replica that acknowledged within ``max_lag_s``
    (``min-replicas-to-write 1``, ``min-replicas-max-lag``: docs/scaling.md)."""
    exe, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if not exe or not cli:
        raise RuntimeError("redis-server / redis-cli not found: apt-get install redis-server")
    extra = ["--min-replicas-to-write", "1", "--min-replicas-max-lag", str(max_lag_s)] if min_replicas else []
    nodes = []
    for i in range(6):
        host = net.add(f"n{i}", 10 + i)
        d = base / host.name
        d.mkdir(parents=True, exist_ok=True)
        control = d / "shape.json"
        control.write_text("{}")
        proc = subprocess.Popen(host.exec([
            exe, "--port", str(NODE_PORT), "--bind", f"{host.ip} 127.0.0.1", "--dir", str(d), "--cluster-enabled",
            "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", str(node_timeout_ms),
            "--cluster-announce-ip", host.ip, "--cluster-announce-port", str(PROXY_PORT),
            "--cluster-announce-bus-port", str(BUS_PORT), "--cluster-port", str(BUS_PORT),
            "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0", "--protected-mode", "no",
            "--logfile", str(d / "redis.log"), *extra]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proxy = subprocess.Popen(host.exec([sys.executable, str(ROOT / "tests" / "netproxy.py"), "--listen",
                                            f"{host.ip}:{PROXY_PORT}", "--to", f"127.0.0.1:{NODE_PORT}",
                                            "--control", str(control)]),
                                 stdout=subprocess.DEVNULL, stderr=open(d / "proxy.log", "ab"))
        nodes.append(Node(host, proc, proxy, control))
    cluster = NetCluster(net, nodes, base, node_timeout_ms, extra)
    try:
        deadline = time.monotonic() + 20
        for node in nodes:
            while True:
                try:
                    node.client().ping()
                    break
                except redis.RedisError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"node {node.host.name} did not answer") from None
                    time.sleep(0.05)
        subprocess.run([cli, "--cluster", "create", *[n.addr for n in nodes], "--cluster-replicas", "1",
                        "--cluster-yes"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, timeout=60)
        cluster.wait_ok(60)
    except BaseException:
        cluster.stop()
        raise
    return cluster


class Broker:
    """A plain ``redis-server`` in namespace ``broker`` (.2), Celery's broker: outside every partition (:meth:`Net.cut`
    leaves it out), as a broker elsewhere would be."""

    def __init__(self, net: Net, base: Path, port: int = 6379) -> None:
        host = net.add("broker", 2, outside=True)
        self.url = f"redis://{host.ip}:{port}/0"
        self.proc = subprocess.Popen(host.exec(["redis-server", "--port", str(port), "--bind", host.ip, "--save", "",
                                                "--appendonly", "no", "--protected-mode", "no", "--dir", str(base)]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(host=host.ip, port=port, socket_timeout=1)
        try:
            wait_for("the broker to start", client.ping, timeout=10, interval=0.05, ignore=(redis.RedisError,))
        except AssertionError:
            self.stop()
            raise

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def stop_group(proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM a process started with ``start_new_session`` and its children, then SIGKILL what is left."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


TOKEN = "partition-token"


class Stack:
    """The cluster (:func:`start_cluster`), Celery's broker (:class:`Broker`), and in namespace ``app`` (.30) the web
    (gunicorn) and a Celery worker (and, with ``beat``, Celery beat), configured by ``settings`` (``SLOWSPADES_*`` without the prefix). :attr:`svc`
    reads and writes the cluster from the root namespace (outside any partition); :meth:`post_sms` plays Twilio."""

    def __init__(self, base: Path, node_timeout_ms: int = 1000, min_replicas: bool = True,
                 web_workers: int = 1, worker_concurrency: int = 1, beat: bool = False, **settings: Any) -> None:
        self.base = base
        self.net = Net()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.broker: Broker | None = None
        self.cluster: NetCluster | None = None
        try:
            self.cluster = start_cluster(self.net, base / "cluster", node_timeout_ms, min_replicas)
            self.broker = Broker(self.net, base)
            self.app = self.net.add("app", 30)
            self.base_url = f"http://{self.app.ip}:8000"
            self.env = dict(os.environ)
            config = {
                "REDIS_URL": self.cluster.url, "BROKER_URL": self.broker.url, "PUBLIC_BASE_URL": self.base_url,
                "TWILIO_AUTH_TOKEN": TOKEN, "TWILIO_ACCOUNT_SID": "", "TWILIO_FROM": "+15550000000",
                "DELIVERY": "local", "SPOOL_DIR": str(base / "spool"), "SMTP_HOST": "",
                "LIMIT_MESSAGES_PER_MINUTE": 0, "SMS_DAILY_CAP": 0, "SMS_FICTIONAL_NUMBERS": True,
                "VISIBILITY_TIMEOUT": 10, "SEND_LEASE": 10, "QUEUE": "partitions", **settings}
            self.env.update({"SLOWSPADES_" + k: str(v) for k, v in config.items()})
            self.env["SLOWSPADES_BIND"] = f"{self.app.ip}:8000"
            self.env["PATH"] = f"{Path(sys.executable).parent}:{self.env.get('PATH', '')}"
            venv = Path(sys.executable).parent
            self.spawn("web", [str(venv / "gunicorn"), "--bind", f"{self.app.ip}:8000", "--workers", str(web_workers),
                               "--threads", "4", "--graceful-timeout", "5", "service:create_app()"])
            self.spawn("worker", [str(venv / "celery"), "-A", "workers.celery_app:celery", "worker", "--loglevel=INFO",
                                  f"--concurrency={worker_concurrency}", "--without-heartbeat", "--without-gossip",
                                  "--without-mingle"])
            if beat:  # the sweeps: outbox entries and inbound messages left behind by a fault
                self.spawn("beat", [str(venv / "celery"), "-A", "workers.celery_app:celery", "beat", "--loglevel=INFO",
                                    f"--schedule={base / 'celerybeat-schedule'}"])
            from redis.backoff import ExponentialBackoff
            from redis.cluster import RedisCluster
            from redis.retry import Retry

            from service.bootstrap import bootstrap
            from service.config import load_config

            # the driver's client: short timeouts and few retries, so that a read over a connection a fault left
            # dead fails in seconds (and is asked again) rather than in minutes
            client = RedisCluster(host=self.cluster.nodes[0].host.ip, port=PROXY_PORT, socket_timeout=2,
                                  socket_connect_timeout=2, retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3))
            self.svc = bootstrap(load_config(environ=self.env), client)
            self.wait_web(60)
        except BaseException:
            self.stop()
            raise

    def spawn(self, name: str, cmd: list[str]) -> None:
        out = open(self.base / f"{name}.log", "ab")
        self.procs.append(subprocess.Popen(self.app.exec(cmd), env=self.env, cwd=str(ROOT), stdout=out,
                                           stderr=subprocess.STDOUT, start_new_session=True))

    def wait_web(self, timeout_s: float) -> None:
        import requests

        wait_for(f"the web to start (see {self.base / 'web.log'})",
                 lambda: requests.get(self.base_url + "/healthz", timeout=1).status_code == 200,
                 timeout=timeout_s, interval=0.1, ignore=(requests.RequestException,))

    def post_sms(self, session: Any, sender: str, body: str, timeout: float = 30) -> tuple[int, str]:
        """A signed incoming-SMS webhook, as Twilio sends it; (HTTP status, 0 if no answer; the message id)."""
        import uuid

        import requests
        from twilio.request_validator import RequestValidator

        sid = "SM" + uuid.uuid4().hex
        params = {"MessageSid": sid, "AccountSid": "AC" + "0" * 32, "From": sender, "To": "+15550000000",
                  "Body": body, "NumMedia": "0"}
        sig = RequestValidator(TOKEN).compute_signature(self.base_url + "/sms", params)
        try:
            resp = session.post(self.base_url + "/sms", data=params, headers={"X-Twilio-Signature": sig},
                                timeout=timeout)
            return resp.status_code, "sms:" + sid
        except requests.RequestException:
            return 0, "sms:" + sid

    def spooled(self) -> int:
        spool = self.base / "spool"
        return sum(1 for f in spool.glob("*") if not f.name.startswith(".")) if spool.exists() else 0

    def stop(self) -> None:
        for proc in self.procs:
            stop_group(proc, 1)
        if self.broker is not None:
            self.broker.stop()
        if self.cluster is not None:
            self.cluster.stop()
        self.net.close()

"""Chaos run (on demand: ``.venv/bin/python bench/chaos.py``); prints what was lost, doubled or rejected.

It starts, as the Procfile does (each under ``service.supervise``), gunicorn, a Celery worker and
the beat, with a ``redis-server`` of its own (appendonly, ``--appendfsync``), and plays ``--games``
games between ``basic`` bots through signed ``/sms`` webhooks (each game closed-loop: its next move
is sent once the previous one is in its stream). Meanwhile it SIGKILLs, at random moments, the
worker, the beat (their whole process group: the supervisor starts them again, as the Procfile
and a systemd unit with ``Restart=always`` would) and Redis (started again after a random 0.5 to
3 s, as its service manager would; at least ``--redis-kills`` times, all while moves are flowing).

Twilio's delivery receipts arrive all the while: for every SMS the service "sends" (the local outbox holds what
Twilio would have been handed), a thread posts Twilio-signed status callbacks to ``/sms/status`` as Twilio does,
``sent`` then ``delivered``, a fifth of them twice and a fifth out of order (``delivered`` first), Redis kills or
not. Twilio does not send a status callback again: one that comes while Redis is down is kept in the web's disk
spool (answered 204, recorded once Redis answers); one answered 503 (the disk failed too) is lost (counted).

Then it lets everything settle and prints:

* moves answered 200, applied, lost (answered 200, never handled), applied twice; moves answered 200
  and refused when handled (a player's resend after a failed webhook, say: not lost);
* outbox entries sent, unsent (still queued or sending), sent twice (the local outbox holds the
  entry more than once), failed;
* games that ``slowspades games verify`` rejects;
* receipts posted, answered 204 (recorded, or spooled while Redis was down), lost (503) or answered otherwise (a
  failure), and the entries they marked delivered;
* worker restarts caused by Redis: the supervisor's restarts of the worker beyond the kills above;
* the moves sent before a Redis restart and applied after it, and the longest time from Redis answering
  again to such a move applied.

Goal: 0 lost (moves and receipts), 0 applied twice, 0 unsent, 0 sent twice, 0 rejected, 0 worker restarts caused
by Redis, and every move applied within 10 s of Redis answering again.

Options: ``--games 8 --target 500 --seconds 900 --redis-kills 6 --worker-kills 4 --beat-kills 3
--appendfsync always --seed N``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis
import requests
from twilio.request_validator import RequestValidator

from bench.games import GameDriver
from bench.stack import ROOT
from service.bootstrap import Dependencies, bootstrap
from service.config import load_config
from service.delivery import deliver
from service.lifecycle.invitations import create_game
from service.operator.games import verify_game
from service.store.base import log_digest
from service.store.keys import shards

TOKEN = "chaos-token"
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


class Cluster:
    """redis-server, and web, worker and beat each under ``service.supervise``."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="slowspades-chaos-"))
        self.redis_port, self.web_port = free_port(), free_port()
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        self.base = f"http://127.0.0.1:{self.web_port}"
        self.redis: subprocess.Popen[bytes] | None = None
        self.supervisors: dict[str, subprocess.Popen[bytes]] = {}
        self.kills: Counter[str] = Counter()
        self.under_load: Counter[str] = Counter()
        self.redis_up: list[float] = []  # when each restarted Redis answered again (time.monotonic)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "SLOWSPADES_REDIS_URL": self.redis_url, "SLOWSPADES_PUBLIC_BASE_URL": self.base,
            "SLOWSPADES_BIND": f"127.0.0.1:{self.web_port}",
            "SLOWSPADES_TWILIO_AUTH_TOKEN": TOKEN, "SLOWSPADES_DELIVERY": "local",
            "SLOWSPADES_SPOOL_DIR": str(self.tmp / "spool"),
            # bots play far faster than people: no flood limit, no daily SMS cap (service.limits)
            "SLOWSPADES_LIMIT_MESSAGES_PER_MINUTE": "0", "SLOWSPADES_SMS_DAILY_CAP": "0",
            # settle quickly after a crash (the defaults are minutes)
            "SLOWSPADES_VISIBILITY_TIMEOUT": "10", "SLOWSPADES_SEND_LEASE": "10",
            "SLOWSPADES_SWEEP_AFTER": "5", "SLOWSPADES_SWEEP_EVERY": "3",
            "SLOWSPADES_BOT_DELAY": "0.5", "SLOWSPADES_ALIVE_PROBE_EVERY": "3",
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        })
        return env

    def start_redis(self) -> None:
        exe = shutil.which("redis-server") or sys.exit("redis-server is needed")
        out = open(self.tmp / "redis.log", "ab")
        self.redis = subprocess.Popen([exe, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--dir",
                                       str(self.tmp), "--appendonly", "yes", "--appendfsync", self.args.appendfsync,
                                       "--save", ""], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        client = redis.Redis.from_url(self.redis_url, socket_timeout=1)
        for _ in range(600):
            try:
                client.ping()
                if self.kills["redis"]:  # a restart, not the first start
                    self.redis_up.append(time.monotonic())
                return
            except UNREACHABLE:
                time.sleep(0.05)
        sys.exit("redis-server did not start")

    def kill_redis(self) -> None:
        assert self.redis is not None
        self.redis.send_signal(signal.SIGKILL)
        self.redis.wait(10)
        self.kills["redis"] += 1

    def supervise(self, name: str, cmd: list[str], alive: bool = False) -> None:
        sup = [sys.executable, "-m", "service.supervise", "--name", name]
        if alive:
            sup += ["--alive-file", str(self.tmp / f"{name}.alive"), "--alive-within", "30"]
        out = open(self.tmp / f"{name}.log", "ab")
        self.supervisors[name] = subprocess.Popen([*sup, "--", *cmd], env=self.env(), cwd=str(ROOT), stdout=out,
                                                  stderr=subprocess.STDOUT, start_new_session=True)

    def start(self) -> None:
        self.start_redis()
        venv = Path(sys.executable).parent
        self.supervise("web", [str(venv / "gunicorn"), "--bind", f"127.0.0.1:{self.web_port}", "--workers", "2",
                               "--threads", "4", "service:create_app()"])
        pool = ["--pool=solo"] if self.args.worker_pool == "solo" else ["--concurrency=2"]
        self.supervise("worker", [str(venv / "celery"), "-A", "workers.celery_app:celery", "worker",
                                  "--loglevel=INFO", *pool, "--without-gossip", "--without-mingle"],
                       alive=True)
        self.supervise("beat", [str(venv / "celery"), "-A", "workers.celery_app:celery", "beat", "--loglevel=INFO",
                                f"--schedule={self.tmp / 'celerybeat-schedule'}"])
        for _ in range(300):
            try:
                if requests.get(self.base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.1)
        else:
            sys.exit("web did not start")
        for _ in range(300):  # the worker and the beat started (what a kill needs): moves wait for them in Redis
            if all(self.child_of(name) is not None for name in ("worker", "beat")):
                break
            time.sleep(0.1)

    def child_of(self, name: str) -> int | None:
        """The pid of the process a supervisor runs now (its process group leader)."""
        sup = self.supervisors[name]
        out = subprocess.run(["pgrep", "-P", str(sup.pid)], capture_output=True, text=True).stdout.split()
        return int(out[0]) if out else None

    def kill(self, name: str) -> bool:
        pid = self.child_of(name)
        if pid is None:
            return False
        try:
            os.killpg(pid, signal.SIGKILL)  # the whole group, pool processes included
        except ProcessLookupError:
            return False
        self.kills[name] += 1
        return True

    def restarts(self, name: str) -> int:
        return self.log_count(name, "starting it again")

    def log_count(self, name: str, text: str) -> int:
        return (self.tmp / f"{name}.log").read_text(errors="replace").count(text)

    def stop(self) -> None:
        for sup in self.supervisors.values():
            try:
                os.killpg(sup.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for sup in self.supervisors.values():
            try:
                sup.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(sup.pid, signal.SIGKILL)
        if self.redis is not None and self.redis.poll() is None:
            self.redis.terminate()
            self.redis.wait(20)
        if os.environ.get("CHAOS_KEEP"):
            print("logs kept in", self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered: dict[str, str] = {}  # message id -> sender, for moves answered 200
        self.not_200 = 0
        self.stalls = 0
        self.applied = 0  # moves seen applied (in their game's stream)
        self.after_redis: list[float] = []  # for a move sent before a Redis restart and applied after it: seconds
        #                                     from Redis answering again to the move applied


class Receipts:
    """Twilio's side of the delivery receipts: signed status callbacks for every SMS the local outbox received."""

    def __init__(self, svc: Dependencies, base: str, seed: int, token: str = TOKEN) -> None:
        self.svc, self.base, self.rng, self.token = svc, base, random.Random(seed), token  # token: the web's Auth Token
        self.cursor = "-"
        self.answers: Counter[int] = Counter()  # HTTP status -> callbacks answered so
        self.messages = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def post(self, session: requests.Session, outbox_id: str, status: str) -> None:
        url = f"{self.base}/sms/status?o={quote(outbox_id, safe='')}"
        params = {"MessageSid": "SM" + uuid.uuid5(uuid.NAMESPACE_URL, outbox_id).hex, "MessageStatus": status,
                  "AccountSid": "AC" + "0" * 32, "From": "+15550000000"}
        sig = RequestValidator(self.token).compute_signature(url, params)
        try:
            code = session.post(url, data=params, headers={"X-Twilio-Signature": sig}, timeout=30).status_code
        except requests.RequestException:
            code = 0
        self.answers[code] += 1

    def catch_up(self, session: requests.Session) -> int:
        """The callbacks of the messages the local outbox received since the last call; how many messages."""
        try:
            found = self.svc.store.read_local(count=500, after=self.cursor)
        except UNREACHABLE:
            return 0
        for cursor, message in found:
            self.cursor = "(" + cursor
            if message.get("channel") != "sms" or "#" not in str(message.get("id", "")):
                continue
            self.messages += 1
            roll = self.rng.random()
            order = ["delivered", "sent"] if roll < 0.2 else ["sent", "delivered"]
            if roll > 0.8:
                order += order
            for status in order:
                self.post(session, str(message["id"]), status)
        return len(found)

    def run(self) -> None:
        session = requests.Session()
        while not self.stop.is_set():
            if not self.catch_up(session):
                self.stop.wait(0.2)

    def finish(self) -> None:
        """Stop once the callbacks of every message the local outbox holds now are posted."""
        self.stop.set()
        self.thread.join(60)
        session = requests.Session()
        while self.catch_up(session):
            pass


def post_move(session: requests.Session, base: str, sender: str, body: str) -> tuple[int, str]:
    sid = "SM" + uuid.uuid4().hex
    params = {"MessageSid": sid, "AccountSid": "AC" + "0" * 32, "From": sender, "To": "+15550000000",
              "Body": body, "NumMedia": "0"}
    sig = RequestValidator(TOKEN).compute_signature(base + "/sms", params)
    try:
        resp = session.post(base + "/sms", data=params, headers={"X-Twilio-Signature": sig}, timeout=30)
        return resp.status_code, "sms:" + sid
    except requests.RequestException:
        return 0, "sms:" + sid


def one_move(p: GameDriver, post: Callable[[str, str], tuple[int, str]], tally: Tally, wait_s: float,
             unreachable: tuple[type[Exception], ...] = UNREACHABLE) -> tuple[float, float] | None:
    """The driver's next move sent (``post(sender, text)``: HTTP status, message id), then wait until the stream moves
    on: (sent, applied) times; None if not answered 200 (counted: the player sends it again) or not applied within
    ``wait_s`` (a stall, counted: the caller reads the game again and sends what it then finds)."""
    version = p.game.version
    sender, text = p.next_text()
    sent_at = time.monotonic()
    code, mid = post(sender, text)
    if code != 200:
        with tally.lock:
            tally.not_200 += 1
        time.sleep(0.5)
        return None
    with tally.lock:
        tally.answered[mid] = sender
    until = time.monotonic() + wait_s
    while time.monotonic() < until:
        try:
            if p.svc.store.version(p.gid) > version:
                with tally.lock:
                    tally.applied += 1
                return sent_at, time.monotonic()
        except unreachable:
            pass
        time.sleep(0.05)
    with tally.lock:
        tally.stalls += 1
    return None


def play(p: GameDriver, base: str, tally: Tally, deadline: float, redis_up: list[float]) -> None:
    """Closed loop: a move, then wait until the stream moves on (a stall: re-read and send the move again)."""
    session = requests.Session()
    while time.monotonic() < deadline:
        try:
            p.catch_up()
        except UNREACHABLE:
            time.sleep(0.5)
            continue
        if p.game.phase == "over":
            return
        done = one_move(p, lambda sender, text: post_move(session, base, sender, text), tally, 120)
        if done is not None:
            sent_at, applied_at = done
            back = [u for u in list(redis_up) if sent_at < u <= applied_at]
            if back:
                with tally.lock:
                    tally.after_redis.append(applied_at - max(back))


def setup_sent(svc: Dependencies, outbox_ids: list[str]) -> None:
    """The messages of a game the run set up (its invitation) sent at once, as the worker sends a new game's: left
    to the outbox sweep, they went only once their game had been quiet ``SWEEP_AFTER`` s (each move marks its game's
    outbox dirty again), i.e. while the run settled."""
    for outbox_id in outbox_ids:
        svc.inject(deliver)(outbox_id)


def wait_flowing(tally: Tally, moves: int, timeout: float = 60) -> None:
    """Until ``moves`` moves have been applied (the worker is up, the games are played): the faults then come
    while moves flow."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with tally.lock:
            if tally.applied >= moves:
                return
        time.sleep(0.05)
    log(f"fewer than {moves} moves applied after {timeout:.0f} s")


def chaos(cluster: Cluster, args: argparse.Namespace, stop: threading.Event, rng: random.Random,
          playing: Any) -> None:
    """The planned kills, in random order at random moments; ``playing()``: whether moves are flowing."""
    plan = ["redis"] * args.redis_kills + ["worker"] * args.worker_kills + ["beat"] * args.beat_kills
    rng.shuffle(plan)
    for victim in plan:
        if stop.wait(rng.uniform(args.min_gap, args.max_gap)):
            break
        if playing():
            cluster.under_load[victim] += 1
        if victim == "redis":
            cluster.kill_redis()
            down = rng.uniform(0.5, 3.0)
            log(f"SIGKILL redis (down {down:.1f} s)")
            time.sleep(down)
            cluster.start_redis()
        else:
            log(f"SIGKILL {victim}: {'done' if cluster.kill(victim) else 'not running'}")


def settle(svc: Dependencies, cluster: Cluster, timeout: float) -> None:
    """Until the spool is empty, no inbound message is pending, and no outbox entry is queued or sending."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            spool = [f for f in (cluster.tmp / "spool").glob("*") if not f.name.startswith(".")] \
                if (cluster.tmp / "spool").exists() else []
            busy = bool(spool) or any(svc.redis.zcard(k) for k in shards("inpend"))
            if not busy:
                for key in svc.redis.scan_iter("*:outq", count=1000):
                    if svc.redis.zcard(key):
                        busy = True
                        break
            if not busy:
                return
        except UNREACHABLE:
            pass
        time.sleep(0.2)
    log("did not settle in time")


def report(svc: Dependencies, tally: Tally, gids: list[str], receipts: Receipts) -> dict[str, int]:
    applied: Counter[str] = Counter()  # by digest: a game's head and archive keep message ids as digests
    for gid in gids:
        for se in svc.store.load(gid):
            if se.message_id and se.time_ms is not None:
                applied[log_digest(se.message_id)] += 1
    by_digest = {log_digest(mid): mid for mid in tally.answered}
    answered = set(by_digest)
    refused = lost = 0
    for mid in (by_digest[d] for d in answered - set(applied)):
        sender = tally.answered[mid]
        if svc.store.inbound(sender, mid) == {"status": "done"}:
            refused += 1  # handled: a stale resend answered with a reply, no event
        else:
            lost += 1
    sent_ids: Counter[str] = Counter(m["id"] for _i, m in svc.store.read_local(count=10_000_000))
    statuses: Counter[str] = Counter()
    for key in svc.redis.scan_iter("*:outbox", count=1000):
        owner = key.decode()[1:-len("}:outbox")]
        for e in svc.store.outbox_entries(owner):
            statuses[e["status"]] += 1
    rejected = [gid for gid in gids if not verify_game(svc.store, gid)["ok"]]
    return {
        "moves answered 200": len(answered),
        "moves applied": len(answered & set(applied)),
        "moves lost": lost,
        "moves applied twice": sum(1 for mid in answered if applied[mid] > 1),
        "moves refused when handled (stale resends)": refused,
        "webhooks not answered 200 (sent again)": tally.not_200,
        "outbox entries sent": len(sent_ids),
        "outbox entries unsent": statuses["queued"] + statuses["sending"],
        "outbox entries sent twice": sum(1 for n in sent_ids.values() if n > 1),
        "outbox entries failed": statuses["failed"],
        "outbox entries delivered (receipts; of those a finished game keeps)": statuses["delivered"],
        "outbox entries left 'sent' (no receipt recorded)": statuses["sent"],
        "receipts posted": sum(receipts.answers.values()),
        "receipts answered 204 (recorded, or spooled)": receipts.answers[204],
        "receipts lost (503: not even spooled)": receipts.answers[503],
        "receipts answered otherwise": sum(n for c, n in receipts.answers.items() if c not in (204, 503)),
        "games": len(gids),
        "games over": sum(1 for gid in gids if svc.store.meta(gid).get("status") == "over"),
        "games verify rejects": len(rejected),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--target", type=int, default=500, help="points a game is played to")
    ap.add_argument("--seconds", type=float, default=900, help="longest the games are played")
    ap.add_argument("--redis-kills", type=int, default=6)
    ap.add_argument("--worker-kills", type=int, default=4)
    ap.add_argument("--beat-kills", type=int, default=3)
    ap.add_argument("--min-gap", type=float, default=3.0)
    ap.add_argument("--max-gap", type=float, default=8.0)
    ap.add_argument("--appendfsync", default="always", choices=["always", "everysec", "no"])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--worker-pool", choices=["prefork", "solo"], default="prefork",
                    help="the worker as the Procfile runs it (prefork, 2 processes) or one worker of the solo pool")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    log(f"chaos run, seed {seed}, appendfsync {args.appendfsync}")
    cluster = Cluster(args)
    cluster.start()
    try:
        cfg = load_config(environ=cluster.env())
        svc = bootstrap(cfg)
        players = [(f"+1555300{2 * i:04d}", f"+1555300{2 * i + 1:04d}") for i in range(args.games)]
        gids = []
        for i, pair in enumerate(players):
            gid = f"chaos{i}"
            made = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid,
                               pair[0], pair[1], "setup:" + gid, target=args.target)
            setup_sent(svc, made.outbox_ids)
            gids.append(gid)
        tally = Tally()
        deadline = time.monotonic() + args.seconds
        threads = [threading.Thread(target=play, args=(GameDriver(svc, g, p), cluster.base, tally, deadline,
                                                       cluster.redis_up), daemon=True)
                   for g, p in zip(gids, players)]
        stop = threading.Event()

        def playing() -> bool:
            return any(t.is_alive() for t in threads)

        monkey = threading.Thread(target=chaos, args=(cluster, args, stop, rng, playing), daemon=True)
        receipts = Receipts(svc, cluster.base, seed)
        receipts.thread.start()
        t0 = time.monotonic()
        for t in threads:
            t.start()
        wait_flowing(tally, 2 * args.games)  # moves flowing before the first kill
        monkey.start()
        monkey.join()  # every planned kill done (while the games are played)
        log(f"chaos over after {time.monotonic() - t0:.0f} s: {dict(cluster.kills)}; playing on")
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()) + 1)
        log(f"games done after {time.monotonic() - t0:.0f} s; settling")
        settle(svc, cluster, 180)
        receipts.finish()
        figures = report(svc, tally, gids, receipts)
        figures["redis kills"] = cluster.kills["redis"]
        figures["redis kills while moves were flowing"] = cluster.under_load["redis"]
        figures["worker kills"] = cluster.kills["worker"]
        figures["beat kills"] = cluster.kills["beat"]
        figures["worker restarts (supervisor)"] = cluster.restarts("worker")
        # every SIGKILL of the worker above is one restart; any other is the worker dying on its own (on a Redis
        # restart: kombu's "'NoneType' object has no attribute 'hostname'", issue 22) or found stuck
        figures["worker restarts caused by Redis (not killed)"] = max(0, cluster.restarts("worker")
                                                                      - cluster.kills["worker"])
        figures["worker unrecoverable errors (log)"] = cluster.log_count("worker", "Unrecoverable error")
        figures["beat restarts (supervisor)"] = cluster.restarts("beat")
        figures["stalled moves (no progress in 120 s)"] = tally.stalls
        waits = sorted(tally.after_redis)
        figures["moves sent before a Redis restart, applied after it"] = len(waits)
        figures["  longest from Redis answering again to applied (ms)"] = int(1000 * waits[-1]) if waits else 0
        print()
        for name, value in figures.items():
            print(f"{name:>45}: {value}")
        bad = figures["moves lost"] + figures["moves applied twice"] + figures["outbox entries unsent"] + \
            figures["outbox entries sent twice"] + figures["games verify rejects"] + \
            figures["receipts answered otherwise"] + figures["receipts lost (503: not even spooled)"] + \
            figures["worker restarts caused by Redis (not killed)"]
        return 1 if bad else 0
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())

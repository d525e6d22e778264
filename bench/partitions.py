"""Partition run (on demand, as root: ``nice .venv/bin/python bench/partitions.py``); prints what was lost, doubled,
left unsent or rejected while a nemesis cut the network between the service and its Redis Cluster.

It starts (:class:`tests.netns.Stack`) a Redis Cluster of six nodes (three masters with a replica each,
``min-replicas-to-write 1``, ``min-replicas-max-lag 1``) with each node in a network namespace of its own,
behind a delaying proxy, and the web (gunicorn), a Celery worker and beat in one more namespace; Celery's broker
is outside every partition. It plays ``--games`` games through signed ``/sms`` webhooks (each closed loop: the
next move once the previous one is in the stream; a move not answered 200 is sent again, as a player would),
while a nemesis, at random moments, does in random order ``--each`` times each of:

* ``master+clients``: a game's master, with the web and the worker, cut off from the rest (its replica and the
  other masters): the majority promotes the replica; the old master takes writes alone until it notices;
* ``master``: a game's master alone cut off (the web and worker on the majority side);
* ``replica``: a replica cut off (its master then refuses writes: ``min-replicas-to-write``);
* ``delay``: 100 to 500 ms of delay (+-20%) and 5% loss on the path to a master (its clients and its replica);

each for ``--min-fault`` to ``--max-fault`` s, then heals it and waits for the cluster to be whole again.

Twilio's delivery receipts arrive all the while (``bench.chaos.Receipts``: signed status callbacks for every SMS the
local outbox received). Then it lets everything settle and prints moves answered 200, applied, lost, applied twice;
outbox entries sent, unsent, sent twice; receipts posted, answered 204, lost; games ``verify`` rejects; and for each fault how long it lasted, the longest a move sent
during it waited to be applied, and the time from the heal until moves flow again (every game still playing has
applied a move; goal: within ``cluster-node-timeout`` + 5 s).

Goal: 0 lost (moves and receipts), 0 applied twice, 0 unsent, 0 sent twice, 0 rejected.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis
import requests

from bench.chaos import Receipts, Tally, log, one_move, report, settle, setup_sent, wait_flowing
from bench.games import GameDriver
from service.lifecycle.invitations import create_game
from tests import netns

KINDS = ("master+clients", "master", "replica", "delay")
UNREACHABLE = (redis.RedisError,)  # the driver's reads (from outside every partition) during a failover: read again


@dataclass
class Fault:
    kind: str
    start: float
    what: str = ""
    heal: float = 0.0
    flowing: float | None = None  # when every game still playing had applied a move after the heal
    longest_wait: float = 0.0  # the longest a move sent during the fault (or before its recovery) waited


@dataclass
class Progress:
    """When each game last applied a move, and every (sent, applied) pair."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    applied_at: dict[str, float] = field(default_factory=dict)
    moves: list[tuple[float, float]] = field(default_factory=list)
    over: set[str] = field(default_factory=set)
    heals: int = 0  # faults healed so far: the drivers read their games again after each


def play(stack: netns.Stack, p: GameDriver, tally: Tally, progress: Progress, stop: threading.Event) -> None:
    session = requests.Session()
    seen = progress.heals
    while not stop.is_set():
        try:
            if progress.heals != seen:  # what the driver read during a fault may be gone: read the game again
                p = GameDriver(p.svc, p.gid, p.players)
                seen = progress.heals
            p.catch_up()
        except UNREACHABLE:
            time.sleep(0.5)
            continue
        except Exception as exc:  # noqa: BLE001 - the driver's copy went wrong (a read since undone): read it again
            log(f"{p.gid}: reading the game again after {exc!r}")
            seen = -1
            time.sleep(0.5)
            continue
        if p.game.phase == "over":
            with progress.lock:
                progress.over.add(p.gid)
            return
        done = one_move(p, lambda sender, text: stack.post_sms(session, sender, text), tally, 30, UNREACHABLE)
        if done is not None:
            with progress.lock:
                progress.applied_at[p.gid] = done[1]
                progress.moves.append(done)


def nemesis(stack: netns.Stack, args: argparse.Namespace, rng: random.Random, gids: list[str],
            progress: Progress) -> list[Fault]:
    assert stack.cluster is not None
    cluster = stack.cluster
    plan = [k for k in KINDS for _ in range(args.each)]
    rng.shuffle(plan)
    faults = []
    for i, kind in enumerate(plan):
        time.sleep(rng.uniform(args.min_gap, args.max_gap))
        gid = rng.choice(gids)
        master = cluster.master_of("{g:" + gid + "}:ev")
        fault = Fault(kind, time.monotonic())
        if kind == "master+clients":
            stack.net.cut([master.host, stack.app])
            fault.what = f"{master.host.name} (master of {gid}) with web and worker"
        elif kind == "master":
            stack.net.cut([master.host])
            fault.what = f"{master.host.name} (master of {gid})"
        elif kind == "replica":
            replica = cluster.replica_of(rng.choice([n for n in cluster.nodes if cluster.role(n)["role"] == "master"]))
            stack.net.cut([replica.host])
            fault.what = f"{replica.host.name} (a replica)"
        else:
            delay = rng.uniform(100, 500)
            master.shape(delay_ms=delay, jitter_ms=delay / 5, loss=0.05)
            fault.what = f"{master.host.name} (master of {gid}): {delay:.0f} ms, 5% loss"
        time.sleep(rng.uniform(args.min_fault, args.max_fault))
        stack.net.heal()
        master.shape()
        fault.heal = time.monotonic()
        progress.heals += 1
        faults.append(fault)
        try:
            cluster.wait_ok(120)
        except RuntimeError as exc:
            log(f"fault {i + 1}: {exc}")
        playing = [g for g in gids if g not in progress.over]
        deadline = fault.heal + 120
        while time.monotonic() < deadline:
            with progress.lock:
                done = all(progress.applied_at.get(g, 0) > fault.heal for g in playing if g not in progress.over)
            if done:
                fault.flowing = time.monotonic()
                break
            time.sleep(0.05)
        flowing = f"{fault.flowing - fault.heal:.1f} s" if fault.flowing is not None else "not within 120 s"
        log(f"fault {i + 1}/{len(plan)} {kind}: {fault.what}, {fault.heal - fault.start:.1f} s; moves flow again "
            f"{flowing} after the heal")
    return faults


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--target", type=int, default=2000, help="points a game is played to")
    ap.add_argument("--each", type=int, default=10, help="faults of each kind")
    ap.add_argument("--min-fault", type=float, default=2.0, help="shortest fault, s")
    ap.add_argument("--max-fault", type=float, default=5.0)
    ap.add_argument("--min-gap", type=float, default=1.0, help="shortest time between a recovery and the next fault")
    ap.add_argument("--max-gap", type=float, default=3.0)
    ap.add_argument("--node-timeout", type=int, default=1000, help="cluster-node-timeout, ms")
    ap.add_argument("--wait-ms", type=int, default=1000, help="SLOWSPADES_REPLICA_WAIT_MS")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT):  # stopped early (even started in the background): clean up all the same
        signal.signal(sig, lambda *_: sys.exit(130))
    why = netns.available()
    if why is not None:
        sys.exit(f"no network namespaces here: {why}")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    log(f"partition run, seed {seed}, cluster-node-timeout {args.node_timeout} ms, WAIT {args.wait_ms} ms")
    base = Path(tempfile.mkdtemp(prefix="slowspades-partitions-"))
    stack = netns.Stack(base, node_timeout_ms=args.node_timeout, web_workers=2, worker_concurrency=2, beat=True,
                        REPLICA_WAIT_MS=args.wait_ms, SWEEP_AFTER=5, SWEEP_EVERY=3, ALIVE_PROBE_EVERY=3)
    try:
        svc = stack.svc
        players = [(f"+1555700{2 * i:04d}", f"+1555700{2 * i + 1:04d}") for i in range(args.games)]
        gids = [f"part{i}" for i in range(args.games)]
        for gid, pair in zip(gids, players):
            made = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid,
                               pair[0], pair[1], "setup:" + gid, target=args.target)
            setup_sent(svc, made.outbox_ids)
        tally, progress, stop = Tally(), Progress(), threading.Event()
        threads = [threading.Thread(target=play, args=(stack, GameDriver(svc, g, p), tally, progress, stop),
                                    daemon=True) for g, p in zip(gids, players)]
        receipts = Receipts(svc, stack.base_url, seed, netns.TOKEN)  # Twilio's status callbacks, through the faults too
        receipts.thread.start()
        t0 = time.monotonic()
        for t in threads:
            t.start()
        wait_flowing(tally, 2 * args.games)  # moves flowing before the first fault
        faults = nemesis(stack, args, rng, gids, progress)
        log(f"nemesis done after {time.monotonic() - t0:.0f} s; settling")
        stop.set()
        for t in threads:
            t.join(200)
        settle(svc, SimpleNamespace(tmp=base), 180)  # type: ignore[arg-type]  # it reads the spool's place
        receipts.finish()
        figures: dict[str, Any] = report(svc, tally, gids, receipts)
        figures["stalled moves (not applied in 30 s: read again, sent again)"] = tally.stalls
        print()
        for name, value in figures.items():
            print(f"{name:>45}: {value}")
        print()
        print(f"{'fault':>16} {'lasted':>7} {'longest move wait':>18} {'moves flow again after heal':>28}  what")
        limit = args.node_timeout / 1000 + 5
        late = 0
        for f in faults:
            waits = [done - sent for sent, done in progress.moves if f.start - 1 <= sent <= (f.flowing or f.heal)]
            f.longest_wait = max(waits, default=0.0)
            rec = f.flowing - f.heal if f.flowing is not None else float("inf")
            late += rec > limit
            print(f"{f.kind:>16} {f.heal - f.start:>6.1f}s {f.longest_wait:>17.1f}s {rec:>27.1f}s  {f.what}")
        for kind in KINDS:
            recs = sorted((f.flowing or float("inf")) - f.heal for f in faults if f.kind == kind)
            if recs:
                print(f"{kind:>16}: {len(recs)} faults, recovery after heal median {recs[len(recs) // 2]:.1f} s, "
                      f"longest {recs[-1]:.1f} s")
        print(f"recoveries over cluster-node-timeout + 5 s ({limit:.0f} s): {late} of {len(faults)}")
        bad = figures["moves lost"] + figures["moves applied twice"] + figures["outbox entries unsent"] + \
            figures["outbox entries sent twice"] + figures["games verify rejects"] + \
            figures["receipts lost (503: not even spooled)"] + figures["receipts answered otherwise"]
        return 1 if bad else 0
    finally:
        stack.stop()
        print("logs in", base)


if __name__ == "__main__":
    sys.exit(main())

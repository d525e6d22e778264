"""The service on a Redis Cluster (three masters, a replica each) with RabbitMQ as Celery's broker and a real
``celery worker`` process: games played through the SMS webhook, and a master SIGKILLed mid-game (its replica
taking over) with no acknowledged move lost or applied twice (``SLOWSPADES_REPLICA_WAIT_MS``).

RabbitMQ must answer on 127.0.0.1:5672 (``.ci/run`` starts it); without it these tests skip, unless
``SLOWSPADES_TEST_REQUIRE_RABBITMQ=1`` (CI), which makes them fail."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections import Counter
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from service import create_app
from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from service.store import game_owner
from service.store.base import log_digest
from tests import cluster as test_cluster
from tests.conftest import TEST_CONFIG, per_worker, spawn_worker

from .chooser import choose
from .helpers import post_sms
from .test_sms_game import load_game

AMQP = "amqp://guest:guest@127.0.0.1:5672//"
QUEUE = per_worker("slowspades-tests-cluster")  # RabbitMQ is shared by the xdist workers and by runs: a queue of each one's own
WAIT_MS = 1000
# one xdist worker runs this module's tests: its cluster and worker process are started once
pytestmark = [pytest.mark.xdist_group("rabbitmq-cluster"), pytest.mark.cluster, pytest.mark.slow]


def _rabbitmq_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5672), timeout=1):
            return True
    except OSError:
        return False


# session-scoped (in this module): the xdist worker running this group may run other tests between these two;
# the cluster and the worker process are started once, stopped at the session's end
@pytest.fixture(scope="session")
def rabbit() -> str:
    if not _rabbitmq_up():
        if os.environ.get("SLOWSPADES_TEST_REQUIRE_RABBITMQ") == "1":
            pytest.fail("RabbitMQ does not answer on 127.0.0.1:5672 (rabbitmq-server -detached)")
        pytest.skip("RabbitMQ does not answer on 127.0.0.1:5672")
    return AMQP


@pytest.fixture(scope="session")
def own_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[test_cluster.Cluster]:
    """A cluster of this module's own: the failover test changes which nodes are masters."""
    c = test_cluster.start(tmp_path_factory.mktemp("failover-cluster"))
    yield c
    c.stop()


@pytest.fixture(scope="session")
def stack(rabbit: str, own_cluster: test_cluster.Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The web app (its Flask test client) and a real worker process, on the cluster and RabbitMQ."""
    d = tmp_path_factory.mktemp("stack")
    settings = {"BROKER_URL": rabbit, "QUEUE": QUEUE, "REPLICA_WAIT_MS": WAIT_MS, "SPOOL_DIR": str(d / "spool"),
                "DELIVERY": "local"}
    app = create_app(dict(TEST_CONFIG, REDIS_URL=own_cluster.url, **settings))
    worker = spawn_worker(own_cluster.url, d / "worker.log", **settings)
    yield app, own_cluster, d
    worker.terminate()
    try:
        worker.wait(20)
    except subprocess.TimeoutExpired:
        worker.kill()
    with app.extensions["celery"].connection_for_write() as conn:  # the run's own queue, gone with it
        conn.default_channel.queue_delete(QUEUE)


def _wait(what: str, pred: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got = pred()
        except Exception:  # noqa: BLE001 - during a failover a read may fail: ask again
            got = None
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _handled(svc: Any, sender: str, mid: str) -> bool:
    return (svc.store.inbound(sender, mid) or {}).get("status") == "done"


def _start(client: Any, svc: Any, a: str, b: str) -> str:
    resp, mid = post_sms(client, a, f"NEW {b}")
    assert resp.status_code == 200
    _wait("the invitation", lambda: _handled(svc, a, mid))
    resp, yes = post_sms(client, b, "YES")
    _wait("the answer", lambda: _handled(svc, b, yes))
    return game_id_for(mid)


def _play(client: Any, svc: Any, gid: str, players: tuple[str, str], moves: int, acked: list[str],
          errors: list[str]) -> None:
    """``moves`` legal moves, one after the other; each acknowledged (200) message id goes to ``acked``."""
    try:
        for _ in range(moves):
            game = _wait("the game", lambda: load_game(svc, gid))
            if game.phase == "over":
                return
            seat = game.movers[0]
            resp, mid = post_sms(client, players[seat], command_text(choose(game, seat)))
            if resp.status_code != 200:
                continue  # not acknowledged: the sender would send it again
            acked.append(mid)
            _wait(f"{mid} handled", lambda: _handled(svc, players[seat], mid), timeout=90)
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(f"{gid}: {exc!r}")


def _applied(svc: Any, gid: str) -> Counter[str]:
    """How many events each message caused in the game's log, by its digest (:func:`log_digest`: the game's head
    keeps message ids as digests); ``acked`` ids are looked up through :func:`log_digest` too."""
    return Counter(log_digest(e.message_id) for e in svc.store.load(gid) if e.message_id)


def test_a_real_worker_on_rabbitmq_and_the_cluster_plays_moves(stack: Any) -> None:
    app, _cluster, _d = stack
    client, svc = app.test_client(), app.extensions["slowspades"]
    gid = _start(client, svc, "+15552220001", "+15552220002")
    acked: list[str] = []
    errors: list[str] = []
    _play(client, svc, gid, ("+15552220001", "+15552220002"), 20, acked, errors)
    assert errors == [] and len(acked) == 20
    applied = _applied(svc, gid)
    assert all(applied[log_digest(m)] == 1 for m in acked), applied
    _wait("the outbox sent", lambda: all(e["status"] == "sent" for e in svc.store.outbox_entries(game_owner(gid))))


def test_a_move_whose_task_rabbitmq_lost_is_played_once_the_sweep_runs(stack: Any, monkeypatch: Any) -> None:
    """The web queues the inbound task without waiting for RabbitMQ's confirm: the 200 stands on the record in Redis.
    A task the broker loses (a crash before it kept it) is queued again by the sweep, and the move is played once;
    the inbound task goes out on connections without confirms, a receipt's on the app's own, with them."""
    import service.web as web
    from service.after import sweep

    app, _cluster, _d = stack
    client, svc = app.test_client(), app.extensions["slowspades"]
    a, b = "+15552220011", "+15552220012"
    gid = _start(client, svc, a, b)
    game = _wait("the game", lambda: load_game(svc, gid))
    seat = game.movers[0]
    mover = (a, b)[seat]
    lost: list[tuple[str, str]] = []
    monkeypatch.setattr(web, "queue_inbound", lambda mid, sender: lost.append((mid, sender)))
    resp, mid = post_sms(client, mover, command_text(choose(game, seat)))
    monkeypatch.undo()
    assert resp.status_code == 200 and lost == [(mid, mover)]
    time.sleep(1.0)  # the worker is idle: nothing plays the move
    assert not _handled(svc, mover, mid) and load_game(svc, gid).version == game.version
    monkeypatch.setitem(svc.config, "SWEEP_AFTER", 0)
    assert sweep(svc.config, svc.store, app.extensions["celery"].send_task) >= 1
    _wait("the swept move handled", lambda: _handled(svc, mover, mid))
    assert load_game(svc, gid).version > game.version
    _wait("its pending mark gone", lambda: not svc.store.stale_inbound(-1))  # a second sweep: nothing to queue
    assert sweep(svc.config, svc.store, app.extensions["celery"].send_task) == 0
    assert _applied(svc, gid)[log_digest(mid)] == 1  # played once
    inbound = web.inbound_producers(app)
    assert inbound is not None
    with inbound.acquire(block=True) as producer:
        assert producer.connection.transport_options["confirm_publish"] is False
    with app.extensions["celery"].producer_pool.acquire(block=True) as producer:
        assert producer.connection.transport_options["confirm_publish"] is True


def test_a_master_killed_mid_game_loses_no_acknowledged_move(stack: Any) -> None:
    app, cluster, _d = stack
    client, svc = app.test_client(), app.extensions["slowspades"]
    players = [(f"+1555333{i:04d}", f"+1555444{i:04d}") for i in range(4)]
    gids = [_start(client, svc, a, b) for a, b in players]
    acked: dict[str, list[str]] = {g: [] for g in gids}
    errors: list[str] = []
    # 15 moves a game (there were 30): the master is killed after 12 of the 60, the rest are played across the
    # failover and after it
    threads = [threading.Thread(target=_play, args=(client, svc, g, p, 15, acked[g], errors), daemon=True)
               for g, p in zip(gids, players)]
    for t in threads:
        t.start()
    _wait("moves under way", lambda: sum(len(a) for a in acked.values()) >= 12)
    victim_key = "{g:" + gids[0] + "}:ev"
    master = int(svc.redis.get_node_from_key(victim_key).port)
    replica = cluster.replica_of(master)
    cluster.kill(master)  # SIGKILL: what the master had not replicated is gone
    subprocess.run(["redis-cli", "-p", str(replica), "cluster", "failover", "takeover"], check=True,
                   stdout=subprocess.DEVNULL, timeout=10)
    test_cluster.wait_ok(cluster, 30)
    # until the old master is back (as the replica of its old replica) the new master has no replica: its
    # games' appends are not acknowledged (ReplicaLagError: the task retries), their moves wait
    time.sleep(1.0)
    cluster.restart(master)
    for t in threads:
        t.join(300)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    for gid in gids:
        applied = _applied(svc, gid)
        assert acked[gid], gid
        lost = [m for m in acked[gid] if applied[log_digest(m)] == 0]
        twice = [m for m in acked[gid] if applied[log_digest(m)] > 1]
        assert lost == [] and twice == [], (gid, lost, twice)
    from service.cli import main

    env = {"SLOWSPADES_REDIS_URL": cluster.url, "SLOWSPADES_BROKER_URL": ""}
    out = CliRunner(env=env).invoke(main, ["games", "verify", "--all"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert all(f"{g}: OK" in out.output for g in gids), out.output

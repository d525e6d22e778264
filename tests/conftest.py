"""Shared fixtures: a real Redis, a Flask app, a real Celery worker.

The session starts its own ``redis-server`` on a free port in a temp dir unless
``REDIS_URL`` is set (then that Redis is used, and flushed between tests).

``backend`` (``single`` unless a module parametrises it, :data:`tests.backends.BOTH`) chooses the store's
Redis: the single one, or a real Redis Cluster (three masters, a replica each: :mod:`tests.cluster`)
started once per session when a test first asks for it. The Celery broker is always the single Redis
(a cluster cannot be one); the cluster's app uses a queue of its own.

Under pytest-xdist (``scripts/test`` runs a worker per core and one more) each worker process runs its own session: its own
``redis-server`` and Redis Cluster on free ports, its own temp dirs (``tmp_path_factory``), its own Celery
worker. What the workers share (RabbitMQ, a given ``REDIS_URL``) is told apart by :func:`xdist_worker`: its own
queue names, its own database of the given Redis.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis as redis_lib

from tests import inthread, pure_compose, waiting


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def xdist_worker() -> str:
    """This process's pytest-xdist worker (``gw0``, ``gw1``...), or ``""`` when the tests run in one process."""
    return os.environ.get("PYTEST_XDIST_WORKER", "")


def per_worker(name: str) -> str:
    """``name`` made this run's and this xdist worker's own (for what the workers, and two runs on one machine, share:
    RabbitMQ's queues): xdist's id of the run, else this process's."""
    worker = xdist_worker()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")[:8] or str(os.getpid())
    return f"{name}-{run}-{worker}" if worker else f"{name}-{run}"


def _given_redis_url(url: str) -> str:
    """A given ``REDIS_URL`` under xdist: each worker its own database (the given one plus its number)."""
    worker = xdist_worker()
    if not worker:
        return url
    parts = urlsplit(url)
    db = int(parts.path.strip("/") or 0) + int(worker.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{db}"))


def is_own_redis(client: redis_lib.Redis, proc: subprocess.Popen) -> bool:  # type: ignore[type-arg]
    """``client`` answers from ``proc`` (not from a server another xdist worker started on the same free port)."""
    return proc.poll() is None and int(client.info("server")["process_id"]) == proc.pid


@pytest.fixture(scope="session")
def single_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("REDIS_URL")
    if given:
        yield _given_redis_url(given)
        return
    exe = shutil.which("redis-server")
    if not exe:
        pytest.fail("redis-server not found: install it (apt-get install redis-server) or set REDIS_URL")
    d = tmp_path_factory.mktemp("redis")
    for _attempt in range(5):  # a free port may be taken by another xdist worker's server in between
        port = _free_port()
        proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(d),
                                 "--save", "", "--appendonly", "no", "--protected-mode", "no"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{port}/0"
        client = redis_lib.Redis.from_url(url)
        try:
            waiting.wait_for("redis-server to answer", lambda: _answers(client, proc), timeout=10)
            own = is_own_redis(client, proc)
        except AssertionError:
            own = False
        finally:
            client.close()
        if own:
            break
        proc.kill()
        proc.wait(10)
    else:
        pytest.fail("redis-server did not start")
    yield url
    proc.terminate()
    proc.wait(10)


def _answers(client: redis_lib.Redis, proc: subprocess.Popen) -> bool:  # type: ignore[type-arg]
    """The server answers (or ``proc`` exited: then waiting is over too)."""
    if proc.poll() is not None:
        return True
    try:
        return bool(client.ping())
    except redis_lib.ConnectionError:
        return False


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real Redis Cluster: three masters with one replica each (:mod:`tests.cluster`)."""
    from tests import cluster

    try:
        c = cluster.start(tmp_path_factory.mktemp("cluster"))
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield c
    c.stop()


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest) -> str:
    """``single`` (one Redis) or ``cluster`` (a Redis Cluster): a module's parameter (tests.backends.BOTH)."""
    return str(getattr(request, "param", "single"))


@pytest.fixture(scope="session")
def redis_url(backend: str, single_redis_url: str, request: pytest.FixtureRequest) -> str:
    """The store's Redis: the single one's URL or ``redis+cluster://`` of the test cluster."""
    if backend == "cluster":
        return str(request.getfixturevalue("redis_cluster").url)
    return single_redis_url


@pytest.fixture(scope="session")
def broker_url(single_redis_url: str) -> str:
    """Celery's broker: always the single Redis."""
    return single_redis_url


def emptied(redis_url: str, backend: str, request: pytest.FixtureRequest) -> Any:
    """A client of the store's Redis (``redis.Redis`` or ``RedisCluster``), emptied."""
    from service.store import connect as make_client

    client = make_client({"REDIS_URL": redis_url})
    if backend == "cluster":
        from tests import cluster

        cluster.flush(request.getfixturevalue("redis_cluster"))
    else:
        client.flushdb()
    return client


@pytest.fixture()
def redis_client(redis_url: str, backend: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A client of the store's Redis (``redis.Redis`` or ``RedisCluster``), emptied for the test."""
    client = emptied(redis_url, backend, request)
    yield client
    client.close()


# ---------------------------------------------------------------------------------------
# the service
TEST_CONFIG: dict[str, Any] = {
    "PUBLIC_BASE_URL": "https://spades.example.test",
    "TWILIO_AUTH_TOKEN": "test-auth-token",
    "TWILIO_ACCOUNT_SID": "",
    "TWILIO_FROM": "+15550000000",
    "MAILGUN_SIGNING_KEY": "mg-test-signing-key",
    "MAIL_FROM": "Slow Spades <play@spades.example.test>",
    "DEALER_SEED": "1",
    "DELIVERY": "auto",
    "SMTP_HOST": "",
    "VISIBILITY_TIMEOUT": 5,
    "TASK_RETRY_MAX": 8,  # a worker's retries across a Redis restart or failover wait at most 8 s, not 60
    "QUEUE": "service-tests",  # other suites run workers of their own apps on the same Redis
    # the flood limit and the daily SMS cap (service.limits) are tested on their own: games played by tests
    # send far faster than people do
    "LIMIT_MESSAGES_PER_MINUTE": 0,
    "SMS_DAILY_CAP": 0,
    "SMS_FICTIONAL_NUMBERS": True,  # the tests' +1 555 numbers (service.limits.valid_number)
    "SHARED_CLOCK": True,  # tests move the service's time (service.store.clock.advance); a deployment's never moves
    # logging left as pytest sets it (tests/service/test_logs.py formats every record as the service would)
    "LOG_FORMAT": "text",
}


def queue_name(backend: str) -> str:
    """The Celery queue of a backend's test app (both apps share the broker)."""
    return str(TEST_CONFIG["QUEUE"]) + ("" if backend == "single" else "-" + backend)


@pytest.fixture(scope="session")
def app(redis_url: str, broker_url: str, backend: str):  # type: ignore[no-untyped-def]
    from service import create_app

    return create_app(dict(TEST_CONFIG, REDIS_URL=redis_url, BROKER_URL=broker_url, QUEUE=queue_name(backend)))


@pytest.fixture()
def svc(app, redis_client, broker_url, request):  # type: ignore[no-untyped-def]
    """The app's services on an empty Redis (per test), with the per-process game cache cleared."""
    s = app.extensions["slowspades"]
    s.games.clear()
    saved = dict(app.config)
    yield s
    if inthread.running(app.extensions["celery"]):  # let the worker finish what this test queued
        with contextlib.suppress(AssertionError):  # as before: a test leaving work behind is not failed here
            wait_worker_idle(broker_url, app.config["QUEUE"])
    for key in list(app.config):
        if key not in saved:
            del app.config[key]
    app.config.update(saved)
    app.config.pop("_SENDERS", None)


def wait_worker_idle(broker_url: str, queue: str, timeout: float = 10.0) -> None:
    """Until the worker has nothing of ``queue`` to do: none waiting in the broker, none being run (tasks are
    acknowledged late: one being run stays in ``unacked``). Idle twice in a row, 20 ms apart: a message the
    worker has just popped is in neither for an instant."""
    broker = redis_lib.Redis.from_url(broker_url)
    idle = [0]

    def settled() -> bool:
        idle[0] = idle[0] + 1 if not (broker.llen(queue) or broker.hlen("unacked")) else 0
        return idle[0] >= 2

    try:
        waiting.wait_for(f"the worker to finish what {queue} holds", settled, timeout)
    finally:
        broker.close()


@pytest.fixture(autouse=True)
def pure_compose_checked() -> Iterator[None]:
    """Composing a move's messages sent no Redis command during the test (:mod:`tests.pure_compose`)."""
    pure_compose.install()
    pure_compose.violations.clear()
    yield
    assert not pure_compose.violations, f"composing a move's messages did I/O: {pure_compose.violations}"


@pytest.fixture(scope="session", autouse=True)
def _inthread_worker_stopped() -> Iterator[None]:
    """The in-thread Celery worker (:mod:`tests.inthread`) stopped at the session's end."""
    yield
    inthread.stop()


@pytest.fixture()
def celery_worker(app):  # type: ignore[no-untyped-def]
    """A real Celery worker (celery.contrib.testing) consuming from the test Redis, in a thread: started once and
    kept from test to test, unless a test needed another app's (:mod:`tests.inthread`: one at a time)."""
    return inthread.worker_for(app.extensions["celery"], loglevel="WARNING")


@pytest.fixture()
def client(app, svc):  # type: ignore[no-untyped-def]
    return app.test_client()


class Collector:
    """An aiosmtpd handler keeping (mail from, recipients, parsed message) of every mail received."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        from email import message_from_bytes, policy

        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos),
                              message_from_bytes(envelope.original_content or envelope.content, policy=policy.default)))
        return "250 OK"


@pytest.fixture()
def smtp_server(app, svc):  # type: ignore[no-untyped-def]
    from aiosmtpd.controller import Controller

    collector = Collector()
    controller = Controller(collector, hostname="127.0.0.1", port=_free_port())
    controller.start()
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=controller.port, SMTP_STARTTLS=False, SMTP_USER="")
    app.config.pop("_SENDERS", None)
    yield collector
    controller.stop()




def worker_env(redis_url: str, **settings: Any) -> dict[str, str]:
    """The environment of a worker process configured like the test app (plus ``settings``; the broker is
    ``redis_url`` unless ``BROKER_URL`` is one of them)."""
    env = dict(os.environ)
    for key, value in dict(TEST_CONFIG, REDIS_URL=redis_url, **dict({"BROKER_URL": redis_url}, **settings)).items():
        env["SLOWSPADES_" + key] = str(value)
    return env


def spawn_worker(redis_url: str, log: Path, app: str = "workers.celery_app:celery",
                 env: dict[str, str] | None = None, **settings: Any) -> subprocess.Popen:  # type: ignore[type-arg]
    """A real ``celery worker`` process (solo pool) on the test Redis (``app``: its Celery app; ``env``:
    more environment variables).

    On RabbitMQ (``BROKER_URL=amqp://...``) it keeps its event heartbeat, as deployed (docs/staying-up.md): that
    heartbeat's 2-second timer also wakes the worker's event loop, and without it this solo-pool worker now and
    then left a delivered task waiting up to 10 s (the loop's longest sleep): one move in 80 in one run of
    tests/service/test_cluster_rabbitmq.py. (The deployed prefork pool did not, either way.)"""
    import sys
    import uuid

    heartbeat = [] if str(settings.get("BROKER_URL", "")).startswith("amqp") else ["--without-heartbeat"]
    cmd = [sys.executable, "-m", "celery", "-A", app, "worker", "--pool=solo",
           "--concurrency=1", *heartbeat, "--without-mingle", "--without-gossip",
           "-n", f"w{uuid.uuid4().hex[:8]}@%h", "--loglevel=" + os.environ.get("TEST_WORKER_LOGLEVEL", "WARNING")]
    out = open(log, "ab")
    return subprocess.Popen(cmd, env={**worker_env(redis_url, **settings), **(env or {})}, stdout=out,
                            stderr=subprocess.STDOUT,
                            cwd=str(Path(__file__).resolve().parents[1]))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``cluster`` marker on every test run on a Redis Cluster (the ``backend`` parameter, or a cluster fixture),
    ``browser`` on every test driving Chromium (pyproject.toml registers them: ``-m "not cluster"``...).

    And the modules holding a ``slow`` test go first, each kept whole (its module fixtures set up once): the
    parallel run hands tests out in this order, and a long test started last would keep one worker busy alone
    at the end while the others wait."""
    slow_modules = {item.module.__name__ for item in items
                    if item.get_closest_marker("slow") is not None and getattr(item, "module", None) is not None}
    items.sort(key=lambda item: getattr(getattr(item, "module", None), "__name__", "") not in slow_modules)
    for item in items:
        params = getattr(item, "callspec", None)
        fixtures = set(getattr(item, "fixturenames", ()))
        if (params is not None and params.params.get("backend") == "cluster") or {"redis_cluster", "own_cluster"} & fixtures:
            item.add_marker(pytest.mark.cluster)
        if "chromium" in fixtures:
            item.add_marker(pytest.mark.browser)

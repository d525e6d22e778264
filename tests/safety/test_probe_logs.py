"""A worker's liveness probes (``workers.liveness``, one every few seconds) are DEBUG lines (issue 44: they were 44
of 130 lines of a worker's log at INFO); the other tasks' lines are logged as before. A real Celery worker under an
alive file, at --loglevel=INFO."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import spawn_worker
from tests.service.helpers import wait_for

from .redis_proc import RedisProc
from .test_spool import app_on


def test_liveness_probes_are_not_logged_at_info(own_redis: RedisProc, tmp_path: Path, app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    web, queue = app_on(own_redis, tmp_path, app)
    alive, log = tmp_path / "worker.alive", tmp_path / "worker.log"
    alive.touch()
    os.utime(alive, (0, 0))
    monkeypatch.setenv("TEST_WORKER_LOGLEVEL", "INFO")
    worker = spawn_worker(own_redis.url, log, QUEUE=queue, ALIVE_PROBE_EVERY=0.2,
                          env={"SLOWSPADES_ALIVE_FILE": str(alive)})
    try:
        wait_for(lambda: alive.stat().st_mtime > 0, 30, "a probe received")
        first = alive.stat().st_mtime
        wait_for(lambda: alive.stat().st_mtime > first, 10, "probes go on")  # several probes, each a task received
        web.extensions["celery"].send_task("workers.tasks.sweep_outbox", queue=queue)
        wait_for(lambda: "workers.tasks.sweep_outbox" in log.read_text(), 30, "the sweep's lines")
    finally:
        worker.terminate()
        worker.wait(20)
    text = log.read_text()
    assert "Task workers.tasks.sweep_outbox" in text and "received" in text  # a task's lines at INFO, as before
    assert "Task workers.liveness.probe[" not in text, [line for line in text.splitlines() if "probe[" in line][:3]

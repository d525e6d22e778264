"""The worker's sign of life for ``service.supervise --alive-file`` (issue 15).

When the supervisor passes a file (``SLOWSPADES_ALIVE_FILE``), the worker touches it each time its
consumer receives a task, and queues itself a no-op probe every ``SLOWSPADES_ALIVE_PROBE_EVERY``
seconds so that there is always a task to receive. A worker that is up but receives nothing (left
connected to nothing after a Redis restart) stops touching the file, and the supervisor restarts it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from celery import bootsteps, shared_task
from celery.signals import task_received

ALIVE_ENV = "SLOWSPADES_ALIVE_FILE"
PROBE = "workers.liveness.probe"
log = logging.getLogger(__name__)


def _alive_file() -> Path | None:
    path = os.environ.get(ALIVE_ENV)
    return Path(path) if path else None


@task_received.connect
def touch_on_receive(**_kw: Any) -> None:
    """A task reached this worker's consumer: it is consuming."""
    path = _alive_file()
    if path is not None:
        try:
            os.utime(path)
        except FileNotFoundError:
            path.touch()


@shared_task(name=PROBE, ignore_result=True)
def probe() -> None:
    """Nothing: its receipt is the sign of life."""


class Probe(bootsteps.StartStopStep):
    """A consumer step queueing :func:`probe` every few seconds (only under ``--alive-file``)."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.tref: Any = None

    def start(self, c: Any) -> None:
        if _alive_file() is None or self.tref is not None:
            return
        every = float(c.app.conf.get("slowspades_alive_probe_every") or 10.0)
        self.tref = c.timer.call_repeatedly(every, self.send, (c,), priority=10)

    def send(self, c: Any) -> None:
        try:
            c.app.send_task(PROBE, retry=False)
        except Exception as exc:  # noqa: BLE001 - the broker is away: no probe, the file goes stale
            log.warning("liveness probe not queued: %s", exc)

    def stop(self, c: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

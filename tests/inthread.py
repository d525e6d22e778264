"""The one Celery worker a test process runs in a thread (``celery.contrib.testing.worker.start_worker``).

Celery's in-thread workers share process-wide state (kombu's event loop, reset here when one stops; the
flag ``start_worker`` sets to stop its worker stops every worker of the process; a task is run as the
process's current Celery app has it), so two at once stop each other, or one never stops.
Each process (each pytest-xdist worker) therefore runs at most one: :func:`worker_for` returns the running
worker if it serves that Celery app, else stops it and starts one for the app. The worker stays up from one
test to the next (starting one takes a second); :func:`stop` ends it (the session's end).
"""

from __future__ import annotations

import contextlib
from typing import Any

_current: list[tuple[Any, contextlib.ExitStack, Any]] = []  # (the Celery app, what stops its worker, the worker)


def worker_for(celery_app: Any, **options: Any) -> Any:
    """The running in-thread worker of ``celery_app`` (solo pool), started if it is not the one running."""
    from celery.contrib.testing.worker import start_worker

    if _current and _current[0][0] is celery_app:
        # the worker runs the tasks of the process's current Celery app (celery.app.trace.trace_task_ret), which
        # every create_app since (a test's own app) made its own: this app's again
        celery_app.set_current()
        celery_app.set_default()
        return _current[0][2]
    stop()
    stack = contextlib.ExitStack()
    worker = stack.enter_context(start_worker(celery_app, **{"pool": "solo", "concurrency": 1,
                                                            "perform_ping_check": False, "shutdown_timeout": 30,
                                                            **options}))
    _current.append((celery_app, stack, worker))
    return worker


def running(celery_app: Any) -> bool:
    """Whether the worker running in this process is ``celery_app``'s."""
    return bool(_current) and _current[0][0] is celery_app


def stop() -> None:
    """Stop the running worker, if any."""
    if _current:
        _app, stack, _worker = _current.pop()
        stack.close()
        # the next worker makes an event loop of its own (Celery takes kombu's process-wide one if there is one:
        # this worker's, closed, with this worker's timer)
        from kombu.asynchronous import set_event_loop

        set_event_loop(None)

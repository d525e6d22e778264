"""The service plus the load benchmark's baseline: a bare route that queues a no-op task.

Imported by the processes ``bench/load.py`` starts (gunicorn ``load_app:flask_app``, celery
``-A load_app:celery``), with ``bench/`` on ``PYTHONPATH``. Not part of the service.
"""

from __future__ import annotations

from celery import shared_task
from flask import current_app, request

from service import create_app

flask_app = create_app()
celery = flask_app.extensions["celery"]


@shared_task(name="bench.noop", ignore_result=True)
def noop(key: str) -> None:
    """Does nothing but say it ran (so the generator can see the message went end to end)."""
    current_app.extensions["slowspades"].redis.rpush(key, 1)


@flask_app.post("/bench/noop")
def bare_route() -> tuple[str, int]:
    current_app.extensions["celery"].send_task("bench.noop", args=[request.form["k"]])
    return "", 204


celery.tasks.register(noop) if "bench.noop" not in celery.tasks else None

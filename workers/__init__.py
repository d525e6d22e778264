"""Celery wiring (the ``celery_init_app`` pattern of Flask's documentation) and the worker tasks."""

from __future__ import annotations

from typing import Any

from celery import Celery, Task
from flask import Flask


def celery_init_app(app: Flask) -> Celery:
    """A Celery app whose tasks run inside ``app``'s context, configured from ``app.config['CELERY']``."""

    class FlaskTask(Task):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery_app = Celery(app.name, task_cls=FlaskTask)
    celery_app.config_from_object(app.config["CELERY"])
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    from . import beat, tasks  # noqa: F401 - registers the shared tasks

    beat.install(celery_app, app.config)

    return celery_app

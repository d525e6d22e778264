"""The Celery app for ``celery -A workers.celery_app:celery worker`` / ``beat``: built from the Flask app."""

from __future__ import annotations

from celery import Celery

from service import create_app
from service.config import config_or_exit
from workers import liveness

config_or_exit()  # a setting that does not read stops the worker or beat in one line naming it
flask_app = create_app()
celery: Celery = flask_app.extensions["celery"]
celery.steps["consumer"].add(liveness.Probe)  # its sign of life for service.supervise --alive-file

"""slowspades' service: the Flask app factory (:func:`create_app`) with its blueprints, and its Celery app
(:func:`celery_init_app`, the pattern of Flask's documentation). The worker tasks live in ``workers``;
this package names them only (``workers.tasks.*``, ``workers.beat.*``), it never imports them."""

from __future__ import annotations

from typing import Any

from celery import Celery, Task
from flask import Flask, current_app

from . import logs
from .bootstrap import Dependencies, bootstrap
from .config import load_config
from .lifecycle import settings
from .web import (
    again,
    card_colours,
    email,
    email_events,
    game,
    headers,
    health,
    history,
    home,
    plan_board,
    rules,
    simulator,
    sms,
    status,
    talk_box,
)
from .web import invite_page as invite_link_page
from .web import metrics as web_metrics
from .web import push_box as push_page_routes
from .web import telegram as telegram_webhook

# the modules holding the tasks: a worker imports them when it starts (``include``)
TASK_MODULES = ("workers.tasks", "workers.beat")


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """The Flask app: configuration from ``SLOWSPADES_*`` variables (then ``overrides``), blueprints, Celery."""
    cfg = load_config(overrides=overrides)
    logs.configure(cfg)  # JSON lines without addresses in clear (SLOWSPADES_LOG_FORMAT)
    app = Flask(__name__)
    app.config.update(cfg)
    app.extensions["slowspades"] = bootstrap(app.config)
    app.register_blueprint(sms.bp)
    app.register_blueprint(telegram_webhook.bp)
    app.register_blueprint(status.bp)
    app.register_blueprint(email.bp)
    app.register_blueprint(email_events.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(game.bp)
    app.register_blueprint(invite_link_page.bp)
    app.register_blueprint(plan_board.bp)
    app.register_blueprint(home.bp)
    app.register_blueprint(talk_box.bp)
    app.register_blueprint(card_colours.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(again.bp)
    app.register_blueprint(push_page_routes.bp)  # the page installable, "Notify me here" (Web Push)
    simulator.register(app)  # only when SLOWSPADES_SIMULATOR is on (local runs)
    headers.install(app)  # CSP, no framing, no sniffing: on every page
    celery_init_app(app)
    web_metrics.install(app)  # /metrics (behind SLOWSPADES_METRICS_TOKEN), the webhooks measured
    return app


def celery_init_app(app: Flask) -> Celery:
    """A Celery app whose tasks run inside ``app``'s context, configured from ``app.config['CELERY']``, with
    the lifecycle's tick in its beat schedule (every ``BEAT_EVERY`` seconds), and the retention's forget once a day
    when ``FORGET_INACTIVE_DAYS`` is set."""

    class FlaskTask(Task):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery_app = Celery(app.name, task_cls=FlaskTask, include=list(TASK_MODULES))
    celery_app.config_from_object(app.config["CELERY"])
    schedule = dict(celery_app.conf.beat_schedule or {})
    schedule["lifecycle-tick"] = {"task": "workers.beat.tick", "schedule": float(settings.get(app.config, "BEAT_EVERY"))}
    if float(app.config.get("FORGET_INACTIVE_DAYS") or 0) > 0:  # the retention (service.forget), once a day
        schedule["forget-inactive"] = {"task": "workers.beat.forget_inactive", "schedule": 86400.0}
    celery_app.conf.beat_schedule = schedule
    celery_app.conf.slowspades_metrics_port = int(app.config.get("METRICS_PORT") or 0)  # service.metrics
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    return celery_app


def services(app: Flask | None = None) -> Dependencies:
    """The :class:`~service.bootstrap.Dependencies` of ``app`` (default: the current app)."""
    svc: Dependencies = (app or current_app).extensions["slowspades"]
    return svc

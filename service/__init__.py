"""slowspades' service: the Flask app factory (:func:`create_app`), blueprints, store, handlers, delivery."""

from __future__ import annotations

from typing import Any

from flask import Flask

from .config import load_config
from .context import Services


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """The Flask app: configuration from ``SLOWSPADES_*`` variables (then ``overrides``), blueprints, Celery."""
    cfg = load_config(overrides=overrides)
    app = Flask(__name__)
    app.config.update(cfg)
    app.extensions["slowspades"] = Services.from_config(app.config)

    from .web import email, health, rules, simulator, sms, status

    app.register_blueprint(sms.bp)
    app.register_blueprint(status.bp)
    app.register_blueprint(email.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(rules.bp)
    simulator.register(app)  # only when SLOWSPADES_SIMULATOR is on (local runs)

    from workers import celery_init_app

    celery_init_app(app)
    return app


def services(app: Flask | None = None) -> Services:
    """The :class:`Services` of ``app`` (default: the current app)."""
    if app is None:
        from flask import current_app

        app = current_app  # type: ignore[assignment]
    return app.extensions["slowspades"]  # type: ignore[union-attr]

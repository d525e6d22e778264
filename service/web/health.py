"""Health endpoints, as JSON, for load balancers and monitoring; no answer names a host, a port or a path.

``GET /livez``: the process answers (always 200 while it serves requests): for a supervisor or an orchestrator's
liveness probe, which restarts a process that stops answering.

``GET /readyz``: whether this web process can take moves: 200 while Redis answers, or while Redis does not but the
local spool (:mod:`service.spool`, ``SLOWSPADES_SPOOL_DIR``) is writable, since the webhooks then keep every message
on disk, answer 200 and hand it over when Redis is back; 503 only when neither can take one. This is what a load
balancer should use (docs/operating.md, Health): dropping every web host while Redis restarts would turn away the
moves the spool is there to carry.

``GET /healthz``: as before, every dependency answering: 200 when Redis and the Celery broker both answer, else 503.
For monitoring and dashboards, not for a load balancer.
"""

from __future__ import annotations

import logging

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from ..spool import Spool

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)


def _failure(what: str, exc: BaseException) -> str:
    """An error as the answers show it: its kind only (its text names the host and port); the log has the rest."""
    log.warning("health: %s does not answer: %s", what, type(exc).__name__)
    return f"error: {type(exc).__name__}"


def _redis() -> str:
    try:
        current_app.extensions["slowspades"].store.ping()
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure is reported, not raised
        return _failure("redis", exc)


def _broker() -> str:
    try:
        with current_app.extensions["celery"].connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception as exc:  # noqa: BLE001
        return _failure("broker", exc)


def _spool() -> str:
    """Whether the spool the webhooks keep messages in (the drainer's) can take one now."""
    drainer = current_app.extensions.get("slowspades_drainer")
    spool = drainer.spool if drainer is not None else Spool(current_app.config["SPOOL_DIR"])
    return "ok" if spool.writable() else "error: not writable"


@bp.get("/livez")
def livez() -> ResponseReturnValue:
    return jsonify(status="ok"), 200


@bp.get("/readyz")
def readyz() -> ResponseReturnValue:
    redis = _redis()
    if redis == "ok":
        return jsonify(status="ready", redis="ok"), 200
    spool = _spool()  # Redis away: moves are taken all the same while the spool can keep them
    if spool == "ok":
        return jsonify(status="ready", redis=redis, spool="ok", moves="spooled until Redis answers"), 200
    return jsonify(status="not ready", redis=redis, spool=spool), 503


@bp.get("/healthz")
def healthz() -> ResponseReturnValue:
    out = {"redis": _redis(), "broker": _broker()}
    ok = out["redis"] == "ok" and out["broker"] == "ok"
    return jsonify(status="ok" if ok else "degraded", **out), 200 if ok else 503

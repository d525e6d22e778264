"""``GET /healthz``: whether Redis and the Celery broker answer, as JSON (503 if one does not)."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> ResponseReturnValue:
    svc = current_app.extensions["slowspades"]
    out: dict[str, str] = {}
    try:
        svc.store.ping()
        out["redis"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure is reported, not raised
        out["redis"] = f"error: {exc}"
    try:
        with current_app.extensions["celery"].connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        out["broker"] = "ok"
    except Exception as exc:  # noqa: BLE001
        out["broker"] = f"error: {exc}"
    ok = out["redis"] == "ok" and out["broker"] == "ok"
    return jsonify(status="ok" if ok else "degraded", **out), 200 if ok else 503

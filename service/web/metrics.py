"""``GET /metrics`` (Prometheus' text format, :mod:`service.metrics`) behind ``SLOWSPADES_METRICS_TOKEN`` (a bearer
token; 404 while it is empty), and the webhooks' counts and answer times, taken around every request to ``/sms``,
``/sms/status``, ``/email/inbound`` and ``/email/events``, and the game page's moves (``POST /g/<token>/move``) and
polls (``GET /g/<token>/poll``), labelled by channel (``page_move``, ``page_poll``; never the token)."""

from __future__ import annotations

import hmac
import time

from flask import Blueprint, Flask, Response, abort, current_app, g, request

from .. import metrics

bp = Blueprint("metrics", __name__)

#: the webhooks measured, by path: their channel label
CHANNELS = {"/sms": "sms", "/sms/status": "sms_status", "/email/inbound": "email", "/email/events": "email_events"}
#: the game page's requests measured, by endpoint (their paths hold a page token: never a label)
PAGE_CHANNELS = {"game_page.move": "page_move", "game_page.poll": "page_poll"}


@bp.get("/metrics")
def scrape() -> Response:
    token = str(current_app.config.get("METRICS_TOKEN") or "")
    if not token:
        abort(404)
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), token.encode()):
        abort(401)
    state = current_app.extensions["slowspades_state"]
    return Response(metrics.exposition(state), mimetype=metrics.CONTENT_TYPE_LATEST.split(";")[0],
                    headers={"Content-Type": metrics.CONTENT_TYPE_LATEST, "Cache-Control": "no-store"})


def spooled() -> None:
    """This request's message went to the disk spool (its webhook's outcome says so)."""
    metrics.spooled()
    g.webhook_outcome = "spooled"


def install(app: Flask) -> None:
    """The endpoint, its state gauges, and the webhooks measured."""
    drainer = app.extensions.get("slowspades_drainer")
    app.extensions["slowspades_state"] = app.extensions["slowspades"].inject(metrics.ServiceState)(
        app.extensions["celery"], drainer.spool if drainer is not None else None)
    app.register_blueprint(bp)

    @app.before_request
    def started() -> None:
        channel = CHANNELS.get(request.path) or PAGE_CHANNELS.get(request.endpoint or "")
        if channel is not None:
            g.webhook_channel = channel
            g.webhook_started = time.perf_counter()

    @app.after_request
    def measured(response: Response) -> Response:
        began = g.get("webhook_started")
        if began is not None:
            code = response.status_code
            outcome = g.get("webhook_outcome") or (
                "accepted" if code < 400 else "rejected" if code < 500 else "error")
            metrics.webhook(g.webhook_channel, outcome, time.perf_counter() - began)
        return response

"""``POST /email/events``: Mailgun's event webhook (JSON), the delivery receipts of the emails the service sent.

Signed as Mailgun signs every webhook (``signature``: HMAC-SHA256 of ``timestamp`` + ``token`` with the webhook
signing key, ``SLOWSPADES_MAILGUN_SIGNING_KEY``); a bad signature is a 403, a timestamp further than
``SLOWSPADES_MAILGUN_MAX_AGE`` from now or a token seen before a 406 (Mailgun does not retry a 406).

Which outbox entry an event is about: the ``outbox`` user variable, which the service sets on every email it sends
(the ``X-Mailgun-Variables: {"outbox": "<outbox id>"}`` header, ``service.delivery.build_email``); Mailgun returns it
in ``event-data["user-variables"]``. An event without it (an email sent some other way) is answered and ignored.

``delivered`` marks the entry delivered; ``failed`` with ``severity: permanent`` (a hard bounce) marks it failed and
the address unreachable (``bounce``); ``failed`` with ``severity: temporary`` is Mailgun still retrying by itself
(nothing changes); ``complained`` (the recipient marked it as spam) marks the address unreachable (``complained``).
The consequences run in the worker (``workers.tasks.receipt``), queued only when the event changed the entry (a
complaint, which changes no status, each time Mailgun posts one: its token is taken once). Every update is
idempotent: an event posted twice, or a ``delivered`` after a permanent failure, changes nothing more. A body that is
not JSON Mailgun would send (nested thousands deep) is a 400, an ``outbox`` variable that is not an outbox id a 406. 503 while Redis does not answer (Mailgun retries).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from kombu.exceptions import OperationalError as BrokerError

from ..store import UNREACHABLE, split_outbox_id
from . import RECEIPT
from .email import mailgun_refusal, redis_unreachable, reject

bp = Blueprint("email_events", __name__)


for _error in (*UNREACHABLE[:2], BrokerError):  # Redis does not answer: 503, and Mailgun posts the event again later
    bp.register_error_handler(_error, redis_unreachable)


def _text(value: Any, limit: int = 200) -> str:
    return str(value)[:limit] if value is not None else ""


@bp.post("/email/events")
def email_events() -> ResponseReturnValue:
    cfg = current_app.config
    svc = current_app.extensions["slowspades"]
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # JSON nested thousands deep (issue 44 case 9): not Mailgun's, and no traceback
        return jsonify(status="rejected", reason="not a Mailgun event"), 400
    sig = body.get("signature") if isinstance(body, dict) else None
    data = body.get("event-data") if isinstance(body, dict) else None
    if not isinstance(sig, dict) or not isinstance(data, dict):
        return jsonify(status="rejected", reason="not a Mailgun event"), 403
    timestamp, token = _text(sig.get("timestamp")), _text(sig.get("token"))
    refused = mailgun_refusal(cfg, timestamp, token, _text(sig.get("signature")))
    if refused == "bad signature":
        return jsonify(status="rejected", reason=refused), 403
    if refused:
        return reject(refused)
    variables = data.get("user-variables")
    outbox_id = _text(variables.get("outbox")) if isinstance(variables, dict) else ""
    event, severity = _text(data.get("event")), _text(data.get("severity"))
    if not svc.store.mailgun_token_once(token, int(cfg["MAILGUN_MAX_AGE"]) * 2 + 60):
        return reject("replayed token")
    if not outbox_id:
        return jsonify(status="ignored", reason="no outbox variable")
    status = reason = ""
    if event == "delivered":
        status = "delivered"
    elif event == "failed" and severity == "permanent":
        status, reason = "failed", "bounce"
    elif event == "complained":
        reason = "complained"
    found = data.get("delivery-status")
    delivery: dict[str, Any] = found if isinstance(found, dict) else {}
    try:
        split_outbox_id(outbox_id)
    except ValueError:  # '#', '5': not an outbox id (406: Mailgun does not post it again), never a worker's traceback
        return reject("not an outbox id")
    changed = True
    if status:
        error = f"mailgun {event} {_text(data.get('reason'), 40)} {_text(delivery.get('code'), 12)}".strip()
        _now, changed = svc.store.record_receipt(outbox_id, status, "", error if status == "failed" else "")
    if reason and changed:  # a bounce the entry already had (or after it was delivered) queues nothing more
        current_app.extensions["celery"].send_task(RECEIPT, args=[outbox_id, "", reason])
    return jsonify(status="ok")

"""``POST /sms/status``: Twilio's signed status callbacks (SMS and WhatsApp) are delivery receipts of outbox entries.

The outbox id is in the callback URL (``?o=``, set when the message was sent). ``MessageStatus`` moves the entry's
status forward only (``sent``, then ``delivered``/``read`` or ``undelivered``/``failed``), once: a callback sent
twice, or a ``sent`` arriving after ``delivered``, changes nothing (``Store.record_receipt``); ``ErrorCode`` is kept
on the entry. A failure with a code queues ``workers.tasks.receipt`` (:func:`service.receipts.on_failure`: a retry
later, or the address marked unreachable); nothing else is done here, so the webhook answers in one round trip.

While Redis does not answer, the callback gets a 503 that says so (never a bare 500). Twilio does not retry a
status callback, so that receipt is lost: the entry keeps the status it had (``sent``).
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, abort, current_app, request

from . import UNREACHABLE, twilio_signature_ok

log = logging.getLogger(__name__)

bp = Blueprint("sms_status", __name__)

RECEIPT = "workers.tasks.receipt"  # service.after.RECEIPT (the web does not import the worker's layers)

# Twilio MessageStatus -> outbox status (statuses before 'sent' leave the entry as it is)
STATUS_MAP = {"sent": "sent", "delivered": "delivered", "read": "delivered", "undelivered": "failed",
              "failed": "failed"}


@bp.post("/sms/status")
def sms_status() -> Response:
    if not twilio_signature_ok():
        abort(403)
    outbox_id = request.args.get("o", "")
    mapped = STATUS_MAP.get(request.form.get("MessageStatus", ""))
    svc = current_app.extensions["slowspades"]
    if outbox_id and mapped:
        code = "".join(c for c in request.form.get("ErrorCode", "") if c.isalnum())[:12]
        sid = request.form.get("MessageSid", "")[:64]
        try:
            now, _changed = svc.store.record_receipt(outbox_id, mapped, sid, f"twilio error {code}" if code else "")
            if now == "failed" and code and mapped == "failed":  # the task is idempotent: a lost one is made up
                current_app.extensions["celery"].send_task(RECEIPT, args=[outbox_id, sid, code])
        except ValueError:
            pass  # not an outbox id of ours: nothing to update
        except UNREACHABLE as exc:
            log.warning("status %s of %s not recorded: Redis does not answer (%s)", mapped, outbox_id, exc)
            return Response("storage unavailable: status not recorded\n", status=503, mimetype="text/plain")
    return Response("", status=204)

"""``POST /sms/status``: Twilio's signed status callbacks update the delivery status of an outbox entry."""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, request

from . import twilio_signature_ok

bp = Blueprint("sms_status", __name__)

# Twilio MessageStatus -> outbox status (statuses before 'sent' leave the entry as it is)
STATUS_MAP = {"sent": "sent", "delivered": "delivered", "read": "delivered", "undelivered": "failed",
              "failed": "failed"}


@bp.post("/sms/status")
def sms_status() -> Response:
    if not twilio_signature_ok():
        abort(403)
    outbox_id = request.args.get("o", "")
    twilio_status = request.form.get("MessageStatus", "")
    mapped = STATUS_MAP.get(twilio_status)
    svc = current_app.extensions["slowspades"]
    if outbox_id and mapped:
        error = request.form.get("ErrorCode", "")
        try:
            svc.store.set_status(outbox_id, mapped, provider_id=request.form.get("MessageSid", ""),
                                 error=f"twilio error {error}" if error else "")
        except ValueError:
            pass  # not an outbox id of ours: nothing to update
    return Response("", status=204)

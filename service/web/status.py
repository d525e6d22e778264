"""``POST /sms/status``: Twilio's signed status callbacks update the delivery status of an outbox entry.

While Redis does not answer, the callback gets a 503 that says so (never a bare 500). Twilio does not
retry a status callback, so that update is lost; it is only the delivery status the operator sees
(``slowspades outbox``), and the message itself was sent.
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, abort, current_app, request

from . import UNREACHABLE, twilio_signature_ok

log = logging.getLogger(__name__)

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
        except UNREACHABLE as exc:
            log.warning("status %s of %s not recorded: Redis does not answer (%s)", mapped, outbox_id, exc)
            return Response("storage unavailable: status not recorded\n", status=503, mimetype="text/plain")
    return Response("", status=204)

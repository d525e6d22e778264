"""``POST /sms/status``: Twilio's signed status callbacks (SMS and WhatsApp) are delivery receipts of outbox entries.

The outbox id is in the callback URL (``?o=``, set when the message was sent). ``MessageStatus`` moves the entry's
status forward only (``sent``, then ``delivered``/``read`` or ``undelivered``/``failed``), once: a callback sent
twice, or a ``sent`` arriving after ``delivered``, changes nothing (``Store.record_receipt``); ``ErrorCode`` is kept
on the entry. A failure with a code queues ``workers.tasks.receipt`` (:func:`service.receipts.on_failure`: a retry
later, or the address marked unreachable); nothing else is done here, so the webhook answers in one round trip
(:func:`service.web.take_receipt`).

Twilio does not send a status callback again, so one answered while Redis does not answer would be lost (and with
a failure's, the retry or the opponent's notice it leads to). Such a receipt is kept in the web process's disk
spool, as an inbound text is, and recorded once Redis answers; only if the disk fails too is the answer a 503
that says so (never a bare 500).
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, abort, request

from ..spool import SpoolError
from . import take_receipt, twilio_signature_ok

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
    mapped = STATUS_MAP.get(request.form.get("MessageStatus", ""))
    if outbox_id and mapped:
        code = "".join(c for c in request.form.get("ErrorCode", "") if c.isalnum())[:12]
        sid = request.form.get("MessageSid", "")[:64]
        try:
            take_receipt(outbox_id, mapped, sid, code)
        except SpoolError as exc:
            log.error("status %s of %s not recorded: Redis does not answer and the spool failed (%s)",
                      mapped, outbox_id, exc)
            return Response("storage unavailable: status not recorded\n", status=503, mimetype="text/plain")
    return Response("", status=204)

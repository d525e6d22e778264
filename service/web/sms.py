"""``POST /sms``: Twilio's incoming-message webhook. Verify, claim the MessageSid, record, queue, empty TwiML."""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, request
from twilio.twiml.messaging_response import MessagingResponse

from ..players import BadAddress, parse_address
from ..store import now_ms
from . import queue_inbound, twilio_signature_ok

bp = Blueprint("sms", __name__)


_EMPTY_TWIML = str(MessagingResponse())  # always the same document: built once


def empty_twiml() -> Response:
    return Response(_EMPTY_TWIML, mimetype="text/xml")


@bp.post("/sms")
def inbound_sms() -> Response:
    if not twilio_signature_ok():
        abort(403)
    svc = current_app.extensions["slowspades"]
    sid = request.form.get("MessageSid") or request.form.get("SmsSid") or ""
    if not sid:
        abort(400)
    try:
        sender = parse_address(request.form.get("From", ""), current_app.config["DEFAULT_REGION"]).value
    except BadAddress:
        return empty_twiml()  # not a phone number we can answer; nothing to do
    message_id = f"sms:{sid}"
    claim = svc.store.record_inbound(sender, message_id, {
        "channel": "sms", "from": sender, "to": request.form.get("To", ""), "body": request.form.get("Body", ""),
        "received": now_ms(), "status": "queued"}, int(current_app.config["MESSAGE_TTL"]))
    if claim != "done":  # new, or a retry of a message we may have failed to queue: queue (again)
        queue_inbound(message_id, sender)
    return empty_twiml()

"""``POST /sms``: Twilio's incoming-message webhook. Verify, claim the MessageSid, record, queue, empty TwiML.

Twilio does not retry a messaging webhook: while Redis does not answer, the message is kept on local
disk (``service.spool``) and 200 answered; if the disk fails too, the answer is TwiML asking the player
to send it again (never a bare 500)."""

from __future__ import annotations

import logging

from flask import Blueprint, Response, abort, current_app, request
from twilio.twiml.messaging_response import MessagingResponse

from ..players import BadAddress, parse_address
from ..spool import SpoolError
from ..store import now_ms
from . import install_spool, take_inbound, twilio_signature_ok

log = logging.getLogger(__name__)

bp = Blueprint("sms", __name__)
bp.record_once(lambda state: install_spool(state.app))  # the spool and its drainer, once per app


_EMPTY_TWIML = str(MessagingResponse())  # always the same document: built once
#: The answer when a text could be kept neither in Redis nor on disk (GSM-7, one segment).
SEND_AGAIN = "Sorry, your message could not be taken just now. Please send it again in a few minutes."


def empty_twiml() -> Response:
    return Response(_EMPTY_TWIML, mimetype="text/xml")


def twiml_message(text: str) -> Response:
    """TwiML answering the sender with one SMS (Twilio sends it: no Redis needed)."""
    answer = MessagingResponse()
    answer.message(text)
    return Response(str(answer), mimetype="text/xml")


@bp.post("/sms")
def inbound_sms() -> Response:
    if not twilio_signature_ok():
        abort(403)
    sid = request.form.get("MessageSid") or request.form.get("SmsSid") or ""
    if not sid:
        abort(400)
    try:
        sender = parse_address(request.form.get("From", ""), current_app.config["DEFAULT_REGION"]).value
    except BadAddress:
        return empty_twiml()  # not a phone number we can answer; nothing to do
    message_id = f"sms:{sid}"
    fields = {"channel": "sms", "from": sender, "to": request.form.get("To", ""), "body": request.form.get("Body", ""),
              "received": now_ms(), "status": "queued"}
    try:  # recorded and queued; or, while Redis does not answer, kept on local disk (service.spool)
        take_inbound(message_id, sender, fields, int(current_app.config["MESSAGE_TTL"]))
    except SpoolError:  # not even the disk: Twilio will not retry, so the player is asked to
        log.exception("inbound %s could not be kept: asking the sender to send it again", message_id)
        return twiml_message(SEND_AGAIN)
    return empty_twiml()

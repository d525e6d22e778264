"""``POST /sms``: Twilio's incoming-message webhook, SMS and WhatsApp alike. Verify, claim the MessageSid, record,
queue, empty TwiML.

A WhatsApp message comes the same way, signed the same way, from ``From: whatsapp:+<number>``: that address is a
player of its own (:data:`service.addresses.WHATSAPP`), and its record opens its 24-hour window again
(:mod:`service.store.window`, on the record's own round trip). A tapped quick-reply button or list item
(:mod:`service.whatsapp_buttons`) comes with its id in ``ButtonPayload`` or ``ListId`` (and its title as the
``Body``): the id is recorded as the message's ``tap``, which the worker plays as a tapped Telegram button is.

Twilio does not retry a messaging webhook: while Redis does not answer, the message is kept on local
disk (``service.spool``) and 200 answered; if the disk fails too, the answer is TwiML asking the player
to send it again (never a bare 500)."""

from __future__ import annotations

import logging
import time
from typing import Any

from flask import Blueprint, Response, abort, current_app, request
from twilio.twiml.messaging_response import MessagingResponse

from chat.languages import language_for_address
from chat.render import render as chat_render

from .. import limits
from ..addresses import SMS, WHATSAPP, BadAddress, parse_address
from ..spool import SpoolError
from ..store import now_ms
from . import UNREACHABLE, install_spool, take_inbound, twilio_signature_ok

log = logging.getLogger(__name__)


def install_spool_once(app: Any) -> None:
    """The app's spool and its drainer (:func:`install_spool`), once per app."""
    install_spool(app)


bp = Blueprint("sms", __name__)
bp.record_once(lambda state: install_spool_once(state.app))  # the spool and its drainer, once per app


#: the most of a tapped button's id recorded (Twilio's ids are at most 200 characters)
TAP_MAX = 256
_EMPTY_TWIML = str(MessagingResponse())  # always the same document: built once


def empty_twiml() -> Response:
    return Response(_EMPTY_TWIML, mimetype="text/xml")


def flood_answer(sender: str) -> tuple[Response | None, str]:
    """``(None, "")`` if ``sender`` is within the flood limit (or Redis cannot tell: the message is taken); the
    first one over is taken to be answered with the notice by the player's channel (``(None, limit)``: its record's
    ``flood`` field, issue 23 case 14); the rest are dropped (the empty answer)."""
    svc = current_app.extensions["slowspades"]
    try:
        flood = limits.flood_check(svc.config, svc.store, svc.players, sender, time.time())
    except UNREACHABLE:
        return None, ""
    if flood.ok:
        return None, ""
    if not flood.tell:
        return empty_twiml(), ""
    return None, str(limits.setting(svc.config, "LIMIT_MESSAGES_PER_MINUTE"))


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
        address = parse_address(request.form.get("From", ""), current_app.config["DEFAULT_REGION"])
    except BadAddress:
        return empty_twiml()  # not a phone number we can answer; nothing to do
    sender = address.value
    flooded, flood = flood_answer(sender)
    if flooded is not None:  # over SLOWSPADES_LIMIT_MESSAGES_PER_MINUTE: dropped (told once)
        return flooded
    message_id = f"sms:{sid}"
    channel = WHATSAPP if address.kind == WHATSAPP else SMS
    fields = {"channel": channel, "from": sender, "to": request.form.get("To", ""), "body": request.form.get("Body", ""),
              "received": now_ms(), "status": "queued"}
    tapped = request.form.get("ButtonPayload") or request.form.get("ListId") or ""
    if tapped and channel == WHATSAPP:  # a tapped button or list item (service.whatsapp_buttons): its id
        fields["tap"] = tapped[:TAP_MAX]
    if flood:
        fields["flood"] = flood
    try:  # recorded and queued; or, while Redis does not answer, kept on local disk (service.spool)
        take_inbound(message_id, sender, fields, int(current_app.config["MESSAGE_TTL"]))
    except SpoolError:  # not even the disk: Twilio will not retry, so the player is asked to
        log.exception("inbound %s could not be kept: asking the sender to send it again", message_id)
        lang = language_for_address(sender)  # Redis does not answer: the language the number suggests
        return twiml_message(chat_render("send_again", lang, channel, family="lifecycle").text)
    return empty_twiml()

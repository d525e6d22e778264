"""``POST /email/inbound``: Mailgun's inbound route (forward to this URL).

Verifies ``timestamp``/``token``/``signature`` (HMAC-SHA256 with the signing key), rejects stale
(or not finite) timestamps and replayed tokens, refuses a ``From`` that is not an email address and
an email Mailgun's SPF/DKIM verdict does not vouch for (``service.email_identity``; the 406 says
why), drops duplicates by ``Message-Id``, takes the new text of the reply
(``stripped-text``, else ``mail-parser-reply`` on ``body-plain``), checks that a per-game reply token
belongs to the sender, records the message and queues it. Mailgun retries on any status but 200 and
406; 406 is answered for messages to reject for good, 503 while Redis does not answer (Mailgun retries
for 8 hours: no spool needed here, unlike ``/sms``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from typing import Any, Mapping

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from kombu.exceptions import OperationalError as BrokerError
from mailparser_reply import EmailReplyParser

from .. import limits, logs
from ..addresses import token_from_recipient
from ..email_identity import NotAnEmailSender, sender_of, verdict
from ..store import UNREACHABLE, now_ms
from . import queue_inbound

bp = Blueprint("email", __name__)


@bp.errorhandler(UNREACHABLE[0])
@bp.errorhandler(UNREACHABLE[1])
@bp.errorhandler(BrokerError)
def redis_unreachable(exc: Exception) -> ResponseReturnValue:
    """Redis does not answer: 503, and Mailgun posts the email again later (for up to 8 hours)."""
    return jsonify(status="retry", reason="storage unavailable, try again later"), 503


def reject(why: str) -> ResponseReturnValue:
    return jsonify(status="rejected", reason=why), 406


def mailgun_signature_ok(key: str, timestamp: str, token: str, signature: str) -> bool:
    if not key or not timestamp or not token or not signature:
        return False
    expected = hmac.new(key.encode(), (timestamp + token).encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def mailgun_refusal(cfg: Mapping[str, Any], timestamp: str, token: str, signature: str) -> str:
    """Why a Mailgun post is not taken (``""``: it is): a bad signature, a timestamp not within
    ``MAILGUN_MAX_AGE`` of now (or not a finite number). The replay guard (a token seen before) is the caller's."""
    if not mailgun_signature_ok(cfg.get("MAILGUN_SIGNING_KEY", ""), timestamp, token, signature):
        return "bad signature"
    try:
        age = abs(time.time() - float(timestamp))
    except ValueError:
        return "bad timestamp"
    if not math.isfinite(age):  # 'nan' compares false with everything: it would pass the age check
        return "bad timestamp"
    if age > int(cfg["MAILGUN_MAX_AGE"]):
        return "stale timestamp"
    return ""


def new_text(form: dict[str, str]) -> str:
    """The new text of a reply, without quoted history or signature."""
    stripped = (form.get("stripped-text") or "").strip()
    if stripped:
        return stripped
    body = form.get("body-plain") or ""
    replies = EmailReplyParser(languages=["en"]).read(text=body).replies
    return (replies[0].body if replies else body).strip()  # the newest reply, without signature


@bp.post("/email/inbound")
def inbound_email() -> ResponseReturnValue:
    cfg = current_app.config
    svc = current_app.extensions["slowspades"]
    form = request.form
    timestamp, token, signature = form.get("timestamp", ""), form.get("token", ""), form.get("signature", "")
    refused = mailgun_refusal(cfg, timestamp, token, signature)
    if refused:
        return reject(refused)
    header_id = (form.get("Message-Id") or form.get("message-id") or "").strip().strip("<>")
    message_id = f"mail:{header_id or token}"
    try:
        sender = sender_of(form)  # an email address, never a phone number (never an SMS player)
    except NotAnEmailSender:
        return reject("the sender of an email must be an email address")
    if limits.forbidden_recipient(svc.config,
                                  sender):  # our own address or a role one (a bounce...): never answered, no loop
        return reject("mail from the service's own addresses or from role addresses (postmaster@, mailer-daemon@...) "
                      "is not taken")
    checked = verdict(form, sender)
    if not checked.verified:  # unverifiable mail starts nothing (nor any reply to a From it may have forged)
        return reject(f"sender not verified: {checked.why} (SPF {checked.spf or 'none'}, DKIM {checked.dkim or 'none'})")
    flood = limits.flood_check(svc.config, svc.store, svc.players, sender, time.time())
    if not flood.ok and not flood.tell:  # SLOWSPADES_LIMIT_MESSAGES_PER_MINUTE
        return reject(f"too many messages: at most {limits.setting(svc.config, 'LIMIT_MESSAGES_PER_MINUTE')} a minute")
    known = svc.store.inbound(sender, message_id)
    if known is not None:  # the same email again (a retry or a second route): applied once
        if known.get("status") != "done":
            queue_inbound(message_id, sender)
        return jsonify(status="duplicate")
    if not svc.store.mailgun_token_once(token, int(cfg["MAILGUN_MAX_AGE"]) * 2 + 60):
        return reject("replayed token")
    reply_token = token_from_recipient(form.get("recipient", ""))
    if reply_token is not None:
        found = svc.players.reply_token(reply_token)
        if found is None or (found[1] != sender and found[1] != svc.links.home(sender)):  # theirs, or their home's
            return reject("reply address does not belong to the sender")
    fields = {"channel": "email", "from": sender, "to": form.get("recipient", ""), "body": new_text(form),
              "subject": form.get("subject", ""), "received": now_ms(), "status": "queued"}
    if reply_token:
        fields["token"] = reply_token
    if not flood.ok:  # the first one over: taken to be answered with the notice (issue 23 case 14)
        fields["flood"] = str(limits.setting(svc.config, "LIMIT_MESSAGES_PER_MINUTE"))
    claim = svc.store.record_inbound(sender, message_id, fields, int(cfg["MESSAGE_TTL"]))
    logs.recorded(message_id, sender, "email", claim)
    if claim != "done":
        queue_inbound(message_id, sender)
    return jsonify(status="queued")

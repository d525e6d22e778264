"""Test helpers: webhooks signed exactly as Twilio and Mailgun sign them, and waiting for the worker."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import uuid
from typing import Any, Callable

from twilio.request_validator import RequestValidator

from service.bootstrap import Dependencies
from service.store.base import scan_keys
from tests import waiting

BASE = "https://spades.example.test"
TOKEN = "test-auth-token"
MG_KEY = "mg-test-signing-key"
_sids = itertools.count(1)


def new_sid() -> str:
    return "SM" + uuid.uuid4().hex


def twilio_sign(url: str, params: dict[str, str], token: str = TOKEN) -> str:
    return RequestValidator(token).compute_signature(url, params)


def sms_params(from_: str, body: str, sid: str | None = None, to: str = "+15550000000") -> dict[str, str]:
    return {"MessageSid": sid or new_sid(), "SmsSid": sid or "", "AccountSid": "AC" + "0" * 32, "From": from_,
            "To": to, "Body": body, "NumMedia": "0"}


def post_sms(client: Any, from_: str, body: str, sid: str | None = None, token: str = TOKEN) -> tuple[Any, str]:
    """POST a signed incoming-SMS webhook; returns (response, message id as recorded)."""
    params = sms_params(from_, body, sid)
    params["SmsSid"] = params["MessageSid"]
    sig = twilio_sign(BASE + "/sms", params, token)
    resp = client.post("/sms", data=params, headers={"X-Twilio-Signature": sig})
    SENDERS["sms:" + params["MessageSid"]] = _address(from_)
    return resp, "sms:" + params["MessageSid"]


def mailgun_fields(key: str = MG_KEY, timestamp: int | None = None, token: str | None = None) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    tok = token or uuid.uuid4().hex + uuid.uuid4().hex[:18]
    sig = hmac.new(key.encode(), (ts + tok).encode(), hashlib.sha256).hexdigest()
    return {"timestamp": ts, "token": tok, "signature": sig}


def post_email(client: Any, sender: str, recipient: str, body: str, *, stripped: str | None = None,
               message_id: str | None = None, spf: str = "Pass", dkim: str = "", from_: str | None = None,
               extra_headers: list[list[str]] | None = None, **sig: Any) -> tuple[Any, str]:
    """POST a signed Mailgun inbound-route form; ``spf``/``dkim``: the verdicts Mailgun adds to the
    message's headers (``message-headers``); ``from_``: a From header other than ``sender``'s."""
    mid = message_id or f"{uuid.uuid4().hex}@mail.example.org"
    headers = [["From", from_ or f"Player <{sender}>"], *(extra_headers or [])]
    headers += [["X-Mailgun-Spf", spf]] if spf else []
    headers += [["X-Mailgun-Dkim-Check-Result", dkim]] if dkim else []
    form = {"sender": sender, "from": from_ or f"Player <{sender}>", "recipient": recipient, "subject": "Re: Spades",
            "body-plain": body, "Message-Id": f"<{mid}>", "message-headers": json.dumps(headers), **mailgun_fields(**sig)}
    if stripped is not None:
        form["stripped-text"] = stripped
    SENDERS["mail:" + mid] = _address(from_ or sender)
    return client.post("/email/inbound", data=form), "mail:" + mid


def wait_for(pred: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    """:func:`tests.waiting.wait_for` with this module's argument order."""
    return waiting.wait_for(what, pred, timeout, interval=0.005)


def _address(raw: str) -> str:
    from service.addresses import BadAddress, parse_address

    try:
        return parse_address(raw, "US").value
    except BadAddress:
        return raw


SENDERS: dict[str, str] = {}  # message id -> its sender's address, for the messages posted here


def inbound(svc: Dependencies, message_id: str) -> dict[str, str] | None:
    """``Store.inbound`` of a message posted here (a message is recorded under its sender)."""
    return svc.store.inbound(SENDERS[message_id], message_id)


def wait_handled(svc: Dependencies, message_id: str, timeout: float = 15.0) -> None:
    wait_for(lambda: (inbound(svc, message_id) or {}).get("status") == "done", timeout, f"{message_id} handled")


def worker_idle(app: Any, timeout: float = 15.0) -> None:
    """Until the app's worker has nothing waiting or being run (:func:`tests.conftest.wait_worker_idle`)."""
    from tests.conftest import wait_worker_idle

    wait_worker_idle(app.config["BROKER_URL"], app.config["QUEUE"], timeout)


def wait_outbox_settled(svc: Dependencies, timeout: float = 15.0) -> None:
    """Until no outbox entry is queued or being sent."""
    def settled() -> bool:
        for owner in [k.decode() for k in scan_keys(svc.redis, "*:outq")]:
            if svc.redis.zcard(owner):
                return False
        return True
    wait_for(settled, timeout, "outbox settled")


def local_messages(svc: Dependencies, to: str | None = None) -> list[dict[str, Any]]:
    """Messages the local outbox "sent", oldest first (optionally only those to ``to``)."""
    out = [m for _i, m in svc.store.read_local(count=1_000_000)]
    return [m for m in out if to is None or m["to"] == to]

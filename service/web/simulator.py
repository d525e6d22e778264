"""The local simulator: two phones, a WhatsApp phone, a Telegram phone and an email inbox in one page, talking to the
real webhooks. Served under ``/simulator/`` only when switched on (``SLOWSPADES_SIMULATOR=1``; the app factory
registers this blueprint only then: every simulator URL is a 404 otherwise). It never short-cuts the service:

* ``POST /simulator/sign`` builds the exact form Twilio (``/sms``, an SMS or a WhatsApp message) or Mailgun
  (``/email/inbound``) would post, signed with the local secrets, or the update Telegram would post to ``/telegram``
  (:mod:`service.web.simulator_telegram`: a text, or a tapped button's ``callback_query``, with the secret header);
  the page then posts it itself to the real webhook, which verifies it as it would in production.
* ``GET /simulator/messages`` reads the local outbox (``Store.read_local``, where the worker "sends" messages when no
  provider is configured), each SMS with its segment count, each WhatsApp message with its count of messages and the
  template it went as (if any), or the buttons it shows inside the window (a tap is signed as Twilio posts it:
  ``ButtonPayload`` or ``ListId``), each Telegram message with its inline keyboard; the page polls it.
* ``GET /simulator/window?address=whatsapp:+...``: a WhatsApp address's 24-hour window (:mod:`service.store.window`).
* ``GET|POST /simulator/clock`` shows and advances the service clock (:mod:`service.store.clock`), then runs the beat
  jobs at once, so due reminders fire. Without a Twilio auth token, a Mailgun signing key or a Telegram secret, a
  random local secret is made once, kept in Redis (every web process shares it) and used as that setting.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import time
import uuid
from email.utils import formatdate
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    jsonify,
    request,
    send_from_directory,
)
from flask.typing import ResponseReturnValue
from twilio.request_validator import RequestValidator

from ..addresses import WHATSAPP_PREFIX
from ..store.window import window_left_ms
from .simulator_telegram import telegram_fields, telegram_request

ASSETS = Path(__file__).with_name("simulator_assets")
bp = Blueprint("simulator", __name__, url_prefix="/simulator", static_folder=str(ASSETS),
               static_url_path="/assets")

#: The devices on the page: (element id, label, default address).
DEVICES = (("phone-a", "Phone A", "+15550001001"), ("phone-b", "Phone B", "+15550001002"),
           ("whatsapp", "WhatsApp", "whatsapp:+15550001003"), ("telegram", "Telegram", "telegram:5550001004"),
           ("inbox", "Email", "carol@example.com"))
CHANNELS = {"inbox": "email", "whatsapp": "whatsapp", "telegram": "telegram"}  # a device's channel; else sms
#: The number the phones text when Twilio is not configured (a US 555 number).
SERVICE_NUMBER = "+15550000000"
SECRETS = {"TWILIO_AUTH_TOKEN": "twilio", "MAILGUN_SIGNING_KEY": "mailgun",  # setting -> the simulator's secret
           "TELEGRAM_SECRET": "telegram"}
TAIL = 500


def enabled(config: Mapping[str, Any]) -> bool:
    """Whether the simulator is switched on: ``SIMULATOR`` in the config, else ``SLOWSPADES_SIMULATOR``."""
    raw = config.get("SIMULATOR")
    if raw is None:
        raw = os.environ.get("SLOWSPADES_SIMULATOR", "")
    if isinstance(raw, bool):
        return raw
    return str(raw).strip().lower() in ("1", "true", "yes", "on")


class SimulatorNotLocal(RuntimeError):
    """The simulator is switched on where it must not be (not loopback, or a real Twilio account set)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an IP, without port) is this machine's loopback."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind_host(bind: str) -> str:
    """The host of a gunicorn ``--bind`` (``host:port``, ``[::1]:port``, ``unix:path``)."""
    bind = bind.strip()
    if bind.startswith("unix:"):
        return "localhost"  # a Unix socket is reachable from this machine only
    if bind.startswith("["):
        return bind[1:].partition("]")[0]
    return bind.rpartition(":")[0] if ":" in bind else bind


def refusal(config: Mapping[str, Any]) -> str | None:
    """Why the simulator may not run with ``config`` (None: it may): it signs webhooks for whoever reaches
    it and shows every player's messages, so only on loopback, and never next to a real Twilio account."""
    why = []
    if not is_loopback(_bind_host(str(config.get("BIND") or ""))):
        why.append(f"SLOWSPADES_BIND={config.get('BIND')!r} is not a loopback address")
    host = urlsplit(str(config.get("PUBLIC_BASE_URL") or "")).hostname or ""
    if not is_loopback(host):
        why.append(f"SLOWSPADES_PUBLIC_BASE_URL={config.get('PUBLIC_BASE_URL')!r} is not a loopback URL")
    if config.get("TWILIO_ACCOUNT_SID"):
        why.append("SLOWSPADES_TWILIO_ACCOUNT_SID is set (a real Twilio account)")
    return "; ".join(why) or None


def register(app: Flask) -> bool:
    """Register the simulator on ``app`` if it is switched on; returns whether it was. Raises
    :class:`SimulatorNotLocal` (the app does not start) if it is on where it must not be."""
    if not enabled(app.config):
        return False
    why = refusal(app.config)
    if why:
        raise SimulatorNotLocal(f"SLOWSPADES_SIMULATOR is on, refusing to start: {why}. The simulator is for "
                                "local runs only (scripts/run-local); switch it off (SLOWSPADES_SIMULATOR=0).")
    app.register_blueprint(bp)
    return True


#: Headers a proxy adds: any of them, even empty, means the request did not come straight from this machine.
PROXY_HEADERS = ("X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Server", "X-Real-IP",
                 "Forwarded", "Via", "X-Client-IP", "True-Client-IP", "CF-Connecting-IP")


def bound_host(environ: Mapping[str, Any]) -> str:
    """The address the server actually listens on for this request: the local end of its socket (gunicorn's
    ``gunicorn.socket``, werkzeug's ``werkzeug.socket``), not ``SLOWSPADES_BIND`` (which gunicorn may not
    have been given); a Unix socket is this machine's. Without a socket (a test client): ``SERVER_NAME``."""
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    if sock is None:
        return str(environ.get("SERVER_NAME") or "")
    try:
        name = sock.getsockname()
    except OSError:
        return ""
    return str(name[0]) if isinstance(name, tuple) else "localhost"


@bp.before_request
def loopback_clients_only() -> ResponseReturnValue | None:
    """Only a browser on this machine, not through a proxy, to a server bound to loopback, naming a loopback host in
    ``Host`` (issue 44 case 11: a page of another site whose name was rebound to 127.0.0.1 sends its own name), may
    use the simulator."""
    proxied = any(name in request.headers for name in PROXY_HEADERS)
    if proxied or not is_loopback(request.remote_addr or "") or not is_loopback(bound_host(request.environ)):
        return jsonify(error="the simulator answers this machine only"), 403
    if not is_loopback(host_name(request.host)):  # DNS rebinding: a page of another site, its name now ours
        return jsonify(error="the simulator answers only to localhost or a loopback address in the Host header"), 403
    return None


def host_name(host: str) -> str:
    """The name of a ``Host`` header (``localhost:8000``, ``[::1]:8000``), without port; ``""`` if malformed."""
    try:
        return urlsplit("//" + host).hostname or ""
    except ValueError:
        return ""


def _svc() -> Any:
    return current_app.extensions["slowspades"]


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


@bp.before_app_request
def ensure_local_secrets() -> None:
    """Give the webhooks a shared local secret when none is configured (simulator runs only)."""
    cfg = current_app.config
    for name, secret in SECRETS.items():
        if cfg.get(name):
            continue
        cfg[name] = _svc().store.simulator_secret(secret, lambda: secrets.token_hex(20))


def service_number() -> str:
    """The number the phones text: the configured Twilio sender, else a local 555 number."""
    sender = str(current_app.config.get("TWILIO_FROM") or "")
    return sender if sender.startswith("+") else SERVICE_NUMBER


def mail_address() -> str:
    """The address an email player writes to when no game's reply address applies."""
    return f"play@{current_app.config['MAIL_DOMAIN']}"


# -- the page ---------------------------------------------------------------------------
@bp.get("/")
def page() -> ResponseReturnValue:
    return send_from_directory(ASSETS, "index.html")


@bp.get("/config")
def config() -> ResponseReturnValue:
    """The devices and addresses the page shows (overridable with ``?phone-a=...&phone-b=...&inbox=...``)."""
    devices = [{"id": i, "label": label, "address": request.args.get(i, default),
                "channel": CHANNELS.get(i, "sms")} for i, label, default in DEVICES]
    return jsonify(devices=devices, service_number=service_number(), whatsapp_number=whatsapp_number(),
                   mail_to=mail_address(), public_base_url=current_app.config["PUBLIC_BASE_URL"])


def whatsapp_number() -> str:
    """The address the WhatsApp phone writes to: the configured WhatsApp sender, else the service's number."""
    sender = str(current_app.config.get("TWILIO_WHATSAPP_FROM") or "").removeprefix(WHATSAPP_PREFIX)
    return WHATSAPP_PREFIX + (sender if sender.startswith("+") else service_number())


# -- signing what a provider would post --------------------------------------------------
def twilio_form(sender: str, body: str, to: str) -> dict[str, str]:
    """The form of Twilio's incoming-message webhook for one SMS."""
    sid = "SM" + uuid.uuid4().hex
    return {"ToCountry": "US", "SmsMessageSid": sid, "NumMedia": "0", "SmsSid": sid, "SmsStatus": "received",
            "Body": body, "To": to, "NumSegments": "1", "MessageSid": sid,
            "AccountSid": str(current_app.config.get("TWILIO_ACCOUNT_SID") or "AC" + "0" * 32),
            "From": sender, "ApiVersion": "2010-04-01", "FromCountry": "US"}


def sign_twilio(url: str, form: Mapping[str, str], token: str) -> str:
    """``X-Twilio-Signature`` of a form POST to ``url`` (HMAC-SHA1 over the URL and sorted fields)."""
    return str(RequestValidator(token).compute_signature(url, dict(form)))


def mailgun_form(sender: str, body: str, recipient: str, subject: str, quoted: str = "",
                 in_reply_to: str = "") -> dict[str, str]:
    """Mailgun's inbound-route form for one email, signed with the local signing key."""
    key = str(current_app.config["MAILGUN_SIGNING_KEY"])
    timestamp = str(int(time.time()))
    token = secrets.token_hex(25)
    signature = hmac.new(key.encode(), (timestamp + token).encode(), hashlib.sha256).hexdigest()
    plain = body
    if quoted:
        plain += f"\n\nOn {formatdate(localtime=False)}, Slow Spades wrote:\n" + "\n".join(
            "> " + line for line in quoted.splitlines())
    msg_id = f"<{uuid.uuid4().hex}@simulator.localhost>"
    form = {"recipient": recipient, "sender": sender, "from": sender, "To": recipient, "subject": subject,
            "body-plain": plain, "stripped-text": body, "stripped-signature": "", "Message-Id": msg_id,
            "timestamp": timestamp, "token": token, "signature": signature,
            # the verdict Mailgun adds for mail whose SPF passes (service.email_identity): the local inbox's is
            "message-headers": json.dumps([["X-Mailgun-Spf", "Pass"], ["From", sender], ["To", recipient]])}
    if in_reply_to:
        form["In-Reply-To"] = in_reply_to
        form["References"] = in_reply_to
    return form


@bp.post("/sign")
def sign() -> ResponseReturnValue:
    """The webhook request a provider would make for a message typed on the page: path, form, headers."""
    data = request.get_json(silent=True) or {}
    channel, sender, body = data.get("channel"), str(data.get("from") or ""), str(data.get("body") or "")
    if not sender:
        abort(400)
    base = current_app.config["PUBLIC_BASE_URL"]
    if channel in ("sms", "whatsapp"):  # a WhatsApp message: the same webhook, From whatsapp:+...
        if (channel == "whatsapp") != sender.startswith(WHATSAPP_PREFIX):
            abort(400)
        default_to = whatsapp_number() if channel == "whatsapp" else service_number()
        form = twilio_form(sender, body, str(data.get("to") or default_to))
        if data.get("tap") and channel == "whatsapp":  # a tapped button or list item, as Twilio posts it: its id
            form.update({"ListId": str(data["tap"]), "ListTitle": body} if data.get("list")
                        else {"ButtonPayload": str(data["tap"]), "ButtonText": body})
        sig = sign_twilio(base + "/sms", form, str(current_app.config["TWILIO_AUTH_TOKEN"]))
        return jsonify(path="/sms", form=form, headers={"X-Twilio-Signature": sig})
    if channel == "telegram":
        signed = telegram_request(sender, data, str(current_app.config["TELEGRAM_SECRET"]))
        return jsonify(signed) if signed else abort(400)
    if channel == "email":
        subject = str(data.get("subject") or "Slow Spades")
        form = mailgun_form(sender, body, str(data.get("recipient") or mail_address()), subject,
                            str(data.get("quoted") or ""), str(data.get("in_reply_to") or ""))
        return jsonify(path="/email/inbound", form=form, headers={})
    abort(400)


# -- the local outbox ----------------------------------------------------------------------
def describe(stream_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    """One local-outbox message as the page shows it (SMS with segment count and encoding)."""
    body = str(entry.get("body") or "")
    out = {"stream_id": stream_id, "time_ms": int(stream_id.split("-")[0]), "id": entry.get("id"),
           "channel": entry.get("channel"), "to": entry.get("to"), "body": body, "kind": entry.get("kind", ""),
           "game": entry.get("game", "")}
    if entry.get("channel") == "sms":
        out.update(sms_stats(body))
    elif entry.get("channel") == "whatsapp":
        out.update(whatsapp_stats(body), template=entry.get("content_sid") or "",
                   variables=entry.get("content_variables") or "", buttons=wa_buttons(entry))
    elif entry.get("channel") == "telegram":
        out.update(telegram_fields(stream_id, entry))
    else:
        out.update(subject=entry.get("subject", ""), reply_to=entry.get("reply_to", ""),
                   message_id=entry.get("message_id", ""), html=entry.get("html", ""))
    return out


def wa_buttons(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The buttons a WhatsApp message shows (:func:`service.whatsapp_buttons.shown`), the phone's to tap."""
    from ..whatsapp_buttons import shown  # as sms_stats: chat (which it reads) only when a message is shown

    return shown(current_app.config, entry)


def sms_stats(body: str) -> dict[str, Any]:
    """Segments, encoding and length of an SMS body (``chat.gsm`` when present)."""
    try:
        from chat import gsm  # here, not at the top: the page is served even from a checkout without chat/
    except ImportError:  # pragma: no cover - chat is part of the repo; a fallback for a partial checkout
        n = len(body)
        return {"segments": 1 if n <= 160 else -(-n // 153), "encoding": "GSM-7?", "chars": n}
    return {"segments": gsm.segments(body), "encoding": "GSM-7" if gsm.is_gsm7(body) else "UCS-2",
            "chars": len(body)}


def whatsapp_stats(body: str) -> dict[str, Any]:
    """How many WhatsApp messages a body goes as (one up to Twilio's 1,600 characters) and its length."""
    from chat.render import whatsapp_parts  # as sms_stats: chat is read only when a message is shown

    return {"parts": len(whatsapp_parts(body)), "chars": len(body)}


@bp.get("/messages")
def messages() -> ResponseReturnValue:
    """Messages sent to the local outbox after stream id ``after`` (else the last ones), oldest first."""
    store = _svc().store
    after = request.args.get("after", "")
    # every owner's local outbox stream, merged (Store.read_local): on a Redis Cluster too
    raw = store.read_local(count=TAIL, after="(" + after) if after else store.read_local(count=10**9)[-TAIL:]
    out = [describe(sid, message) for sid, message in raw]
    last = out[-1]["stream_id"] if out else after
    return jsonify(messages=out, last=last)


# -- the WhatsApp window -------------------------------------------------------------------
@bp.get("/window")
def window() -> ResponseReturnValue:
    """A WhatsApp address's 24-hour window now, by the service's clock: ``open`` and ``left_ms`` (when it
    closes), ``last_ms`` (its last message in), and ``text`` as the page shows it (``open · closes in 23:59``,
    ``closed``)."""
    address = request.args.get("address", "")
    if not address.startswith(WHATSAPP_PREFIX):
        abort(400)
    store = _svc().store
    last, now = store.last_inbound_ms(address), store.clock.now_ms()
    left = window_left_ms(last, now)
    minutes = -(-left // 60_000)  # rounded up: open for less than a minute still shows 00:01
    text = f"open · closes in {minutes // 60:02d}:{minutes % 60:02d}" if left else "closed"
    return jsonify(address=address, open=bool(left), left_ms=left, last_ms=last, now_ms=now, text=text)


# -- the clock ---------------------------------------------------------------------------
def clock_state() -> dict[str, Any]:
    shared = _svc().store.clock
    off = int(shared.offset() * 1000)
    return {"now_ms": shared.now_ms(), "offset_ms": off, "offset_hours": round(off / 3_600_000, 2)}


@bp.get("/clock")
def get_clock() -> ResponseReturnValue:
    return jsonify(clock_state())


@bp.post("/clock")
def post_clock() -> ResponseReturnValue:
    """Advance the clock by ``seconds`` (or reset it with ``reset``), then run every beat job once."""
    data = request.get_json(silent=True) or {}
    shared = _svc().store.clock
    if data.get("reset"):
        shared.reset()
    else:
        try:
            seconds = float(data.get("seconds", 0))
        except (TypeError, ValueError):
            abort(400)
        if seconds < 0 or seconds > 365 * 86400:
            abort(400)
        shared.advance(seconds)
    fired = run_beat_jobs()
    return jsonify({**clock_state(), "fired": fired})


def run_beat_jobs() -> list[str]:
    """Queue every periodic job of the beat schedule now (they are idempotent), e.g. due reminders."""
    celery_app = current_app.extensions.get("celery")
    if celery_app is None:
        return []
    names = sorted({str(e["task"]) for e in (celery_app.conf.beat_schedule or {}).values() if e.get("task")})
    for name in names:
        celery_app.send_task(name)
    return names

"""HTTP endpoints: ``/sms`` and ``/sms/status`` (Twilio), ``/email/inbound`` (Mailgun), ``/healthz``."""

from __future__ import annotations

from flask import current_app, request
from twilio.request_validator import (
    SIGNATURE_HEADER,
    SIGNATURE_SETTINGS_HEADER,
    RequestValidator,
    get_signature_algorithm,
)


def public_url() -> str:
    """The URL the provider called, rebuilt from the configured public base URL (right behind a TLS proxy)."""
    base = current_app.config["PUBLIC_BASE_URL"]
    qs = request.query_string.decode("latin-1")
    return base + request.path + ("?" + qs if qs else "")


def twilio_signature_ok() -> bool:
    """Whether the request carries a valid ``X-Twilio-Signature`` (Auth Token, or a webhook SharedKey)."""
    cfg = current_app.config
    signature = request.headers.get(SIGNATURE_HEADER, "")
    settings = request.headers.get(SIGNATURE_SETTINGS_HEADER)
    secret = cfg.get("TWILIO_WEBHOOK_SHARED_KEY") if settings else cfg.get("TWILIO_AUTH_TOKEN")
    if not signature or not secret:
        return False
    validator = RequestValidator(secret)
    return bool(validator.validate(public_url(), request.form, signature, get_signature_algorithm(settings)))


def queue_inbound(message_id: str, sender: str) -> None:
    """Queue the worker task that handles a recorded inbound message."""
    current_app.extensions["celery"].send_task("workers.tasks.handle_inbound", args=[message_id, sender])

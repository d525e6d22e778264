"""HTTP endpoints: ``/sms`` and ``/sms/status`` (Twilio), ``/email/inbound`` (Mailgun), ``/livez``, ``/readyz``, ``/healthz``.

Also here: :func:`take_inbound`, how a verified inbound message is recorded and queued, and :func:`take_receipt`,
how a verified Twilio delivery receipt is recorded (and a failure's task queued), or, for either, while Redis does
not answer, kept in the web process's local spool (``service.spool``) until it does.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from flask import Flask, current_app, request
from kombu import pools
from kombu.exceptions import OperationalError as BrokerError
from kombu.pools import ProducerPool
from twilio.request_validator import (
    SIGNATURE_HEADER,
    SIGNATURE_SETTINGS_HEADER,
    RequestValidator,
    compare,
    get_signature_algorithm,
)

from .. import logs
from ..broker_options import inbound_transport_options
from ..spool import Drainer, Spool
from ..store import UNREACHABLE as STORE_UNREACHABLE
from ..store import ReplicaLagError
from .metrics import spooled

log = logging.getLogger(__name__)
HANDLE_INBOUND = "workers.tasks.handle_inbound"  # service.after.HANDLE_INBOUND (the web does not import the worker's layers)
RECEIPT = "workers.tasks.receipt"  # service.after.RECEIPT, likewise
#: the spool's files: an inbound message (no ``kind``, as every file before receipts were spooled) or a receipt
RECEIPT_KIND = "receipt"

#: What "Redis does not answer" looks like: down, restarting, loading its AOF (BusyLoadingError is a
#: ConnectionError), or the broker (the same Redis) refusing the task.
UNREACHABLE: tuple[type[Exception], ...] = (*STORE_UNREACHABLE, BrokerError)
#: What "not recorded" looks like: Redis does not answer, or no replica acknowledged the record in time (a master cut
#: off by a partition takes writes it will lose: docs/scaling.md); the message is then kept in the spool.
NOT_RECORDED: tuple[type[Exception], ...] = (*UNREACHABLE, ReplicaLagError)


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
    url, algorithm = public_url(), get_signature_algorithm(settings)
    # The URL as configured is the one Twilio signed: one HMAC settles a genuine request. The SDK's validate
    # computes two (the URL with its port and without), so it is asked only when this one does not match.
    try:
        if compare(validator.compute_signature(url, request.form, algorithm), signature):
            return True
    except ValueError:  # an algorithm the SDK does not know: its validate refuses it (and says so in the log)
        pass
    return bool(validator.validate(url, request.form, signature, algorithm))


def inbound_producers(app: Flask) -> ProducerPool | None:
    """The producers of the inbound task when its broker options differ from the app's
    (:func:`service.broker_options.inbound_transport_options`: RabbitMQ without publisher confirms); None for a Redis broker.
    A pool of kombu producers on a pool of connections of this process's own, made on first use in each process:
    one made before a fork (an app preloaded by gunicorn) is not shared with the child."""
    made = app.extensions.get("slowspades_inbound_producers")
    if made is None or made[0] != os.getpid():
        options = inbound_transport_options(app.config)
        celery = app.extensions["celery"]
        limit = pools.get_limit()
        made = (os.getpid(), None if options is None else ProducerPool(
            celery.connection_for_write(transport_options=options).Pool(limit=limit), limit=limit))
        app.extensions["slowspades_inbound_producers"] = made
    pool: ProducerPool | None = made[1]
    return pool


def queue_inbound(message_id: str, sender: str) -> None:
    """Queue the worker task that handles a recorded inbound message (on RabbitMQ without waiting for the broker's
    confirm: :func:`inbound_producers`)."""
    celery = current_app.extensions["celery"]
    pool = inbound_producers(current_app)
    if pool is None:
        celery.send_task(HANDLE_INBOUND, args=[message_id, sender])
        return
    with pool.acquire(block=True) as producer:
        celery.send_task(HANDLE_INBOUND, args=[message_id, sender], producer=producer)


def record_and_queue(message_id: str, sender: str, fields: dict[str, Any], ttl: int) -> str:
    """Record a verified inbound message (its id claimed once) and queue its handling; returns the
    claim (``new``, ``pending``, ``done``). Raises one of :data:`NOT_RECORDED` if Redis does not answer, or no
    replica acknowledged the record (then it is not queued either)."""
    claim = current_app.extensions["slowspades"].store.record_inbound(sender, message_id, fields, ttl)
    logs.recorded(message_id, sender, str(fields.get("channel") or ""), claim)
    if claim != "done":  # new, or a retry of a message we may have failed to queue: queue (again)
        queue_inbound(message_id, sender)
    return claim


def take_inbound(message_id: str, sender: str, fields: dict[str, Any], ttl: int) -> str:
    """:func:`record_and_queue`, or, if it is not recorded (:data:`NOT_RECORDED`), the message kept in the local spool
    (fsync'd) for the drainer to hand over later: returns the claim, or ``spooled``. Raises
    :class:`service.spool.SpoolError` if the disk cannot take it either."""
    try:
        return record_and_queue(message_id, sender, fields, ttl)
    except NOT_RECORDED as exc:
        keep({"message_id": message_id, "sender": sender, "fields": fields, "ttl": ttl}, exc, f"inbound {message_id}")
        logs.recorded(message_id, sender, str(fields.get("channel") or ""), "spooled")
        return "spooled"


def record_receipt(outbox_id: str, status: str, sid: str, code: str) -> None:
    """Record a Twilio receipt on its outbox entry (``Store.record_receipt``: once, never backwards; an id not of an
    outbox entry of ours is ignored) and, when this receipt changed the entry to failed with an error code, queue
    the receipt task. A receipt replayed (a ``failed 30005`` posted again, by Twilio or anyone holding one) changes
    nothing and queues nothing (issue 44 case 7: it used to mark the player unreachable again after they wrote, and
    pause their games again). Raises one of :data:`UNREACHABLE` if Redis or the broker does not answer."""
    try:
        now, changed = current_app.extensions["slowspades"].store.record_receipt(
            outbox_id, status, sid, f"twilio error {code}" if code else "")
    except ValueError:
        return  # not an outbox id of ours: nothing to update
    if changed and now == "failed" and code and status == "failed":  # a receipt seen again changes nothing: its
        current_app.extensions["celery"].send_task(RECEIPT, args=[outbox_id, sid, code])  # work was queued once


def take_receipt(outbox_id: str, status: str, sid: str, code: str) -> None:
    """:func:`record_receipt`, or, if Redis (or the broker) does not answer, the receipt kept in the local spool for the
    drainer to record later, since Twilio does not send a status callback again. Raises
    :class:`service.spool.SpoolError` if the disk cannot take it either."""
    try:
        record_receipt(outbox_id, status, sid, code)
    except UNREACHABLE as exc:
        keep({"kind": RECEIPT_KIND, "outbox_id": outbox_id, "status": status, "sid": sid, "code": code}, exc,
             f"status {status} of {outbox_id}")


def keep(record: dict[str, Any], why: Exception, what: str) -> None:
    """``record`` written to this process's spool (fsync'd), counted and logged, and the drainer woken to hand it over
    once Redis answers. Raises :class:`service.spool.SpoolError` if the disk cannot take it."""
    path = spool_of(current_app).put(record)
    spooled()
    log.warning("not recorded (%s): %s kept in %s", why, what, path)
    current_app.extensions["slowspades_drainer"].wake()


def spool_of(app: Flask) -> Spool:
    spool: Spool = app.extensions["slowspades_drainer"].spool
    return spool


def install_spool(app: Flask) -> Drainer:
    """The app's spool and its drainer: tried before each request, and from a thread while not empty."""

    def hand_over(record: dict[str, Any]) -> None:
        with app.app_context():
            if record.get("kind") == RECEIPT_KIND:
                record_receipt(record["outbox_id"], record["status"], record["sid"], record["code"])
            else:
                record_and_queue(record["message_id"], record["sender"], record["fields"], int(record["ttl"]))

    drainer = Drainer(Spool(app.config["SPOOL_DIR"]), hand_over)
    app.extensions["slowspades_drainer"] = drainer

    @app.before_request
    def drain_spool() -> None:
        drainer.try_now()  # older messages first: a spooled one is handed over before this request's

    if drainer.spool.pending():  # left by a process that stopped before Redis came back
        drainer.wake()
    return drainer

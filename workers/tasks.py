"""Worker tasks: handle an inbound message, deliver an outbox entry, sweep the outbox.

All are idempotent, so late acknowledgement (a task is redelivered if its worker dies)
can only repeat work, never repeat an effect: a consumed message is a duplicate to the
store, and an outbox entry is claimed before it is sent.
"""

from __future__ import annotations

import redis
from celery import shared_task
from flask import current_app

from service import handlers
from service.delivery import (
    UNSENDABLE,
    TransientSendError,
    all_local,
    deliver_local_many,
)
from service.delivery import deliver as deliver_entry
from service.store import new_claim_token

DELIVER = "workers.tasks.deliver"


def _svc():  # type: ignore[no-untyped-def]
    return current_app.extensions["slowspades"]


@shared_task(name="workers.tasks.handle_inbound", bind=True, ignore_result=True,
             autoretry_for=(redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, RuntimeError),
             retry_backoff=1, retry_backoff_max=60, retry_jitter=True, max_retries=10)
def handle_inbound(self, message_id: str, sender: str) -> str:  # type: ignore[no-untyped-def]
    """Decide a recorded inbound message of ``sender`` and queue the deliveries it causes (retried on Redis errors)."""
    svc = _svc()
    local = all_local(svc)  # the local outbox is a Redis write: no need for a task per message
    attempt = new_claim_token()  # issue 15: this handling's own claim on the entries it sends, never the message id
    result = handlers.handle_inbound(svc, message_id, sender, send_now=attempt if local else False)
    after = result.after
    claimed = list(after.claimed) if after else []  # a move's messages, born claimed for this task
    unsendable = list(after.unsendable) if after else []
    mine = {e["id"] for e in claimed} | set(unsendable)
    rest = [oid for oid in result.outbox_ids if oid not in mine]
    tail = svc.redis.pipeline(transaction=False)  # the last writes, in one round trip
    if local:
        svc.store.settle_local_many(claimed, [(oid, UNSENDABLE) for oid in unsendable], tail=tail, token=attempt)
        if rest:  # any others (replies; a retry's): claimed and checked against STOP first
            deliver_local_many(svc, rest, after.told if after else (), tail=tail, by=attempt)
    else:
        for outbox_id in result.outbox_ids:
            self.app.send_task(DELIVER, args=[outbox_id])
    from . import beat

    # the message done, the new turn's reminders and timeout; the computer's move queued after them
    if result.outcome != "missing":
        svc.store.queue_mark_inbound(tail, sender, message_id, "done")
    beat.after_handled(self.app, svc, result.game_id, result.outbox_ids, tail=tail, after=after,
                       duplicate=result.outcome == "duplicate")
    return result.outcome


@shared_task(name=DELIVER, bind=True, ignore_result=True, autoretry_for=(TransientSendError,),
             retry_backoff=2, retry_backoff_max=600, retry_jitter=True, max_retries=8)
def deliver(self, outbox_id: str) -> str:  # type: ignore[no-untyped-def]
    """Send one outbox entry (at most once); transient failures are retried with backoff."""
    return deliver_entry(_svc(), outbox_id, final_attempt=self.request.retries >= self.max_retries)


@shared_task(name="workers.tasks.sweep_outbox", bind=True, ignore_result=True)
def sweep_outbox(self) -> int:  # type: ignore[no-untyped-def]
    """Beat job: dispatch again outbox entries still queued, and inbound messages still unhandled,
    after SLOWSPADES_SWEEP_AFTER seconds."""
    svc = _svc()
    after = float(svc.config["SWEEP_AFTER"])
    stale = svc.store.stale_outbox(after)
    for outbox_id in stale:
        self.app.send_task(DELIVER, args=[outbox_id])
    inbound = svc.store.stale_inbound(after)  # recorded but never handled: queue them again
    for sender, message_id in inbound:
        self.app.send_task("workers.tasks.handle_inbound", args=[message_id, sender])
    return len(stale) + len(inbound)

"""Worker tasks: handle an inbound message, deliver an outbox entry, sweep the outbox.

All are idempotent, so late acknowledgement (a task is redelivered if its worker dies)
can only repeat work, never repeat an effect: a consumed message is a duplicate to the
store, and an outbox entry is claimed before it is sent.
"""

from __future__ import annotations

import redis
from celery import Task, shared_task
from flask import current_app

from service import inbound
from service.context import Services
from service.delivery import UNSENDABLE, TransientSendError, all_local, deliver_local_many
from service.delivery import deliver as deliver_entry
from service.lifecycle import hooks
from service.store import new_claim_token

from . import beat

DELIVER = "workers.tasks.deliver"


def _svc() -> Services:
    return current_app.extensions["slowspades"]  # type: ignore[no-any-return]


@shared_task(name="workers.tasks.handle_inbound", bind=True, ignore_result=True,
             autoretry_for=(redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, RuntimeError),
             retry_backoff=1, retry_backoff_max=60, retry_jitter=True, max_retries=10)
def handle_inbound(self: Task, message_id: str, sender: str) -> str:
    """Decide a recorded inbound message of ``sender`` and queue the deliveries it causes (retried on Redis errors)."""
    svc = _svc()
    local = all_local(svc)  # the local outbox is a Redis write: no need for a task per message
    attempt = new_claim_token()  # this handling's own claim on the entries it sends, never the message id
    result = inbound.handle_inbound(svc, message_id, sender, send_now=attempt if local else "")
    after = result.after
    claimed = list(after.claimed) if after else []  # a move's messages, born claimed for this task
    unsendable = list(after.unsendable) if after else []
    mine = {e["id"] for e in claimed} | set(unsendable)
    rest = [oid for oid in result.outbox_ids if oid not in mine]
    tail = svc.store.pipeline()  # the last writes, in one round trip: queued below, executed here
    if local:
        svc.store.settle_local_many(claimed, [(oid, UNSENDABLE) for oid in unsendable], tail=tail, token=attempt)
        if rest:  # any others (replies; a retry's): claimed and checked against STOP first
            deliver_local_many(svc, rest, after.told if after else (), tail=tail, by=attempt)
    else:
        for outbox_id in result.outbox_ids:
            self.app.send_task(DELIVER, args=[outbox_id])
    # the message done, the new turn's reminders and timeout; the computer's move queued after them
    if result.outcome != "missing":
        svc.store.queue_mark_inbound(tail, sender, message_id, "done")
    turn = hooks.after_handled(svc, result.game_id, result.outbox_ids, tail=tail, after=after,
                               duplicate=result.outcome == "duplicate")
    if len(tail):
        tail.execute()  # first: the messages it sends are in the local outbox before the computer's answer
    beat.queue_bot(self.app, svc, turn)  # (if this worker dies now, the beat makes the move: it is scheduled)
    return str(result.outcome)


@shared_task(name=DELIVER, bind=True, ignore_result=True, autoretry_for=(TransientSendError,),
             retry_backoff=2, retry_backoff_max=600, retry_jitter=True, max_retries=8)
def deliver(self: Task, outbox_id: str) -> str:
    """Send one outbox entry (at most once); transient failures are retried with backoff."""
    return deliver_entry(_svc(), outbox_id, final_attempt=self.request.retries >= self.max_retries)


@shared_task(name="workers.tasks.sweep_outbox", bind=True, ignore_result=True)
def sweep_outbox(self: Task) -> int:
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

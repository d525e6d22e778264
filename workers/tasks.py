"""Worker tasks: handle an inbound message, deliver an outbox entry, act on a failure receipt, sweep the outbox.

Each is a Celery entry point over :mod:`service.after` (what follows a change) or :mod:`service.delivery`.
All are idempotent, so late acknowledgement (a task is redelivered if its worker dies) can only repeat
work, never repeat an effect: a consumed message is a duplicate to the store, and an outbox entry is
claimed before it is sent.
"""

from __future__ import annotations

from celery import Task, shared_task
from flask import current_app

from service import after
from service.bootstrap import Dependencies
from service.config import setting
from service.delivery import deliver as deliver_entry
from service.send_errors import TransientSendError
from service.store import TRANSIENT_ERRORS

DELIVER = after.DELIVER
#: The longest wait between two retries of a task that Redis failed (``SLOWSPADES_TASK_RETRY_MAX``)
RETRY_MAX = int(setting("TASK_RETRY_MAX"))


def _svc() -> Dependencies:
    svc: Dependencies = current_app.extensions["slowspades"]
    return svc


@shared_task(name=after.HANDLE_INBOUND, bind=True, ignore_result=True, autoretry_for=TRANSIENT_ERRORS,
             retry_backoff=1, retry_backoff_max=RETRY_MAX, retry_jitter=True, max_retries=10)
def handle_inbound(self: Task, message_id: str, sender: str) -> str:
    """Decide a recorded inbound message of ``sender`` and what follows it (retried on Redis errors)."""
    return _svc().inject(after.handle_inbound)(message_id, sender, self.app.send_task)


@shared_task(name=DELIVER, bind=True, ignore_result=True, autoretry_for=(TransientSendError,),
             retry_backoff=2, retry_backoff_max=600, retry_jitter=True, max_retries=8)
def deliver(self: Task, outbox_id: str) -> str:
    """Send one outbox entry (at most once); transient failures are retried with backoff."""
    return _svc().inject(deliver_entry)(outbox_id, final_attempt=self.request.retries >= self.max_retries)


@shared_task(name=after.RECEIPT, bind=True, ignore_result=True, autoretry_for=TRANSIENT_ERRORS,
             retry_backoff=1, retry_backoff_max=RETRY_MAX, retry_jitter=True, max_retries=10)
def receipt(self: Task, outbox_id: str, provider_id: str, code: str) -> str:
    """A delivery receipt said an entry failed with ``code``: retry it later, or mark its address unreachable."""
    return _svc().inject(after.receipt)(outbox_id, provider_id, code, self.app.send_task)


@shared_task(name="workers.tasks.sweep_outbox", bind=True, ignore_result=True)
def sweep_outbox(self: Task) -> int:
    """Beat job: dispatch again outbox entries still queued, and inbound messages still unhandled,
    after SLOWSPADES_SWEEP_AFTER seconds."""
    return _svc().inject(after.sweep)(self.app.send_task)

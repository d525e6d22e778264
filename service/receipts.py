"""Delivery receipts: what a provider's failure code means, and what follows it.

The webhooks (``POST /sms/status`` for Twilio, SMS and WhatsApp; ``POST /email/events`` for Mailgun) record a
receipt on its outbox entry (``Store.record_receipt``: idempotent, never backwards) and, for a failure, queue the
``workers.tasks.receipt`` task, which calls :func:`on_failure`. By the code (Twilio's error codes, read from
Twilio's error pages; ``bounce`` and ``complained`` for email):

* :data:`TEMPORARY`: sent again after each delay of ``SLOWSPADES_RECEIPT_RETRY_DELAYS`` (the entry is queued again
  for that time and the sweep sends it; only the failed attempt is retried, so a receipt seen twice retries once
  and a delivered message is never sent again). When the retries are spent, :data:`HANDSET` codes (the phone
  stayed off) mark the address unreachable; the others leave the entry failed.
* :data:`UNREACHABLE`: the address is marked unreachable (``service.store.reach``): the player's games wait for
  them and each opponent is told once (:mod:`service.lifecycle.reach`).
* :data:`WINDOW` (63016, a WhatsApp free-form message outside the 24-hour window): neither; the address works, the
  message needed a template (the WhatsApp window step of ``service.channels`` chooses one before it is written).
* Anything else (30007 carrier filtering, an account or sender problem): the entry stays failed with its code, for
  the operator (``slowspades outbox list --status failed``); retrying the same message would fail the same way.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from . import logs, metrics
from .caches import GameCache
from .context import Config
from .lifecycle import reach as unreachable
from .store import Links, Players, Reach, Store, now_ms

log = logging.getLogger(__name__)

#: Twilio codes a later attempt may clear: 30001 queue overflow, 30003 unreachable handset (off, no signal, roaming),
#: 30008 unknown error, 30009 missing segment, 30036 validity period expired (queued too long), 30500 internal error.
TEMPORARY = frozenset({"30001", "30003", "30008", "30009", "30036", "30500"})
#: Temporary codes that mark the address unreachable once the retries are spent (the handset stayed unreachable).
HANDSET = frozenset({"30003"})
#: Codes that say this address cannot be reached: 30004 blocked by the recipient, 30005 unknown or inactive number,
#: 30006 landline or a carrier that takes no SMS, 21610 the recipient sent STOP to the carrier, 21211/21614 not a
#: valid (mobile) number, 63003 no WhatsApp account at that number; ``bounce`` an email's permanent failure,
#: ``complained`` its recipient marked it as spam.
UNREACHABLE = frozenset({"30004", "30005", "30006", "21610", "21211", "21614", "63003", "bounce", "complained"})
#: WhatsApp: a free-form message outside the 24-hour customer service window.
WINDOW = frozenset({"63016"})


def provider_code(error: str | None) -> str:
    """The provider's code in an entry's error as a receipt recorded it (``twilio error 30003`` -> ``30003``,
    ``mailgun failed bounce 550`` -> ``bounce 550``), else ``""``."""
    words = (error or "").split()
    if words[:2] == ["twilio", "error"] and len(words) == 3:
        return words[2]
    if words[:1] == ["mailgun"]:
        return " ".join(words[2:])
    return ""


def kind_of(code: str) -> str:
    """``retry``, ``unreachable``, ``window`` or ``failed`` (anything else: nothing more to do)."""
    if code in TEMPORARY:
        return "retry"
    if code in UNREACHABLE:
        return "unreachable"
    if code in WINDOW:
        return "window"
    return "failed"


def retry_delays_s(config: Config) -> list[float]:
    """``RECEIPT_RETRY_DELAYS``: the seconds before each retry."""
    return [float(x) for x in str(config["RECEIPT_RETRY_DELAYS"]).replace(" ", "").split(",") if x]


def on_failure(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
               outbox_id: str, provider_id: str, code: str,
               dispatch: Callable[[list[str]], None]) -> str:
    """What a failure receipt of ``outbox_id`` (attempt ``provider_id``, code ``code``) leads to; returns what was done:
    ``retry``, ``unreachable``, ``window``, ``failed``, ``stale`` (not the entry's last attempt), or ``missing``. Idempotent (a task delivered twice, or a receipt
    seen twice, does it once). ``dispatch``: sends the outbox entries it wrote (the opponents' notices)."""
    try:
        entry = store.outbox_entry(outbox_id)
    except ValueError:  # not an outbox id at all ('#', '5'): nothing of ours (the webhooks refuse them before)
        return "missing"
    if entry is None:
        return "missing"
    if provider_id and entry.get("sid") and entry["sid"] != provider_id:
        return "stale"  # a receipt of an earlier attempt, seen again: the entry's last attempt decides
    what = kind_of(code)
    if what == "retry":
        delays = retry_delays_s(config)
        tries = int(entry.get("tries") or 0)
        if tries < len(delays):
            due_ms = now_ms() + int(delays[tries] * 1000)  # the outbox's queue is in real time (the sweep's)
            got = store.retry_failed(outbox_id, provider_id, due_ms, len(delays))
            if got != "spent":
                if got == "queued":
                    _told(entry, outbox_id, "retried", code)
                return "retry" if got == "queued" else got
        if code not in HANDSET:
            return "failed"
        what = "unreachable"
    _told(entry, outbox_id, "failed", code)
    if what != "unreachable":
        return what
    mark(config, store, players, links, reach, games, str(entry.get("to", "")), code, dispatch)
    return "unreachable"


def _told(entry: dict[str, Any], outbox_id: str, status: str, code: str) -> None:
    """A receipt's failure in the metrics (the outbox alerts count them by code) and the log."""
    metrics.outbox(str(entry.get("channel", "")), status, code)
    logs.outbox_entry(outbox_id, str(entry.get("to", "")), str(entry.get("channel", "")), status, code)


def mark(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache, address: str,
         code: str, dispatch: Callable[[list[str]], None]) -> None:
    """Mark ``address`` unreachable (``code``) and stop its player's clock (idempotent: once per episode)."""
    if not address:
        return
    fresh, since = reach.mark_unreachable(address, code, store.clock.now_ms())
    if fresh:
        log.warning("address marked unreachable (%s)", code, extra={"player": logs.pseudonym(address), "code": code})
    dispatch(unreachable.stop_clock(config, store, players, links, reach, games, address, since))

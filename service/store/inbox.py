"""Inbound messages: each claimed once per sender and recorded until handled (a mixin of :class:`service.store.Store`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable

from redis.client import Pipeline
from redis.commands.core import Script

from .base import Client, now_ms, queue_script
from .codec import text
from .keys import (
    WHATSAPP_CHANNEL,
    WHATSAPP_PREFIX,
    inbound_keys,
    mailgun_token,
    message_digest,
    pending_key,
    pending_member,
    shards,
)
from .links import Links
from .reads import QueuedReads
from .replica import ReplicaLagError, lagged, registry_shard, run_replicated

CLAIM_INBOUND_LUA = r"""
-- KEYS: record, seen (this window), seen (the previous window)
-- ARGV: digest, record ttl s, seen expiry (unix s), the record (a JSON object: one SET with its expiry)
-- Claims a message id once: 'new' (recorded now), 'pending' (recorded, not yet handled), 'done' (handled).
-- A claim seen before writes too (the record's expiry again; the claim's expiry, unchanged), so that a WAIT
-- after it counts the replicas that have the record or the claim, not only those of an earlier write.
local function done(seen)
  local left = redis.call('PTTL', seen)
  if left > 0 then redis.call('PEXPIRE', seen, left) end
  return 'done'
end
-- claimed before: still recorded (not handled yet), else handled. A new message (the common case) is told by its
-- claim alone, without looking for its record first. (A record left unhandled past both windows of its claim is
-- recorded again as new: queued again, as 'pending' would have it.)
local function seen_before(seen)
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
    return 'pending'
  end
  return done(seen)
end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return seen_before(KEYS[3]) end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return seen_before(KEYS[2]) end  -- claimed in this window already
redis.call('EXPIREAT', KEYS[2], tonumber(ARGV[3]))
redis.call('SET', KEYS[1], ARGV[4], 'EX', tonumber(ARGV[2]))
return 'new'
"""

# A status set on a record that is there (never re-creating one), its expiry kept.
SET_STATUS_LUA = r"""
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local record = cjson.decode(raw)
record['status'] = ARGV[1]
redis.call('SET', KEYS[1], cjson.encode(record), 'KEEPTTL')
return 1
"""


def encode_record(fields: dict[str, Any]) -> str:
    """An inbound record as stored: a JSON object of strings (one ``SET``, its expiry in the same command)."""
    return json.dumps({a: str(b) for a, b in fields.items()}, separators=(",", ":"), ensure_ascii=False)


def decode_record(raw: Any) -> dict[str, str]:
    """A stored inbound record (:func:`encode_record`) as a ``dict`` of ``str``."""
    return {str(a): str(b) for a, b in json.loads(raw).items()}



@dataclass(frozen=True)
class StoredMessage:
    """:meth:`InboundRecords.queue_message`'s reads, as text."""

    msg: dict[str, str] | None  # the message's record; None: handled already, or unknown
    home_mark: list[str | None] | None  # [the home the sender acts for, the receipts' mark] (None: not read)
    done: list[str] | None  # the outbox numbers the message caused if it was handled, else None
    record: dict[str, str] | None  # the player's record (None: not read)

class InboundRecords:
    """Claiming, recording, reading and marking inbound messages (a WhatsApp address's record also opens its
    24-hour window again: :class:`~service.store.window.WhatsAppWindows`, on the same round trip)."""

    r: Client
    dedupe_window_s: int
    replica_wait_ms: int
    SCRIPTS = {"_claim_in": CLAIM_INBOUND_LUA, "_set_status_in": SET_STATUS_LUA}
    _claim_in: Script
    _set_status_in: Script
    queue_touch_window: Callable[[Pipeline, str, int], None]  # service.store.window

    def record_inbound(self, address: str, message_id: str, fields: dict[str, str], ttl_s: int) -> str:
        """Claim and record a message from ``address`` (kept ``ttl_s`` until handled); returns ``new``,
        or for a message claimed before (a retry), ``pending`` (not handled yet) or ``done``.

        With ``SLOWSPADES_REPLICA_WAIT_MS``, raises :class:`~service.store.replica.ReplicaLagError` if no replica
        acknowledged the record (or the claim) in time: it is not recorded (:mod:`service.store.replica`)."""
        now_s = int(time.time())
        keys = inbound_keys(address, message_id, self.dedupe_window_s, now_s)
        expire_at = (now_s // self.dedupe_window_s + 2) * self.dedupe_window_s + 60
        pending, member = self.pending_shard(address, message_id), pending_member(address, message_id)
        claim_args = [message_digest(message_id), ttl_s, expire_at, encode_record(fields)]

        def queue(pipe: Pipeline) -> None:
            if address.startswith(WHATSAPP_PREFIX) and fields.get("channel") == WHATSAPP_CHANNEL:
                # a WhatsApp message opens its 24-hour window again (service.store.window); a move from the game
                # page of a WhatsApp player does not (issue 44 case 6: Meta counts only the player's own messages)
                self.queue_touch_window(pipe, address, int(fields.get("received") or now_ms()))
            queue_script(pipe, self._claim_in, keys, claim_args)

        if self.replica_wait_ms:  # the record on a replica too before the webhook answers (service.store.replica)
            replies, acked = run_replicated(self.r, keys[0], self.replica_wait_ms, queue,
                                            index=(pending, member, now_ms(), True))
            claim = text(replies[-1])
            if acked < 1:  # on this master only: gone if a partition cut it off and its replica took over
                lagged("inbound record", address, self.replica_wait_ms)
                raise ReplicaLagError(f"inbound record of {message_id}: no replica acknowledged it in "
                                      f"{self.replica_wait_ms} ms")
        else:
            pipe = self.r.pipeline(transaction=False)
            pipe.zadd(pending, {member: now_ms()}, nx=True)  # the sweep finds it if we die
            queue(pipe)
            claim = text(pipe.execute()[-1])
        if claim == "done":
            self.r.zrem(pending, member)
        return claim

    def pending_shard(self, address: str, message_id: str) -> str:
        """The ``{inpend:<k>}`` shard of a message's pending mark: on a cluster one on its record's master
        (:func:`~service.store.replica.registry_shard`), else :func:`~service.store.keys.pending_key`."""
        record = inbound_keys(address, message_id, self.dedupe_window_s, 0)[0]
        return registry_shard(self.r, "inpend", record, pending_key(address))

    def inbound(self, address: str, message_id: str) -> dict[str, str] | None:
        """The recorded message; ``{"status": "done"}`` once it is handled (while its claim lasts); else None."""
        pipe = self.r.pipeline(transaction=False)
        finish = self.queue_inbound(pipe, address, message_id)
        return finish(pipe.execute())

    def queue_inbound(self, pipe: Pipeline, address: str, message_id: str,
                      claims: bool = True) -> Callable[[list[Any]], dict[str, str] | None]:
        """:meth:`inbound` with its reads queued on ``pipe``; call the result with the replies of those reads
        (:class:`service.store.batch.Batch`). Without ``claims``, only the record is read (None if it is gone,
        handled or not)."""
        record, seen, prev = inbound_keys(address, message_id, self.dedupe_window_s, int(time.time()))
        digest = message_digest(message_id)
        pipe.get(record)
        if claims:
            pipe.sismember(seen, str(digest))
            pipe.sismember(prev, str(digest))

        def finish(replies: list[Any]) -> dict[str, str] | None:
            raw, now, before = [*replies, None, None][:3]
            if raw:
                return decode_record(raw)
            return {"status": "done"} if now or before else None

        return finish

    def queue_message(self, pipe: Pipeline, sender: str, message_id: str, owner: str, with_sender: bool,
                      with_record: bool) -> Callable[[list[Any]], StoredMessage]:
        """What handling ``sender``'s message ``message_id`` reads first, as the player ``owner``, queued on ``pipe``:
        the message's record (:meth:`queue_inbound` without its claims), with ``with_sender`` the home ``sender``
        acts for and the receipts' mark (``Links.queue_sender``), the outbox numbers the message caused if it was
        handled (``queue_consumed``) and with ``with_record`` the player's record. Call the result with the replies
        of those reads: one :class:`StoredMessage`."""
        start = len(pipe)
        read_msg = self.queue_inbound(pipe, sender, message_id, claims=False)
        at = len(pipe) - start
        if with_sender:
            Links.queue_sender(pipe, sender)
        QueuedReads.queue_consumed(pipe, owner, message_id)
        if with_record:
            QueuedReads.queue_owner_meta(pipe, owner)

        def finish(replies: list[Any]) -> StoredMessage:
            rest = iter(replies[at:])
            home_mark = Links.sender_of_reply(next(rest)) if with_sender else None
            done = QueuedReads.consumed_from(next(rest))
            record = QueuedReads.owner_meta_from(next(rest)) if with_record else None
            return StoredMessage(read_msg(replies[:at]), home_mark, done, record)

        return finish

    def mark_inbound(self, address: str, message_id: str, status: str) -> None:
        """Set the status of a recorded message (never re-creating one); ``done`` drops the record (its
        claim stays, :meth:`record_inbound`) and un-pends it."""
        pipe = self.r.pipeline(transaction=False)
        self.queue_mark_inbound(pipe, address, message_id, status)
        pipe.execute()

    def queue_mark_inbound(self, pipe: Pipeline, address: str, message_id: str, status: str) -> None:
        """:meth:`mark_inbound` queued on ``pipe`` (executed by its owner). A handled message's text is not
        needed any more: the game's stream envelope names the message that caused its events."""
        record = inbound_keys(address, message_id, self.dedupe_window_s, 0)[0]
        if status == "done":
            pipe.delete(record)
            pipe.zrem(self.pending_shard(address, message_id), pending_member(address, message_id))
        else:
            queue_script(pipe, self._set_status_in, [record], [status])

    def stale_inbound(self, older_than_s: float) -> list[tuple[str, str]]:
        """(address, message id) of recorded messages not handled after ``older_than_s`` (the web died
        before queueing, say); tidies the pending marks of messages handled or gone."""
        cutoff = now_ms() - int(older_than_s * 1000)
        out = []
        for key in shards("inpend"):
            for raw in self.r.zrangebyscore(key, "-inf", cutoff, start=0, num=1000):
                address, _, mid = text(raw).partition(" ")
                if self.r.exists(inbound_keys(address, mid, self.dedupe_window_s, 0)[0]):
                    out.append((address, mid))
                else:
                    self.r.zrem(key, text(raw))
        return out

    def mailgun_token_once(self, token: str, ttl_s: int) -> bool:
        """True the first time Mailgun's webhook ``token`` is seen within ``ttl_s`` (SET NX EX): a replay guard."""
        return bool(self.r.set(mailgun_token(token), "1", nx=True, ex=ttl_s))

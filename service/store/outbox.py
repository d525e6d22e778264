"""The outbox: entries read, claimed for one delivery attempt by a unique token, and settled only by the
holder of that claim (a mixin of :class:`service.store.Store`; exactly-once sending).

The local outbox is one stream per owner (``owner_keys(owner)["local"]``, in the owner's slot, so the settle
that puts a message there is one script), indexed by the ``{local:<k>}`` shards; :meth:`read_local` merges them."""

from __future__ import annotations

import json
import uuid
from typing import Any

from redis.commands.core import Script

from .base import Client, now_ms, queue_script, sid_key
from .codec import text
from .keys import dirty_key, local_index_key, owner_keys, shards, split_outbox_id

LOCAL_OWNER = "p:-"  # the owner of a local outbox message pushed without an outbox id
LOCAL_MAXLEN = 100_000  # messages kept in one owner's local outbox stream

ENTRY_LUA = r"""
-- An outbox entry is the hash fields of one owner's outbox: '<n>' (the message JSON), '<n>:s' its status
-- (queued/sending/sent/delivered/failed), '<n>:t' when it last changed (ms), '<n>:by' the claim token of the
-- attempt sending it, '<n>:sid' the provider's id, '<n>:err' the last error; and '<n>' in outq while unsent.
local function write_entry(outbox, outq, n, entry, now, claimed)
  -- a new entry: queued, or born claimed by the writer's own delivery attempt (its token)
  if claimed then
    redis.call('HSET', outbox, tostring(n), entry, n .. ':s', 'sending', n .. ':t', now, n .. ':by', claimed)
  else
    redis.call('HSET', outbox, tostring(n), entry, n .. ':s', 'queued', n .. ':t', now)
  end
  redis.call('ZADD', outq, now, n)
end
"""

REQUEUE_LUA = r"""
-- KEYS: outbox, outq (one owner's slot; the owner is registered in its dirty shard first); ARGV: n, now ms, lease ms,
-- force
local n = ARGV[1]
if not redis.call('HGET', KEYS[1], n) then return 'missing' end
local s = redis.call('HGET', KEYS[1], n .. ':s') or 'queued'
local t = tonumber(redis.call('HGET', KEYS[1], n .. ':t') or '0')
if s == 'sending' and ARGV[4] ~= '1' and tonumber(ARGV[2]) - t <= tonumber(ARGV[3]) then return 'busy' end
redis.call('HSET', KEYS[1], n .. ':s', 'queued', n .. ':t', ARGV[2])
redis.call('HDEL', KEYS[1], n .. ':err')
redis.call('ZADD', KEYS[2], ARGV[2], n)
return s
"""

ZREM_IF_SCORE_LUA = r"""
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""

CLAIM_LUA = r"""
-- KEYS: outbox, outq; ARGV: n, now ms, lease ms, claim token (unique to one delivery attempt)
-- An entry is claimed if queued, or sending for longer than the lease (its sender died mid-send); the
-- token is recorded in '<n>:by', and only its holder may settle the entry (SETTLE_LUA, STATUS_LUA).
local n, now, lease, token = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local entry = redis.call('HGET', KEYS[1], n)
if not entry then return {'missing', ''} end
local s = redis.call('HGET', KEYS[1], n .. ':s')
local t = tonumber(redis.call('HGET', KEYS[1], n .. ':t') or '0')
if s == 'queued' or (s == 'sending' and now - t > lease) then
  redis.call('HSET', KEYS[1], n .. ':s', 'sending', n .. ':t', now, n .. ':by', token)
  return {'claimed', entry}
end
return {s, ''}
"""

SETTLE_LUA = r"""
-- KEYS: outbox, outq, the owner's local outbox stream; ARGV: n, claim token, now ms, new status (sent/failed), message
-- JSON (for 'sent': appended to the local outbox), error
-- Settles an entry only for the holder of its claim: the local outbox gets each entry once, whoever
-- else (a duplicate handling, the sweep after the lease) claimed it since. The token stays in '<n>:by' (no
-- HDEL: a command less a move): it is read only while the status is 'sending', and a claim writes its own.
local n, token = ARGV[1], ARGV[2]
local now = redis.call('HMGET', KEYS[1], n .. ':s', n .. ':by')
local s = now[1]
if not s then return 'missing' end
if s ~= 'sending' or now[2] ~= token then return s end
if ARGV[4] == 'sent' then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', '100000', '*', 'm', ARGV[5])
  redis.call('HSET', KEYS[1], n .. ':s', 'sent', n .. ':t', ARGV[3], n .. ':sid', 'local')
else
  redis.call('HSET', KEYS[1], n .. ':s', ARGV[4], n .. ':t', ARGV[3], n .. ':err', ARGV[6])
end
redis.call('ZREM', KEYS[2], n)
return ARGV[4]
"""

STATUS_LUA = r"""
-- KEYS: outbox, outq; ARGV: n, new status, now ms, provider id, error, claim token ('' for none)
-- Status only moves forward: queued < sending < sent < delivered/failed; 'queued' may come back from 'sending'.
-- With a claim token, only while the entry is being sent under that claim (the attempt's own outcome).
local rank = {queued = 0, sending = 1, sent = 2, delivered = 3, failed = 3}
local n, new = ARGV[1], ARGV[2]
if not redis.call('HGET', KEYS[1], n) then return 'missing' end
local s = redis.call('HGET', KEYS[1], n .. ':s') or 'queued'
if ARGV[6] and ARGV[6] ~= '' and (s ~= 'sending' or redis.call('HGET', KEYS[1], n .. ':by') ~= ARGV[6]) then
  return s
end
local allowed = rank[new] > rank[s] or (new == 'queued' and s == 'sending')
if not allowed then return s end
redis.call('HSET', KEYS[1], n .. ':s', new, n .. ':t', ARGV[3])
redis.call('HDEL', KEYS[1], n .. ':by')
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], n .. ':sid', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], n .. ':err', ARGV[5]) end
if new == 'queued' then redis.call('ZADD', KEYS[2], ARGV[3], n) else redis.call('ZREM', KEYS[2], n) end
return new
"""


RECEIPT_LUA = r"""
-- KEYS: outbox, outq; ARGV: n, new status (sent/delivered/failed), now ms, provider id, error
-- A provider's delivery receipt: moves the status forward only (a 'sent' after 'delivered' changes nothing), never
-- while the entry waits to be sent again ('queued'), nor for a provider id of an earlier attempt ('<n>:osid', the ids
-- of the attempts a temporary failure sent again). Returns {status now, 1 if this receipt changed it}.
local rank = {queued = 0, sending = 1, sent = 2, delivered = 3, failed = 3}
local n, new, sid = ARGV[1], ARGV[2], ARGV[4]
if not redis.call('HGET', KEYS[1], n) then return {'missing', 0} end
local s = redis.call('HGET', KEYS[1], n .. ':s') or 'queued'
if s == 'queued' then return {s, 0} end
local old = redis.call('HGET', KEYS[1], n .. ':osid') or ''
if sid ~= '' and string.find(' ' .. old .. ' ', ' ' .. sid .. ' ', 1, true) then return {s, 0} end
if rank[new] <= rank[s] then return {s, 0} end
redis.call('HSET', KEYS[1], n .. ':s', new, n .. ':t', ARGV[3])
redis.call('HDEL', KEYS[1], n .. ':by')
if sid ~= '' then redis.call('HSET', KEYS[1], n .. ':sid', sid) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], n .. ':err', ARGV[5]) end
redis.call('ZREM', KEYS[2], n)
return {new, 1}
"""

RETRY_LUA = r"""
-- KEYS: outbox, outq (the owner is registered in its dirty shard first); ARGV: n, provider id, now ms, due ms, most
-- retries. A failed attempt (that provider id, still the entry's) queued again to be sent at 'due', at most 'most'
-- times: its provider id moves to '<n>:osid' (its late receipts change nothing), '<n>:tries' counts.
local n, sid = ARGV[1], ARGV[2]
if not redis.call('HGET', KEYS[1], n) then return 'missing' end
if redis.call('HGET', KEYS[1], n .. ':s') ~= 'failed' or (redis.call('HGET', KEYS[1], n .. ':sid') or '') ~= sid then
  return 'moved'
end
local tries = tonumber(redis.call('HGET', KEYS[1], n .. ':tries') or '0')
if tries >= tonumber(ARGV[5]) then return 'spent' end
local old = redis.call('HGET', KEYS[1], n .. ':osid') or ''
if old ~= '' then old = old .. ' ' end
redis.call('HSET', KEYS[1], n .. ':s', 'queued', n .. ':t', ARGV[3], n .. ':tries', tries + 1, n .. ':osid', old .. sid)
redis.call('HDEL', KEYS[1], n .. ':sid', n .. ':by')
redis.call('ZADD', KEYS[2], ARGV[4], n)
return 'queued'
"""


def new_claim_token() -> str:
    """A token naming one delivery attempt (an outbox claim is never shared, even by two handlings of one message)."""
    return uuid.uuid4().hex


class OutboxRecords:
    """The outbox methods of :class:`service.store.Store` (its ``r`` and registered scripts)."""

    SCRIPTS = {"_claim": CLAIM_LUA, "_settle": SETTLE_LUA, "_status": STATUS_LUA, "_requeue": REQUEUE_LUA,
               "_zrem_if": ZREM_IF_SCORE_LUA, "_receipt": RECEIPT_LUA, "_retry": RETRY_LUA}
    r: Client
    _claim: Script
    _settle: Script
    _status: Script
    _zrem_if: Script
    _requeue: Script
    _receipt: Script
    _retry: Script

    def outbox_entry(self, outbox_id: str) -> dict[str, Any] | None:
        """The entry with its ``status``, ``sid``, ``error``, ``updated_ms`` and ``tries`` (times a temporary failure
        was sent again); None if unknown."""
        owner, n = split_outbox_id(outbox_id)
        key = owner_keys(owner)["outbox"]
        raw, s, t, sid, err, tries = self.r.hmget(key, n, f"{n}:s", f"{n}:t", f"{n}:sid", f"{n}:err", f"{n}:tries")
        if raw is None:
            return None
        entry = json.loads(text(raw))
        entry.update(id=outbox_id, status=text(s), updated_ms=int(text(t or 0)),
                     sid=text(sid) if sid else None, error=text(err) if err else None, tries=int(text(tries or 0)))
        return entry

    def outbox_entries(self, owner: str) -> list[dict[str, Any]]:
        key = owner_keys(owner)["outbox"]
        ns = sorted(int(text(f)) for f in self.r.hkeys(key) if text(f).isdigit())
        return [e for e in (self.outbox_entry(f"{owner}#{n}") for n in ns) if e is not None]

    def claim_send(self, outbox_id: str, lease_s: int, token: str = "") -> dict[str, Any] | None:
        """Claim an entry for sending: returns it if it was queued (or its send lease ran out), else None.
        ``token`` names this one attempt (:func:`new_claim_token`; a fresh one if empty): its outcome is
        recorded with ``set_status(..., token=token)``, which does nothing once another attempt holds it."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        status, raw = self._claim(keys=[k["outbox"], k["outq"]],
                                  args=[n, now_ms(), lease_s * 1000, token or new_claim_token()])
        if text(status) != "claimed":
            return None
        entry = json.loads(text(raw))
        entry["id"] = outbox_id
        return entry

    def claim_send_many(self, outbox_ids: list[str], lease_s: int, by: str = "") -> list[dict[str, Any] | None]:
        """:meth:`claim_send` of several entries in one round trip (in order); ``by``: the claim token of
        this attempt (settle them with :meth:`settle_local_many` and that token)."""
        pipe = self.r.pipeline(transaction=False)
        finish = self.queue_claim_send_many(pipe, outbox_ids, lease_s, by)
        return finish(pipe.execute() if outbox_ids else [])

    def queue_claim_send_many(self, pipe: Any, outbox_ids: list[str], lease_s: int, by: str = "") -> Any:
        """:meth:`claim_send_many` queued on ``pipe``; call the result with the replies of those claims."""
        for oid in outbox_ids:
            owner, n = split_outbox_id(oid)
            k = owner_keys(owner)
            queue_script(pipe, self._claim, [k["outbox"], k["outq"]], [n, now_ms(), lease_s * 1000,
                                                                     by or new_claim_token()])

        def finish(replies: list[Any]) -> list[dict[str, Any] | None]:
            out: list[dict[str, Any] | None] = []
            for oid, (status, raw) in zip(outbox_ids, replies):
                if text(status) != "claimed":
                    out.append(None)
                    continue
                entry = json.loads(text(raw))
                entry["id"] = oid
                out.append(entry)
            return out

        return finish

    def settle_local_many(self, sent: list[dict[str, Any]], refused: list[tuple[str, str]], tail: Any = None, *,
                          token: str) -> None:
        """In one round trip, for the entries this attempt holds the claim ``token`` of (see ``SETTLE_LUA``;
        any other is left to whoever holds it): the ``sent`` entries into the local outbox and ``sent``,
        the ``refused`` (id, error) pairs ``failed``; with ``tail`` (a pipeline), queued on it for its
        owner to execute."""
        pipe = tail if tail is not None else self.r.pipeline(transaction=False)
        self.queue_settle_local(pipe, sent, refused, token)
        if (sent or refused) and tail is None:
            pipe.execute()

    def queue_settle_local(self, pipe: Any, sent: list[dict[str, Any]], refused: list[tuple[str, str]],
                           token: str) -> None:
        """:meth:`settle_local_many` queued on ``pipe`` (``service.store.after_phase.SettleLocal``)."""
        for owner in dict.fromkeys(split_outbox_id(e["id"])[0] for e in sent):  # indexed before the settle
            pipe.zadd(local_index_key(owner), {owner: now_ms()})
        for entry in sent:
            self._queue_settle(pipe, entry["id"], token, "sent", json.dumps(entry), "")
        for oid, error in refused:
            self._queue_settle(pipe, oid, token, "failed", "", error[:500])

    def _queue_settle(self, pipe: Any, outbox_id: str, token: str, status: str, message: str, error: str) -> None:
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        queue_script(pipe, self._settle, [k["outbox"], k["outq"], k["local"]], [n, token, now_ms(), status,
                                                                                  message, error])

    def set_status(self, outbox_id: str, status: str, provider_id: str = "", error: str = "", token: str = "") -> str:
        """Move an entry's status forward (never backwards, except sending -> queued); returns the status now.
        With ``token`` (a claim's, :meth:`claim_send`): only while that claim holds the entry."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        return text(self._status(keys=[k["outbox"], k["outq"]],
                               args=[n, status, now_ms(), provider_id, error[:500], token]))

    def record_receipt(self, outbox_id: str, status: str, provider_id: str = "", error: str = "") -> tuple[str, bool]:
        """A provider's delivery receipt (``sent``, ``delivered``, ``failed``): (the status now, whether this receipt
        changed it). Idempotent, and never moves a status back (``RECEIPT_LUA``). Raises ValueError for a malformed
        id."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        now, changed = self._receipt(keys=[k["outbox"], k["outq"]], args=[n, status, now_ms(), provider_id, error[:500]])
        return text(now), bool(int(changed))

    def retry_failed(self, outbox_id: str, provider_id: str, due_ms: int, most: int) -> str:
        """Queue again an entry whose attempt ``provider_id`` failed for a while (``RETRY_LUA``), to be sent at
        ``due_ms``: ``queued``, or ``spent`` (``most`` retries done), ``moved`` (not that failed attempt any more:
        a receipt seen twice), ``missing``."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(dirty_key(owner), {owner: now_ms()})  # before the entry is queued, as Store.append does
        queue_script(pipe, self._retry, [k["outbox"], k["outq"]], [n, provider_id, now_ms(), due_ms, most])
        return text(pipe.execute()[-1])

    def stale_outbox(self, older_than_s: float) -> list[str]:
        """Outbox ids still queued (or stuck sending) for longer than ``older_than_s``, found by their own age; tidies
        the dirty shards.

        An owner quiet since the cutoff is looked at and, its queue empty, tidied away (only if no append registered
        it again meanwhile: the score compared is the one found). An owner active since (its mark refreshed by
        every append: a game played quickly) is looked at too, and kept: an entry whose task was lost is re-sent by
        its age even while its game goes on. Those are the games of the last ``older_than_s``: few."""
        cutoff = now_ms() - int(older_than_s * 1000)
        found: list[str] = []
        for key in shards("dirty"):
            owners: list[tuple[bytes, float]] = self.r.zrangebyscore(key, "-inf", "+inf", withscores=True)  # type: ignore[assignment]
            for owner_b, score in owners:
                owner = text(owner_b)  # tidied in the shard it was found in (store.replica.registry_shard)
                outq = owner_keys(owner)["outq"]
                found.extend(f"{owner}#{text(n)}" for n in self.r.zrangebyscore(outq, "-inf", cutoff))
                if score > cutoff:
                    continue  # active since the cutoff: kept as it is
                if self.r.zcard(outq) == 0:
                    self._zrem_if(keys=[key], args=[owner, repr(score) if score != int(score) else str(int(score))])
                else:
                    self.r.zadd(key, {owner: now_ms()})
        return found

    # -- local outbox -------------------------------------------------------------------
    def push_local(self, entry: dict[str, Any]) -> str:
        """Keep a message "sent" without a provider, for the CLI to show; returns its stream id."""
        oid = str(entry.get("id") or "")
        owner = split_outbox_id(oid)[0] if "#" in oid else LOCAL_OWNER
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(local_index_key(owner), {owner: now_ms()})
        pipe.xadd(owner_keys(owner)["local"], {"m": json.dumps(entry)}, maxlen=LOCAL_MAXLEN, approximate=True)
        return text(pipe.execute()[-1])

    def push_local_and_mark_sent(self, outbox_id: str, entry: dict[str, Any], token: str) -> str:
        """:meth:`push_local` and ``set_status(outbox_id, 'sent')`` at once, if the claim ``token`` still
        holds the entry (else nothing); returns the status."""
        owner = split_outbox_id(outbox_id)[0]
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(local_index_key(owner), {owner: now_ms()})
        self._queue_settle(pipe, outbox_id, token, "sent", json.dumps(entry), "")
        return text(pipe.execute()[-1])

    def read_local(self, count: int = 100, after: str = "-") -> list[tuple[str, dict[str, Any]]]:
        """Messages in the local outbox, oldest first: every owner's stream merged by (stream id, owner). Each
        comes with its cursor ``<stream id>@<owner>`` (two owners' streams may give the same id); ``after``:
        only those from that cursor (or bare stream id) on, or, written ``(<cursor>``, after it."""
        exclusive = after.startswith("(")
        sid, _, owner_from = after.lstrip("(").partition("@")
        start = (-1, -1) if sid in ("-", "") else sid_key(sid)
        pipe = self.r.pipeline(transaction=False)
        for key in shards("local"):
            pipe.zrange(key, 0, -1)
        owners = [text(o) for found in pipe.execute() for o in found]
        pipe = self.r.pipeline(transaction=False)
        for owner in owners:  # from the cursor's stream id, inclusive: the owner decides a tie below
            pipe.xrange(owner_keys(owner)["local"], min="-" if start < (0, 0) else sid, max="+", count=count + 1)
        merged = []
        for owner, found in zip(owners, pipe.execute() if owners else []):
            for i, f in found:
                k = (sid_key(text(i)), owner)
                low = (start, owner_from) if owner_from else (start,)
                here = k if owner_from else k[:1]
                if here > low or (here == low and not exclusive):
                    merged.append((k, f"{text(i)}@{owner}", f))
        merged.sort(key=lambda x: x[0])
        return [(i, json.loads(text(f[b"m"] if b"m" in f else f["m"]))) for _k, i, f in merged[:count]]

    def requeue(self, outbox_id: str, lease_s: int, force: bool = False) -> str:
        """Queue an outbox entry again (unless it is being sent right now and not ``force``); returns its status
        before, ``missing`` or ``busy``. Raises ValueError for a malformed id."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(dirty_key(owner), {owner: now_ms()})  # before the entry is queued, as Store.append does
        queue_script(pipe, self._requeue, [k["outbox"], k["outq"]], [n, now_ms(), lease_s * 1000, "1" if force else "0"])
        return text(pipe.execute()[-1])

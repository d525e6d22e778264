"""The Redis event store and transactional outbox.

Key layout (every key of one game shares the hash tag ``{g:<game_id>}``, every
per-player key ``{p:<address>}``, so a Redis Cluster keeps each in one slot):

========================== ===============================================================
``{g:<id>}:ev``            stream: one entry per engine event, field ``e`` = ``to_dict`` JSON;
                           the first entry of each append also carries the envelope
                           ``t`` (ms since epoch) and ``m`` (inbound message id). XLEN = version.
``{g:<id>}:meta``          hash: seats, status (invited/active/over), reply tokens, ``outseq``,
                           ``archived`` (number of events, once the stream is archived).
``{g:<id>}:archive``       a finished game's stream, compressed (zlib of JSON lines), replacing
                           ``:ev`` (see :meth:`Store.archive`); reads are transparent.
``{g:<id>}:consumed``      hash: inbound message id -> comma list of outbox numbers it caused.
``{g:<id>}:outbox``        hash: ``<n>`` -> outbound message JSON, ``<n>:s`` status
                           (queued/sending/sent/delivered/failed), ``<n>:t`` ms, ``<n>:sid``, ``<n>:err``.
``{g:<id>}:outq``          zset: outbox numbers not yet handed to a provider, scored by ms.
``{p:<addr>}:player``      hash: the player record (also ``outseq`` of the player's outbox).
``{p:<addr>}:games``       zset: game ids of the player, scored by creation ms (address -> games).
``{p:<addr>}:outbox|outq|consumed`` as for a game: replies tied to no game, keyed by message id.
``{p:<addr>}:in:<msg id>`` hash: an inbound message from ``<addr>``, recorded until it is handled.
``{p:<addr>}:seen:<n>``    set: the 64-bit digests of the message ids ``<addr>`` sent in the ``n``-th window
                           of ``SLOWSPADES_HANDLED_MESSAGE_TTL`` seconds (an intset: 8 bytes a message);
                           a message is claimed once while its window or the next one lasts.
``rtok:<token>``           string: ``<game id> <address>`` for a per-game email reply address.
``mgtok:<token>``          Mailgun webhook token seen (replay guard).
``outbox:dirty``           zset: owners (``g:<id>`` / ``p:<addr>``) that may hold queued entries.
``in:pending``             zset: inbound messages recorded but not yet handled (``<addr> <msg id>``), by ms.
``outbox:local``           stream: messages "sent" by the local outbox (no provider configured).
``{p:<addr>}:rate:<min>``  counter: messages of ``<addr>`` in that minute (flood limit, ``service.limits``).
``{p:<addr>}:inv:<day>``   set: message ids of ``<addr>``'s invitations that day (``YYYYMMDD``, UTC).
``sms:day:<day>``          counter: outgoing SMS that day; ``sms:capped:<day>``: set once the cap is reached.
========================== ===============================================================

An outbox id is ``<owner>#<n>``, e.g. ``g:k3j9x2#17`` or ``p:+4790000000#3``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable

import redis
from redis.client import Pipeline

from .codec import text
from .keys import DIRTY, LOCAL_OUTBOX, game_owner, owner_keys, player_owner, split_outbox_id
from .store_archive import ARCHIVE_LUA, COMPACT_LUA, ArchivedGames
from .store_base import StoredEvent, now_ms, queue_script, sid_key
from .store_inbound import CLAIM_INBOUND_LUA, InboundRecords
from .store_life import SEAT_TURNS_LUA, TURN_LUA, LifeRecords
from .store_operator import REQUEUE_LUA, OperatorReads
from .store_reads import QueuedReads

__all__ = ["APPEND_LUA", "CLAIM_LUA", "STATUS_LUA", "AppendResult", "Store", "StoredEvent", "DIRTY", "LOCAL_OUTBOX",
           "game_owner", "now_ms", "owner_keys", "player_owner", "split_outbox_id"]

APPEND_LUA = SEAT_TURNS_LUA + r"""
-- KEYS: ev, meta, consumed, outbox, outq, life
-- ARGV: expected version (-1: no check), message id ('' for none), now ms, payload JSON
-- payload: events, outbox (entries), meta (fields), ttl,
--   claimed: a claim token (or false): the entries are born claimed for sending by the caller's one
--     delivery attempt (status 'sending', '<n>:by' the token; never the message id, which two
--     handlings of one message share),
--   turn: [version, seat(s), since, actor], recorded in life unless a newer turn is (with each seat's own
--     turn, SEAT_TURNS_LUA); the reply then ends with 1 or 0 and the turn recorded before (version, seat)
local ev, meta, consumed, outbox, outq, life = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local expected = tonumber(ARGV[1])
local msg = ARGV[2]
local now = ARGV[3]
local p = cjson.decode(ARGV[4])
if msg ~= '' then
  local prev = redis.call('HGET', consumed, msg)
  if prev then return {'duplicate', tostring(redis.call('XLEN', ev)), prev} end
end
local version = redis.call('XLEN', ev)
local archived = redis.call('HGET', meta, 'archived')
if archived then
  return {'conflict', archived, ''}
end
if expected >= 0 and version ~= expected then
  return {'conflict', tostring(version), ''}
end
local last = ''
for i, e in ipairs(p.events) do
  if i == 1 then
    last = redis.call('XADD', ev, '*', 'e', e, 't', now, 'm', msg)
  else
    last = redis.call('XADD', ev, '*', 'e', e)
  end
end
local ids = {}
for _, entry in ipairs(p.outbox) do
  local n = redis.call('HINCRBY', meta, 'outseq', 1)
  redis.call('HSET', outbox, tostring(n), entry, n .. ':s', p.claimed and 'sending' or 'queued', n .. ':t', now)
  if p.claimed then redis.call('HSET', outbox, n .. ':by', p.claimed) end
  redis.call('ZADD', outq, now, n)
  ids[#ids + 1] = tostring(n)
end
for k, v in pairs(p.meta) do redis.call('HSET', meta, k, v) end
local idlist = table.concat(ids, ',')
if msg ~= '' then redis.call('HSET', consumed, msg, idlist) end
if p.ttl and p.ttl > 0 then
  redis.call('EXPIRE', consumed, p.ttl)
  redis.call('EXPIRE', outbox, p.ttl)
  redis.call('EXPIRE', outq, p.ttl)
end
local reply = {'ok', tostring(redis.call('XLEN', ev)), idlist, last}
if type(p.turn) == 'table' then
  local v = tonumber(redis.call('HGET', life, 'v') or '-1')
  local seat = redis.call('HGET', life, 'seat') or ''
  local fresh = 0
  if v < tonumber(p.turn[1]) then
    local old_since = redis.call('HGET', life, 'since') or p.turn[3]
    redis.call('HSET', life, 'v', p.turn[1], 'seat', p.turn[2], 'since', p.turn[3])
    seat_turns(life, v, seat, old_since, p.turn[1], p.turn[2], p.turn[3], p.turn[4] or '')
    fresh = 1
  end
  reply[5], reply[6], reply[7] = fresh, tostring(v), seat
end
return reply
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
-- KEYS: outbox, outq, local outbox stream; ARGV: n, claim token, now ms, new status (sent/failed), message
-- JSON (for 'sent': appended to the local outbox), error
-- Settles an entry only for the holder of its claim: the local outbox gets each entry once, whoever
-- else (a duplicate handling, the sweep after the lease) claimed it since.
local n, token = ARGV[1], ARGV[2]
local s = redis.call('HGET', KEYS[1], n .. ':s')
if not s then return 'missing' end
if s ~= 'sending' or redis.call('HGET', KEYS[1], n .. ':by') ~= token then return s end
if ARGV[4] == 'sent' then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', '100000', '*', 'm', ARGV[5])
  redis.call('HSET', KEYS[1], n .. ':s', 'sent', n .. ':t', ARGV[3], n .. ':sid', 'local')
else
  redis.call('HSET', KEYS[1], n .. ':s', ARGV[4], n .. ':t', ARGV[3], n .. ':err', ARGV[6])
end
redis.call('HDEL', KEYS[1], n .. ':by')
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

ZREM_IF_SCORE_LUA = r"""
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""



def new_claim_token() -> str:
    """A token naming one delivery attempt (an outbox claim is never shared, even by two handlings of one message)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class AppendResult:
    """What an append did: ``ok``, ``conflict`` (someone appended first) or ``duplicate`` (message consumed)."""

    status: str
    version: int
    outbox_ids: list[str] = field(default_factory=list)
    last_stream_id: str = ""
    turn: tuple[int, str, str] | None = None  # with ``turn=``: (1 if recorded, the turn before: version, seat)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Store(InboundRecords, ArchivedGames, LifeRecords, QueuedReads, OperatorReads):
    """Events, outbox and inbound messages on one Redis connection pool."""

    def __init__(self, client: redis.Redis, dedupe_window_s: int = 86400) -> None:
        self.r = client
        self.dedupe_window_s = max(1, int(dedupe_window_s))
        self._append = client.register_script(APPEND_LUA)
        self._claim = client.register_script(CLAIM_LUA)
        self._settle = client.register_script(SETTLE_LUA)
        self._status = client.register_script(STATUS_LUA)
        self._claim_in = client.register_script(CLAIM_INBOUND_LUA)
        self._zrem_if = client.register_script(ZREM_IF_SCORE_LUA)
        self._archive = client.register_script(ARCHIVE_LUA)
        self._compact = client.register_script(COMPACT_LUA)
        self._requeue = client.register_script(REQUEUE_LUA)
        self._turn = client.register_script(TURN_LUA)

    # -- appending ----------------------------------------------------------------------
    def append(self, owner: str, expected_version: int, events: Iterable[dict[str, Any]] = (), *,
               message_id: str | None = None, outbox: Iterable[dict[str, Any]] = (),
               meta: dict[str, str] | None = None, ttl: int = 0, claimed: bool | str = False,
               turn: tuple[int, str, int] | tuple[int, str, int, int | None] | None = None) -> AppendResult:
        """Append events + outbox entries + meta fields + the consumed message id, all or nothing.

        ``expected_version`` is the stream length the caller decided against (-1: no check,
        for player-owned replies). ``ttl`` > 0 expires the outbox and consumed ids (a game
        that is over). Owners with outbox entries are registered in ``outbox:dirty`` *before*
        the script runs, so a writer that dies right after it cannot hide entries from the sweep.
        ``claimed``: a claim token (:func:`new_claim_token`; ``True``: a fresh one): the entries are born
        claimed for sending by the caller's attempt (status ``sending``: it settles them itself with that
        token, :meth:`settle_local_many`; if it dies first, the sweep sends them once
        ``SLOWSPADES_SEND_LEASE`` is over).
        ``turn``: (game version, the seats owing a move ("0", "1", "01") or "", ms[, the actor's seat]) recorded in the owner's ``life`` hash with the
        append, unless a newer turn is (see ``AppendResult.turn``; ``service.lifecycle.reminders``).
        """
        entries = [json.dumps(e, separators=(",", ":")) for e in outbox]
        k = owner_keys(owner)
        payload = json.dumps({
            "events": [json.dumps(e, separators=(",", ":")) for e in events],
            "outbox": entries,
            "meta": {str(a): str(b) for a, b in (meta or {}).items()},
            "ttl": int(ttl),
            "claimed": (claimed if isinstance(claimed, str) else new_claim_token()) if claimed else False,
            "turn": ([str(int(turn[0])), str(turn[1]), str(int(turn[2])),
                      "" if len(turn) < 4 or turn[3] is None else str(turn[3])] if turn is not None else None),
        })
        keys = [k["ev"], k["meta"], k["consumed"], k["outbox"], k["outq"], k["life"]]
        args = [expected_version, message_id or "", now_ms(), payload]
        if entries:  # one round trip: the ZADD runs first, then the script
            pipe = self.r.pipeline(transaction=False)
            pipe.zadd(DIRTY, {owner: now_ms()})
            queue_script(pipe, self._append, keys, args)
            reply = pipe.execute()[-1]
        else:
            reply = self._append(keys=keys, args=args)
        status, version, ids = reply[0], reply[1], text(reply[2])
        last = text(reply[3]) if len(reply) > 3 else ""
        recorded = (int(reply[4]), text(reply[5]), text(reply[6])) if len(reply) > 6 else None
        return AppendResult(text(status), int(text(version)), [f"{owner}#{n}" for n in ids.split(",") if n], last,
                            recorded)

    # -- reading ------------------------------------------------------------------------
    def load(self, game_id: str, after: str | None = None) -> list[StoredEvent]:
        """The game's events in order (only those after stream id ``after`` if given), archived or not."""
        pipe = self.r.pipeline(transaction=False)
        self.queue_load(pipe, game_id, after)
        return self.loaded(game_id, after, pipe.execute())

    @staticmethod
    def queue_load(pipe: Pipeline, game_id: str, after: str | None = None) -> None:
        """Queue on ``pipe`` the two reads of :meth:`load` (so a caller can join them to its own)."""
        k = owner_keys(game_owner(game_id))
        pipe.xrange(k["ev"], min="(" + after if after else "-", max="+")
        pipe.exists(k["archive"])

    def loaded(self, game_id: str, after: str | None, replies: list[Any]) -> list[StoredEvent]:
        """:meth:`load`'s answer from the two replies :meth:`queue_load` queued."""
        entries, archived = replies
        if archived and not entries:
            return [e for e in self.read_archive(game_id)
                    if after is None or sid_key(e.stream_id) > sid_key(after)]
        out = []
        for sid, fields in entries:
            f = {text(a): text(b) for a, b in fields.items()}
            out.append(StoredEvent(text(sid), json.loads(f["e"]), int(f["t"]) if "t" in f else None,
                                   f.get("m") or None))
        return out

    def version(self, game_id: str) -> int:
        """The number of events of the game (its stream length, or what its archive holds)."""
        k = owner_keys(game_owner(game_id))
        pipe = self.r.pipeline(transaction=False)
        pipe.xlen(k["ev"])
        pipe.hget(k["meta"], "archived")
        n, archived = pipe.execute()
        return max(int(n), int(text(archived)) if archived else 0)

    def meta(self, game_id: str) -> dict[str, str]:
        return {text(a): text(b) for a, b in self.r.hgetall(owner_keys(game_owner(game_id))["meta"]).items()}

    def consumed_and_meta(self, game_id: str, message_id: str) -> tuple[list[str] | None, dict[str, str]]:
        """:meth:`consumed` for the game and :meth:`meta`, in one round trip."""
        owner = game_owner(game_id)
        k = owner_keys(owner)
        pipe = self.r.pipeline(transaction=False)
        pipe.hget(k["consumed"], message_id)
        pipe.hgetall(k["meta"])
        raw, meta = pipe.execute()
        ids = None if raw is None else [f"{owner}#{n}" for n in text(raw).split(",") if n]
        return ids, {text(a): text(b) for a, b in meta.items()}

    def consumed(self, owner: str, message_id: str) -> list[str] | None:
        """The outbox ids a consumed message caused, or None if ``owner`` never consumed it."""
        raw = self.r.hget(owner_keys(owner)["consumed"], message_id)
        if raw is None:
            return None
        return [f"{owner}#{n}" for n in text(raw).split(",") if n]

    # -- outbox -------------------------------------------------------------------------
    def outbox_entry(self, outbox_id: str) -> dict[str, Any] | None:
        """The entry with its ``status``, ``sid``, ``error`` and ``updated_ms``; None if unknown."""
        owner, n = split_outbox_id(outbox_id)
        key = owner_keys(owner)["outbox"]
        raw, s, t, sid, err = self.r.hmget(key, n, f"{n}:s", f"{n}:t", f"{n}:sid", f"{n}:err")
        if raw is None:
            return None
        entry = json.loads(text(raw))
        entry.update(id=outbox_id, status=text(s), updated_ms=int(text(t or 0)),
                     sid=text(sid) if sid else None, error=text(err) if err else None)
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
        for entry in sent:
            self._queue_settle(pipe, entry["id"], token, "sent", json.dumps(entry), "")
        for oid, error in refused:
            self._queue_settle(pipe, oid, token, "failed", "", error[:500])
        if (sent or refused) and tail is None:
            pipe.execute()

    def _queue_settle(self, pipe: Any, outbox_id: str, token: str, status: str, message: str, error: str) -> None:
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        queue_script(pipe, self._settle, [k["outbox"], k["outq"], LOCAL_OUTBOX], [n, token, now_ms(), status,
                                                                                  message, error])

    def set_status(self, outbox_id: str, status: str, provider_id: str = "", error: str = "", token: str = "") -> str:
        """Move an entry's status forward (never backwards, except sending -> queued); returns the status now.
        With ``token`` (a claim's, :meth:`claim_send`): only while that claim holds the entry."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        return text(self._status(keys=[k["outbox"], k["outq"]],
                               args=[n, status, now_ms(), provider_id, error[:500], token]))

    def stale_outbox(self, older_than_s: float) -> list[str]:
        """Outbox ids still queued (or stuck sending) for longer than ``older_than_s``; tidies ``outbox:dirty``."""
        cutoff = now_ms() - int(older_than_s * 1000)
        found: list[str] = []
        for owner_b, score in self.r.zrangebyscore(DIRTY, "-inf", cutoff, withscores=True):
            owner = text(owner_b)
            outq = owner_keys(owner)["outq"]
            ns = [text(n) for n in self.r.zrangebyscore(outq, "-inf", cutoff)]
            found.extend(f"{owner}#{n}" for n in ns)
            if self.r.zcard(outq) == 0:
                self._zrem_if(keys=[DIRTY], args=[owner, repr(score) if score != int(score) else str(int(score))])
            else:
                self.r.zadd(DIRTY, {owner: now_ms()})
        return found

    # -- local outbox -------------------------------------------------------------------
    def push_local(self, entry: dict[str, Any]) -> str:
        """Keep a message "sent" without a provider, for the CLI to show; returns its stream id."""
        sid = self.r.xadd(LOCAL_OUTBOX, {"m": json.dumps(entry)}, maxlen=100_000, approximate=True)
        return text(sid)

    def push_local_and_mark_sent(self, outbox_id: str, entry: dict[str, Any], token: str) -> str:
        """:meth:`push_local` and ``set_status(outbox_id, 'sent')`` at once, if the claim ``token`` still
        holds the entry (else nothing); returns the status."""
        pipe = self.r.pipeline(transaction=False)
        self._queue_settle(pipe, outbox_id, token, "sent", json.dumps(entry), "")
        return text(pipe.execute()[-1])

    def read_local(self, count: int = 100, after: str = "-") -> list[tuple[str, dict[str, Any]]]:
        """Messages in the local outbox, oldest first."""
        return [(text(i), json.loads(text(f[b"m"] if b"m" in f else f["m"])))
                for i, f in self.r.xrange(LOCAL_OUTBOX, min=after, max="+", count=count)]

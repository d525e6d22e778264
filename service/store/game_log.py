"""The Redis event store and transactional outbox.

Key layout (every key of one game shares the hash tag ``{g:<game_id>}``, every
per-player key ``{p:<address>}``, so a Redis Cluster keeps each in one slot):

========================== ===============================================================
``{g:<id>}:ev``            stream: one entry per engine event, field ``e`` = ``to_dict`` JSON;
                           the first entry of each append also carries the envelope
                           ``t`` (ms since epoch) and ``m`` (inbound message id). XLEN + meta ``head`` = version
                           = the meta's ``ver`` (written by each append, read by the next).
``{g:<id>}:meta``          hash: seats, status (invited/active/over), reply tokens, ``outseq``,
                           ``archived`` (number of events, once the stream is archived), ``head``, ``ver``,
                           ``snap`` (the stream id the snapshot covers, as in ``:snap``); and the game's life fields
                           (the turn, pauses, page marks: :func:`service.store.keys.game_life`).
``{g:<id>}:archive``       a finished game's stream, compressed (zlib of one columnar JSON object, the message
                           ids as 64-bit digests: ``store.base.pack_log``; JSON lines still read), replacing
                           ``:ev`` (see :meth:`Store.archive`); reads are transparent.
``{g:<id>}:snap``          hash: a game in play's folded state (``sid``, ``s``), written with the append
                           that starts a hand or its play; a cold read folds only what follows it.
``{g:<id>}:head``          a game in play's events up to its snapshot, compressed as the archive, moved
                           out of ``:ev`` (meta ``head`` counts them; version = ``head`` + XLEN):
                           :mod:`service.store.snapshot`; reads are transparent.
``{g:<id>}:consumed``      hash: inbound message id -> comma list of outbox numbers it caused.
``{g:<id>}:outbox``        hash: ``<n>`` -> outbound message JSON, ``<n>:s`` status
                           (queued/sending/sent/delivered/failed), ``<n>:t`` ms, ``<n>:sid``, ``<n>:err``.
``{g:<id>}:outq``          zset: outbox numbers not yet handed to a provider, scored by ms.
``{p:<addr>}:player``      hash: the player record (also ``outseq`` of the player's outbox), their life fields and
                           game numbers (:func:`service.store.keys.player_life`, :func:`~service.store.keys.player_nums`).
``{p:<addr>}:games``       zset: game ids of the player, scored by creation ms (address -> games).
``{p:<addr>}:outbox|outq|consumed`` as for a game: replies tied to no game, keyed by message id.
``{p:<addr>}:in:<msg id>`` string: an inbound message from ``<addr>`` (a JSON object), recorded until it is handled.
``{p:<addr>}:seen:<n>``    set: the 64-bit digests of the message ids ``<addr>`` sent in the ``n``-th window
                           of ``SLOWSPADES_HANDLED_MESSAGE_TTL`` seconds (an intset: 8 bytes a message);
                           a message is claimed once while its window or the next one lasts.
``rtok:<token>``           string: ``<game id> <address>`` for a per-game email reply address.
``mgtok:<token>``          Mailgun webhook token seen (replay guard).
``{g:<id>}:local``         stream: the owner's messages "sent" by the local outbox (no provider configured);
                           ``{local:<k>}`` (zset, :data:`~service.store.keys.SHARDS` shards) indexes the owners.
``{dirty:<k>}``            zset, one of :data:`~service.store.keys.SHARDS` shards: owners (``g:<id>`` / ``p:<addr>``) that
                           may hold queued entries (an owner's shard: :func:`service.store.keys.shard`).
``{inpend:<k>}``           zset shards: inbound messages recorded but not yet handled (``<addr> <msg id>``), by ms.
``{due:<k>}``              zset shards: the lifecycle's due work (:mod:`service.store.due`), by the game's shard.
``{names:<k>}``            hash shards: chosen names (folded) -> address.
``{beat}:lock``, ``{clock}:offset``: the beat lock, the shared clock's offset.
``{p:<addr>}:rate:<min>``  counter: messages of ``<addr>`` in that minute (flood limit, ``service.limits``).
``{p:<addr>}:inv:<day>``   set: message ids of ``<addr>``'s invitations that day (``YYYYMMDD``, UTC).
``{sms:<day>}:n``          counter: outgoing SMS that day; ``{sms:<day>}:capped``: set once the cap is reached.
========================== ===============================================================

On a Redis Cluster every Lua script names keys of one slot (one owner's, or one shard's); a pipeline may
span slots (redis-py's ``RedisCluster`` splits it by node), and is no transaction either way: every
pipeline here is ``transaction=False``, its commands each atomic on their own.

An outbox id is ``<owner>#<n>``, e.g. ``g:k3j9x2#17`` or ``p:+4790000000#3``.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any, Callable, Iterable

from redis.client import Pipeline
from redis.commands.core import Script

from ..records import GameMeta
from .after_phase import AfterPhase
from .archive import ArchivedGames
from .base import Client, StoredEvent, now_ms, queue_script, sid_key, stream_entries, unpack_log
from .clock import Clock
from .codec import text
from .due import DueWork
from .inbox import InboundRecords
from .keys import (
    dirty_key,
    game_head,
    game_owner,
    owner_keys,
    owner_plans,
    owner_snapshot,
    player_owner,
    simulator_secret,
    split_outbox_id,
)
from .life import SEAT_TURNS_LUA, LifeRecords
from .limits import LimitCounters
from .migrate import migrate_legacy
from .move_read import MoveReads
from .operator import OperatorReads
from .outbox import CLAIM_LUA, ENTRY_LUA, SETTLE_LUA, STATUS_LUA, OutboxRecords, new_claim_token
from .presence import PagePresence
from .reads import QueuedReads
from .recorder import AppendResult, SnapshottingRecorder
from .replica import ReplicaLagError, lagged, registry_shard, run_replicated
from .snapshot import InPlayGames
from .window import WhatsAppWindows

__all__ = ["APPEND_LUA", "CLAIM_LUA", "STATUS_LUA", "AppendResult", "ReplicaLagError", "Store", "StoredEvent",
           "SETTLE_LUA", "game_owner", "new_claim_token", "now_ms", "owner_keys", "player_owner", "split_outbox_id"]

APPEND_LUA = SEAT_TURNS_LUA + ENTRY_LUA + r"""
-- KEYS: ev, meta, consumed, outbox, outq, snap, plans
-- ARGV: expected version (-1: no check), message id ('' for none), now ms, payload JSON, snapshot ('' for none:
--   the game's state after these events, zlib of its JSON: written to snap, covering the stream up to the last
--   event appended)
-- The version is the meta's ``ver``, written by every append of events (a game appended to before it existed:
--   the meta's head, events moved out of the stream by snapshot.py, + the stream's length).
-- The message id is consumed with HSETNX, its outbox ids known beforehand: one command checks and writes it
--   (taken back on a conflict, in this same script).
-- payload: events, outbox (entries), meta (fields), ttl,
--   claimed: a claim token (or false): the entries are born claimed for sending by the caller's one
--     delivery attempt (outbox.py's write_entry, with the token; never the message id, which two
--     handlings of one message share),
--   pv: the plans' version the caller decided against (the meta's ``pv``; absent: no check): a plan given
--     since (RULES D12) is a conflict, so that a move never misses a plan that covers the next decision,
--   planlog: the plan changes to add to the game's plan stream (each a JSON string),
--   turn: [version, seat(s), since, actor], recorded with the meta's fields (its life fields, keys.game_life)
--     unless a newer turn is (with each seat's own turn, SEAT_TURNS_LUA); the reply then ends with 1 or 0 and
--     the turn recorded before (version, seat)
-- The meta is read with one HMGET (the turn before with it) and written with one HSET.
local ev, meta, consumed, outbox, outq, snap = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local state = redis.call('HMGET', meta, 'head', 'archived', 'outseq', 'ver', 'v', 'seat', 'since', 'v0', 'v1', 'pv')
local archived = state[2]
local expected = tonumber(ARGV[1])
local msg = ARGV[2]
local now = ARGV[3]
local p = cjson.decode(ARGV[4])
local version = tonumber(state[4] or '')
if not version then version = tonumber(state[1] or '0') + redis.call('XLEN', ev) end
local seq = tonumber(state[3] or '0')
local ids = {}
for i = 1, #p.outbox do ids[i] = tostring(seq + i) end
local idlist = table.concat(ids, ',')
if msg ~= '' and redis.call('HSETNX', consumed, msg, idlist) == 0 then
  return {'duplicate', tostring(version), redis.call('HGET', consumed, msg)}
end
if archived or (expected >= 0 and version ~= expected) or (p.pv and p.pv ~= (state[10] or '0')) then
  if msg ~= '' then redis.call('HDEL', consumed, msg) end
  return {'conflict', archived or tostring(version), ''}
end
local last = ''
for i, e in ipairs(p.events) do
  if i == 1 then
    last = redis.call('XADD', ev, '*', 'e', e, 't', now, 'm', msg)
  else
    last = redis.call('XADD', ev, '*', 'e', e)
  end
end
if p.planlog then
  for _, entry in ipairs(p.planlog) do redis.call('XADD', KEYS[7], 'MAXLEN', '~', '1000', '*', 'p', entry, 't', now) end
end
local fields = {}
if ARGV[5] and ARGV[5] ~= '' and last ~= '' then
  redis.call('HSET', snap, 'sid', last, 's', ARGV[5])
  fields[1], fields[2] = 'snap', last  -- its sid in the meta too: a warm reader checks it there (snapshot.py)
end
if #p.outbox > 0 then
  for i, entry in ipairs(p.outbox) do write_entry(outbox, outq, seq + i, entry, now, p.claimed) end
  fields[#fields + 1] = 'outseq'; fields[#fields + 1] = tostring(seq + #p.outbox)
end
if #p.events > 0 then fields[#fields + 1] = 'ver'; fields[#fields + 1] = tostring(version + #p.events) end
for k, v in pairs(p.meta) do fields[#fields + 1] = k; fields[#fields + 1] = v end
local reply = {'ok', tostring(version + #p.events), idlist, last}
if type(p.turn) == 'table' then
  local was = {state[5], state[6], state[7], state[8], state[9]}
  local turn, v, seat = turn_fields(was, tostring(p.turn[1]), p.turn[2], tostring(p.turn[3]), p.turn[4] or '')
  for _, x in ipairs(turn) do fields[#fields + 1] = x end
  reply[5], reply[6], reply[7] = #turn > 0 and 1 or 0, tostring(v), seat
end
if #fields > 0 then redis.call('HSET', meta, unpack(fields)) end
if p.ttl and p.ttl > 0 then
  redis.call('EXPIRE', consumed, p.ttl)
  redis.call('EXPIRE', outbox, p.ttl)
  redis.call('EXPIRE', outq, p.ttl)
  if #KEYS >= 7 then redis.call('EXPIRE', KEYS[7], p.ttl) end
end
return reply
"""


class Store(InboundRecords, OutboxRecords, LimitCounters, ArchivedGames, InPlayGames, LifeRecords, QueuedReads,
            OperatorReads, PagePresence, WhatsAppWindows, MoveReads, AfterPhase):
    """Events, outbox and inbound messages on one Redis (or Redis Cluster) client."""

    SCRIPTS = {"_append": APPEND_LUA}
    _append: Script

    def __init__(self, client: Client, dedupe_window_s: int = 86400, replica_wait_ms: int = 0,
                 shared_clock: bool = True) -> None:
        self.r = client
        self.due = DueWork(client)  # the lifecycle's due work and the beat lock
        self.clock = Clock(client, shared_clock)  # real time, or the shared clock a local run may advance
        self.replica_wait_ms = max(0, int(replica_wait_ms))  # replica.py: WAIT 1 <ms> after each append/record
        self.dedupe_window_s = max(1, int(dedupe_window_s))
        for part in type(self).__mro__:  # each part registers the scripts it runs (its SCRIPTS)
            for attr, lua in vars(part).get("SCRIPTS", {}).items():
                setattr(self, attr, client.register_script(lua))

    # -- appending ----------------------------------------------------------------------
    def append(self, owner: str, expected_version: int, events: Iterable[dict[str, Any]] = (), *,
               message_id: str | None = None, outbox: Iterable[dict[str, Any]] = (),
               meta: dict[str, str] | None = None, ttl: int = 0, claimed: bool | str = False,
               turn: tuple[int, str, int] | tuple[int, str, int, int | None] | None = None,
               snapshot: dict[str, Any] | None = None, plans_version: str | None = None,
               plan_log: Iterable[dict[str, Any]] = ()) -> AppendResult:
        """Append events + outbox entries + meta fields + the consumed message id, all or nothing.

        ``expected_version`` is the stream length the caller decided against (-1: no check,
        for player-owned replies). ``ttl`` > 0 expires the outbox and consumed ids (a game
        that is over). Owners with outbox entries are registered in their ``{dirty:<k>}`` shard *before*
        the script runs, so a writer that dies right after it cannot hide entries from the sweep.
        ``claimed``: a claim token (:func:`new_claim_token`; ``True``: a fresh one): the entries are born
        claimed for sending by the caller's attempt (status ``sending``: it settles them itself with that
        token, :meth:`settle_local_many`; if it dies first, the sweep sends them once
        ``SLOWSPADES_SEND_LEASE`` is over).
        ``turn``: (game version, the seats owing a move ("0", "1", "01") or "", ms[, the actor's seat]) recorded in the game's meta (its life fields) with the
        append, unless a newer turn is (see ``AppendResult.turn``; ``service.lifecycle.reminders``).
        ``snapshot``: the game's state after ``events`` (``spades.snapshot.dump``), kept as its snapshot
        covering the stream up to the last event appended (:mod:`service.store.snapshot`).
        ``plans_version``: the meta's ``pv`` the caller decided against (a game's players' plans, RULES D12): a plan
        given since is a conflict; ``plan_log``: plan changes added to the game's plan stream (``keys.owner_plans``).
        """
        entries = [json.dumps(e, separators=(",", ":")) for e in outbox]
        k = owner_keys(owner)
        body: dict[str, Any] = {
            "events": [json.dumps(e, separators=(",", ":")) for e in events],
            "outbox": entries,
            "meta": {str(a): str(b) for a, b in (meta or {}).items()},
            "ttl": int(ttl),
            "claimed": (claimed if isinstance(claimed, str) else new_claim_token()) if claimed else False,
            "turn": ([str(int(turn[0])), str(turn[1]), str(int(turn[2])),
                      "" if len(turn) < 4 or turn[3] is None else str(turn[3])] if turn is not None else None),
        }
        if plans_version is not None:
            body["pv"] = plans_version
        logged = [json.dumps(e, separators=(",", ":")) for e in plan_log]
        if logged:
            body["planlog"] = logged
        payload = json.dumps(body)
        keys = [k["ev"], k["meta"], k["consumed"], k["outbox"], k["outq"], owner_snapshot(owner), owner_plans(owner)]
        snap = zlib.compress(json.dumps(snapshot, separators=(",", ":")).encode(), 6) if snapshot is not None else ""
        args: list[Any] = [expected_version, message_id or "", now_ms(), payload, snap]
        if self.replica_wait_ms:  # acknowledged by a replica (service.store.replica), else ReplicaLagError: retried
            dirty = (registry_shard(self.r, "dirty", k["ev"], dirty_key(owner)), owner, now_ms(), False) \
                if entries else None
            replies, acked = run_replicated(self.r, k["ev"], self.replica_wait_ms,
                                            lambda pipe: queue_script(pipe, self._append, keys, args), index=dirty)
            reply = replies[-1]
            if acked < 1 and text(reply[0]) != "conflict":
                lagged("append", owner, self.replica_wait_ms)
                raise ReplicaLagError(f"append to {owner}: no replica acknowledged it in {self.replica_wait_ms} ms")
        elif entries:  # one round trip: the ZADD runs first, then the script
            pipe = self.r.pipeline(transaction=False)
            pipe.zadd(registry_shard(self.r, "dirty", k["ev"], dirty_key(owner)), {owner: now_ms()})
            queue_script(pipe, self._append, keys, args)
            reply = pipe.execute()[-1]
        else:
            reply = self._append(keys=keys, args=args)
        status, version, ids = reply[0], reply[1], text(reply[2])
        last = text(reply[3]) if len(reply) > 3 else ""
        recorded = (int(reply[4]), text(reply[5]), text(reply[6])) if len(reply) > 6 else None
        return AppendResult(text(status), int(text(version)), [f"{owner}#{n}" for n in ids.split(",") if n], last,
                            recorded)

    def append_move(self, game_id: str, expected_version: int, events: Iterable[dict[str, Any]] = (), *,
                    message_id: str = "", outbox: Iterable[dict[str, Any]] = (), meta: dict[str, str] | None = None,
                    ttl: int = 0, claimed: str = "", turn: tuple[int, str, int, int | None] | None = None,
                    snapshot: dict[str, Any] | None = None, plans_version: str | None = None,
                    plan_log: Iterable[dict[str, Any]] = (), finished: bool = False) -> AppendResult:
        """A move's write, in one call: :meth:`append` to the game ``game_id``, then what follows it here once it is
        written: a ``finished`` game's log archived (:meth:`archive`), else after a new ``snapshot`` the log before it
        compressed and the outbox compacted (:meth:`keep_in_play`, keeping the consumed id of ``message_id``)."""
        res = self.append(game_owner(game_id), expected_version, events, message_id=message_id, outbox=outbox,
                          meta=meta, ttl=ttl, claimed=claimed, turn=turn, snapshot=snapshot,
                          plans_version=plans_version, plan_log=plan_log)
        if res.ok and finished:
            self.archive(game_id)
        elif res.ok and snapshot is not None:
            self.keep_in_play(game_id, res.last_stream_id, message_id)
        return res

    # -- reading ------------------------------------------------------------------------
    def load(self, game_id: str, after: str | None = None) -> list[StoredEvent]:
        """The game's events in order (only those after stream id ``after`` if given), archived or not, its
        head (the events moved out of a game in play's stream, :mod:`service.store.snapshot`) first."""
        pipe = self.r.pipeline(transaction=False)
        self.queue_load(pipe, game_id, after)
        return self.loaded(game_id, after, pipe.execute())

    @staticmethod
    def queue_load(pipe: Pipeline, game_id: str, after: str | None = None) -> None:
        """Queue on ``pipe`` the reads of :meth:`load` (so a caller can join them to its own): with ``after``,
        also the stream's first id, so that the head is unpacked only when ``after`` has left the stream."""
        k = owner_keys(game_owner(game_id))
        pipe.xrange(k["ev"], min="(" + after if after else "-", max="+")
        pipe.exists(k["archive"])
        pipe.get(game_head(game_id))
        if after:
            pipe.xrange(k["ev"], min="-", max="+", count=1)

    def loaded(self, game_id: str, after: str | None, replies: list[Any]) -> list[StoredEvent]:
        """:meth:`load`'s answer from the replies :meth:`queue_load` queued."""
        entries, archived, head = replies[:3]
        if archived and not entries:
            return [e for e in self.read_archive(game_id)
                    if after is None or sid_key(e.stream_id) > sid_key(after)]
        if after and replies[3] and sid_key(text(replies[3][0][0])) <= sid_key(after):
            return stream_entries(entries)  # ``after`` is still in the stream: nothing of the head follows it
        older = [e for e in unpack_log(head) if after is None or sid_key(e.stream_id) > sid_key(after)]
        return older + stream_entries(entries)

    def version(self, game_id: str) -> int:
        """The number of events of the game (its head and stream, or what its archive holds)."""
        k = owner_keys(game_owner(game_id))
        pipe = self.r.pipeline(transaction=False)
        pipe.xlen(k["ev"])
        pipe.hmget(k["meta"], "archived", "head")
        n, (archived, head) = pipe.execute()
        return max(int(n) + (int(text(head)) if head else 0), int(text(archived)) if archived else 0)

    def ping(self) -> bool:
        """Whether Redis answers (the health check)."""
        return bool(self.r.ping())

    def migrate_legacy(self) -> dict[str, int]:
        """Move the old global keys into their shards (:func:`service.store.migrate.migrate_legacy`)."""
        return migrate_legacy(self.r)

    def shared_secret(self, key: str, make: Callable[[], str]) -> str:
        """The value at ``key``, set to ``make()`` first if none is (one value for every process)."""
        self.r.set(key, make(), nx=True)
        return text(self.r.get(key) or b"")

    def simulator_secret(self, name: str, make: Callable[[], str]) -> str:
        """The simulator's shared local webhook secret ``name`` (``twilio``, ``mailgun``): :meth:`shared_secret`."""
        return self.shared_secret(simulator_secret(name), make)

    def meta(self, game_id: str) -> GameMeta:
        return GameMeta({text(a): text(b) for a, b in self.r.hgetall(owner_keys(game_owner(game_id))["meta"]).items()})

    def consumed_and_meta(self, game_id: str, message_id: str) -> tuple[list[str] | None, GameMeta]:
        """:meth:`consumed` for the game and :meth:`meta`, in one round trip."""
        owner = game_owner(game_id)
        k = owner_keys(owner)
        pipe = self.r.pipeline(transaction=False)
        pipe.hget(k["consumed"], message_id)
        pipe.hgetall(k["meta"])
        raw, meta = pipe.execute()
        ids = None if raw is None else [f"{owner}#{n}" for n in text(raw).split(",") if n]
        return ids, GameMeta({text(a): text(b) for a, b in meta.items()})

    def game_consumed(self, game_id: str, message_id: str) -> list[str] | None:
        """:meth:`consumed` by the game ``game_id``."""
        return self.consumed(game_owner(game_id), message_id)

    def consumed(self, owner: str, message_id: str) -> list[str] | None:
        """The outbox ids a consumed message caused, or None if ``owner`` never consumed it."""
        raw = self.r.hget(owner_keys(owner)["consumed"], message_id)
        if raw is None:
            return None
        return [f"{owner}#{n}" for n in text(raw).split(",") if n]


if TYPE_CHECKING:  # the Redis store is a recorder of the game log (service.store.recorder): mypy holds it
    _recorder: type[SnapshottingRecorder] = Store

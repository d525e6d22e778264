"""A game in play kept small (a mixin of :class:`service.store.Store`): its state read from its snapshot and the
events after it, and, once a hand starts (or its play begins), the events before the snapshot moved out of the
stream into the game's compressed head and its outbox and consumed ids compacted.

The snapshot (``{g:<id>}:snap``, :func:`service.store.keys.game_snapshot`) is written by the append that starts a
hand or its play (``Store.append(snapshot=...)``, in the same script: no round trip of its own); it covers the
stream up to its ``sid``. :meth:`InPlayGames.keep_in_play` then moves the events up to that ``sid`` into ``{g:<id>}:head``
(the archive's format: :func:`service.store.base.pack_log`, message ids as 64-bit digests), counted in the meta's ``head``: the stream then holds only the
current half hand, and a game's version is ``head`` + the stream's length. Every read of the whole log
(``Store.load``: ``games events``, ``verify``, replay, the archive of a finished game) sees the head first.

Invariant: the head never reaches past the snapshot's ``sid``, and a snapshot is only ever replaced by a newer
one; so a reader whose last event is at or after the snapshot's ``sid`` finds every later event in the stream,
and any other reader starts from the snapshot (``LOAD_LUA``).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from typing import Any, Callable

from redis.client import Pipeline
from redis.commands.core import Script

from ..records import GameMeta
from .base import (
    Client,
    StoredEvent,
    pack_log,
    queue_script,
    real_ids,
    same_message,
    sid_key,
    stream_entries,
    unpack_log,
)
from .codec import text, text_hash
from .keys import game_head, game_owner, game_snapshot, owner_keys
from .recorder import StateRead

LOAD_LUA = r"""
-- KEYS: ev, snap, archive; ARGV: the last stream id the reader folded ('' for none)
-- A finished game's archive; else the snapshot and the events after it, if the reader is behind the
-- snapshot; else the events after the reader's.
if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[3]) == 1 then
  return {'archive', redis.call('GET', KEYS[3])}
end
local after = ARGV[1]
local sid = redis.call('HGET', KEYS[2], 'sid')
local function older(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
if sid and (after == '' or older(after, sid)) then
  return {'snap', redis.call('HGET', KEYS[2], 's'), sid, redis.call('XRANGE', KEYS[1], '(' .. sid, '+')}
end
if after == '' then return {'all', false, '', redis.call('XRANGE', KEYS[1], '-', '+')} end
return {'after', false, after, redis.call('XRANGE', KEYS[1], '(' .. after, '+')}
"""

HEAD_LUA = r"""
-- KEYS: ev, head, meta; ARGV: the meta's head as read ('' for none), the new head's count, the first stream
-- id the head does not cover, the new head (compressed)
-- Moves the stream's events before ARGV[3] into the head, unless someone did meanwhile.
if (redis.call('HGET', KEYS[3], 'head') or '') ~= ARGV[1] or redis.call('HEXISTS', KEYS[3], 'archived') == 1 then
  return 0
end
redis.call('SET', KEYS[2], ARGV[4])
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[3])
redis.call('HSET', KEYS[3], 'head', ARGV[2])
return 1
"""


def next_id(stream_id: str) -> str:
    """The smallest stream id after ``stream_id``."""
    ms, _, seq = stream_id.partition("-")
    return f"{ms}-{int(seq or 0) + 1}"


class InPlayGames:
    """:meth:`queue_state` (a game's state as a cold or warm reader needs it) and :meth:`keep_in_play`."""

    r: Client
    SCRIPTS = {"_load_state": LOAD_LUA, "_head": HEAD_LUA}
    _load_state: Script
    _head: Script
    _compact: Script

    def queue_state(self, pipe: Pipeline, game_id: str, after: str | None = None,
                    with_meta: bool = False) -> Callable[[list[Any]], StateRead]:
        """Queue on ``pipe`` the read of a game's state for a reader that folded it up to stream id ``after``
        (``None``: nothing); call the result with the replies of what it queued (one or two).

        A cold reader runs ``LOAD_LUA``. A warm one (``after``) reads the events after its own (``XRANGE``) and
        then the meta's ``archived`` and ``snap`` (the snapshot's stream id, written with it): two commands and no
        script. If the game was archived, or a snapshot newer than ``after`` was written (so events after
        ``after`` may have left the stream), or the meta does not name its snapshot (a game appended to before
        it did), the answer is ``LOAD_LUA``'s, in a round trip of its own. Read in that order, a stream trimmed
        between the two reads is always seen: the trim follows the snapshot's append (the module docstring).
        ``with_meta``: the whole meta is read after the events (``HGETALL`` instead of the warm reader's two
        fields; after the script for a cold one) and given in :attr:`StateRead.meta`, for a caller that needs it
        anyway (a move): one read of the meta, not two."""
        k = owner_keys(game_owner(game_id))
        if after:
            pipe.xrange(k["ev"], min="(" + after, max="+")
            if with_meta:
                pipe.hgetall(k["meta"])
            else:
                pipe.hmget(k["meta"], "archived", "snap")

            def finish_warm(replies: list[Any]) -> StateRead:
                events, raw = replies
                meta = GameMeta(text_hash(raw)) if with_meta else None
                archived, snap = (meta.get("archived"), meta.get("snap")) if meta is not None else raw
                if archived is None and snap is not None and sid_key(text(snap)) <= sid_key(after):
                    return StateRead(None, "", stream_entries(events), meta=meta)
                return replace(self.state(game_id, after), meta=meta)

            return finish_warm
        queue_script(pipe, self._load_state, [k["ev"], game_snapshot(game_id), k["archive"]], [""])
        if with_meta:
            pipe.hgetall(k["meta"])
            return lambda replies: replace(self._state_from(replies[0], None), meta=GameMeta(text_hash(replies[1])))
        return lambda replies: self._state_from(replies[0], None)

    def state(self, game_id: str, after: str | None = None) -> StateRead:
        """The state read of :meth:`queue_state` by ``LOAD_LUA``, in one round trip of its own."""
        k = owner_keys(game_owner(game_id))
        return self._state_from(self._load_state(keys=[k["ev"], game_snapshot(game_id), k["archive"]], args=[after or ""]),
                                after)

    @staticmethod
    def _state_from(reply: Any, after: str | None) -> StateRead:
        kind = text(reply[0])
        if kind == "archive":
            return StateRead(None, "", [e for e in unpack_log(reply[1]) if after is None or sid_key(e.stream_id) > sid_key(after)],
                             True)
        snap = json.loads(zlib.decompress(reply[1])) if kind == "snap" and reply[1] else None
        return StateRead(snap, text(reply[2]) if kind == "snap" else "", stream_entries(reply[3]))

    def read_head(self, game_id: str) -> list[StoredEvent]:
        """The events moved out of a game in play's stream (see the module docstring)."""
        return unpack_log(self.r.get(game_head(game_id)))

    def consumed_in_head(self, game_id: str, message_id: str) -> bool:
        """Whether a game in play's head holds an append of ``message_id`` (its consumed id may be gone,
        compacted by :meth:`keep_in_play`; the head keeps its digest). Reads the whole head: for refusals."""
        return any(same_message(e.message_id, message_id) for e in self.read_head(game_id))

    def keep_in_play(self, game_id: str, snapshot_sid: str, keep_message: str = "") -> int:
        """Once a hand's start wrote the snapshot at ``snapshot_sid``: the stream's events up to it into the
        game's compressed head, and the outbox and consumed ids compacted (``Store.compact_outbox``: what
        may still be sent or looked at; the consumed ids of ``keep_message``, the message being handled,
        stay). Two round trips, twice a hand; returns the events moved (0 if someone else did)."""
        k = owner_keys(game_owner(game_id))
        pipe = self.r.pipeline(transaction=False)
        pipe.hget(k["meta"], "head")
        pipe.get(game_head(game_id))
        pipe.xrange(k["ev"], "-", snapshot_sid)
        pipe.hkeys(k["consumed"])
        raw_count, raw_head, entries, consumed = pipe.execute()
        moved = stream_entries(entries)
        if not moved:
            return 0
        head = unpack_log(raw_head)
        if len(head) != (int(text(raw_count)) if raw_count else 0):
            return 0
        log = head + moved
        # the stream's ids are real; the head's are digests (format 2): the consumed ids they stand for
        logged = [m for m in real_ids((e.message_id for e in log), (text(f) for f in consumed)) if m != keep_message]
        pipe = self.r.pipeline(transaction=False)
        queue_script(pipe, self._head, [k["ev"], game_head(game_id), k["meta"]],
                     [text(raw_count) if raw_count else "", len(log), next_id(snapshot_sid), pack_log(log, 6)])  # 6: a quarter of 9's CPU, 4% more bytes
        queue_script(pipe, self._compact, [k["outbox"], k["consumed"], k["meta"]], logged)
        done, _dropped = pipe.execute()
        return len(moved) if done else 0


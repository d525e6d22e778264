"""A finished game's log compressed into one value, and its outbox compacted (a mixin of :class:`service.store.Store`)."""

from __future__ import annotations

from typing import Callable

from redis.commands.core import Script

from .base import DIGEST_MARK, Client, StoredEvent, pack_log, real_ids, same_message, unpack_log
from .codec import text
from .keys import game_head, game_owner, game_snapshot, owner_keys

ARCHIVE_LUA = r"""
-- KEYS: ev, archive, meta, head, snap; ARGV: expected stream length, compressed log, its number of events,
--   the meta's head as read ('' for none)
-- Replaces a finished game's stream (and the head of its log, and its snapshot) by one compressed value, if
-- nothing was appended or moved meanwhile.
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) or redis.call('HEXISTS', KEYS[3], 'archived') == 1
   or (redis.call('HGET', KEYS[3], 'head') or '') ~= ARGV[4] then
  return 0
end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1], KEYS[4], KEYS[5])
redis.call('HSET', KEYS[3], 'archived', ARGV[3])
redis.call('HDEL', KEYS[3], 'head')
return 1
"""

COMPACT_LUA = r"""
-- KEYS: outbox, consumed, meta; ARGV: the message ids of the game's archived log
-- A finished game's outbox keeps what may still be sent or looked at: entries not known to be sent
-- (queued, sending, failed) and the last entry to each recipient. The others (sent, delivered) are
-- dropped, and the consumed ids whose entries were all dropped with them (a retry of such a message
-- is still recognised, from the archived log: Store.consumed_in_archive). Returns the number dropped.
local all = redis.call('HGETALL', KEYS[1])
local status, last = {}, {}
for i = 1, #all, 2 do
  local f, v = all[i], all[i + 1]
  local n = string.match(f, '^(%d+):s$')
  if n then
    status[n] = v
  elseif string.match(f, '^%d+$') then
    local ok, e = pcall(cjson.decode, v)
    local to = (ok and type(e) == 'table' and e.to) or ''
    if last[to] == nil or tonumber(f) > tonumber(last[to]) then last[to] = f end
  end
end
local keep = {}
for _, n in pairs(last) do keep[n] = true end
local dropped = {}
local count = 0
for n, s in pairs(status) do
  if (s == 'sent' or s == 'delivered') and not keep[n] then
    dropped[n] = true
    count = count + 1
  end
end
local logged = {}
for _, m in ipairs(ARGV) do logged[m] = true end
local consumed = redis.call('HGETALL', KEYS[2])
local gone = {}
for i = 1, #consumed, 2 do
  local all_dropped = logged[consumed[i]] == true
  for n in string.gmatch(consumed[i + 1], '[^,]+') do
    if not dropped[n] then all_dropped = false end
  end
  gone[consumed[i]] = all_dropped
end
-- each hash written afresh with what it keeps (one DEL and one HSET, not an HDEL a field): a hash emptied
-- by HDEL keeps its table's memory, and a small one is stored compactly
local function entry_dropped(f)  -- '<n>' and '<n>:<field>' of a dropped entry
  local n = string.match(f, '^(%d+)')
  return n ~= nil and dropped[n] == true and (#f == #n or string.sub(f, #n + 1, #n + 1) == ':')
end
local function rewrite(key, pairs_, drop)
  local ttl = redis.call('PTTL', key)
  local rest = {}
  for i = 1, #pairs_, 2 do
    if not drop(pairs_[i]) then rest[#rest + 1] = pairs_[i]; rest[#rest + 1] = pairs_[i + 1] end
  end
  redis.call('DEL', key)
  for i = 1, #rest, 1000 do  -- in chunks: unpack has a stack limit
    redis.call('HSET', key, unpack(rest, i, math.min(i + 999, #rest)))
  end
  if #rest > 0 and ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
rewrite(KEYS[1], all, entry_dropped)
rewrite(KEYS[2], consumed, function(f) return gone[f] == true end)
if count > 0 then redis.call('HINCRBY', KEYS[3], 'outbox_dropped', count) end
return count
"""


class ArchivedGames:
    """:meth:`archive`, :meth:`compact_outbox` and the reads of an archived log."""

    r: Client
    SCRIPTS = {"_archive": ARCHIVE_LUA, "_compact": COMPACT_LUA}
    _archive: Script
    _compact: Script

    load: Callable[..., list[StoredEvent]]  # Store's

    def archive(self, game_id: str) -> bool:
        """Replace a finished game's stream (and its head, :mod:`service.store.snapshot`) by one compressed
        value (about a tenth of the memory).

        Safe to call any time: it does nothing if events were appended since it read the stream,
        and appends to an archived game are refused (conflict).
        """
        k = owner_keys(game_owner(game_id))
        head = self.r.hget(k["meta"], "head")
        events = self.load(game_id)
        if not events or self.r.hexists(k["meta"], "archived"):
            return False
        in_stream = len(events) - (int(text(head)) if head else 0)
        done = bool(self._archive(keys=[k["ev"], k["archive"], k["meta"], game_head(game_id), game_snapshot(game_id)],
                                  args=[in_stream, pack_log(events), len(events), text(head) if head else ""]))
        if done:
            self.compact_outbox(game_id, [e.message_id for e in events if e.message_id])
        return done

    def compact_outbox(self, game_id: str, logged: list[str]) -> int:
        """A finished game's outbox down to what may still be sent or looked at (see ``COMPACT_LUA``):
        the entries not known to be sent, the last one to each recipient, and their consumed ids
        (a consumed id goes only if ``logged``, the message ids of the archived log, has it; a digest of a
        packed log, :func:`service.store.base.log_digest`, stands for the consumed id it is the digest of).
        Returns the number of entries dropped (added up in the meta's ``outbox_dropped``)."""
        k = owner_keys(game_owner(game_id))
        known = [text(f) for f in self.r.hkeys(k["consumed"])] if any(m.startswith(DIGEST_MARK) for m in logged) else []
        return int(self._compact(keys=[k["outbox"], k["consumed"], k["meta"]], args=real_ids(logged, known)))

    def consumed_in_archive(self, game_id: str, message_id: str) -> bool:
        """Whether an archived game's log holds an append of ``message_id`` (its consumed id may be
        gone with its outbox entries, :meth:`compact_outbox`; the log keeps its digest)."""
        return any(same_message(e.message_id, message_id) for e in self.read_archive(game_id))

    def read_archive(self, game_id: str) -> list[StoredEvent]:
        return unpack_log(self.r.get(owner_keys(game_owner(game_id))["archive"]))

"""The operator CLI's reads and its one write (a mixin of :class:`service.store.Store`): every game and outbox
found by walking the keyspace (every primary of a cluster), a game's last append, sending an outbox entry again."""

from __future__ import annotations

from typing import Iterator

from redis.commands.core import Script

from .codec import text
from .keys import dirty_key, game_owner, owner_keys, split_outbox_id
from .store_base import Client, now_ms, queue_script, scan_keys

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


def _scan_ids(r: Client, kind: str, suffix: str) -> Iterator[str]:
    """The ids in keys ``{<kind>:<id>}:<suffix>`` found with SCAN (operator use: walks the keyspace)."""
    prefix, tail = "{" + kind + ":", "}:" + suffix
    for key in scan_keys(r, prefix + "*" + tail):
        k = text(key)
        if k.startswith(prefix) and k.endswith(tail):
            yield k[len(prefix):-len(tail)]


class OperatorReads:
    """What ``slowspades games|outbox|players`` read (and ``outbox resend`` writes)."""

    r: Client
    _requeue: Script

    def game_ids(self) -> list[str]:
        """Every game's id (SCAN)."""
        return sorted(set(_scan_ids(self.r, "g", "meta")))

    def outbox_owners(self) -> list[str]:
        """Every owner (``g:<id>``, ``p:<address>``) with an outbox (SCAN)."""
        owners = [f"g:{g}" for g in _scan_ids(self.r, "g", "outbox")]
        owners += [f"p:{p}" for p in _scan_ids(self.r, "p", "outbox")]
        return sorted(set(owners))

    def last_append_ms(self, game_id: str) -> int | None:
        """When the game's stream was last appended to (its last id), if it has one."""
        last = self.r.xrevrange(owner_keys(game_owner(game_id))["ev"], count=1)
        return int(text(last[0][0]).split("-")[0]) if last else None

    def requeue(self, outbox_id: str, lease_s: int, force: bool = False) -> str:
        """Queue an outbox entry again (unless it is being sent right now and not ``force``); returns its status
        before, ``missing`` or ``busy``. Raises ValueError for a malformed id."""
        owner, n = split_outbox_id(outbox_id)
        k = owner_keys(owner)
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(dirty_key(owner), {owner: now_ms()})  # before the entry is queued, as Store.append does
        queue_script(pipe, self._requeue, [k["outbox"], k["outq"]], [n, now_ms(), lease_s * 1000, "1" if force else "0"])
        return text(pipe.execute()[-1])

"""Moving a Redis of an older layout to this one (``slowspades migrate-keys``).

Issue 21: a player's life hash (``{p:<address>}:life``) and game numbers (``{p:<address>}:nums``) are merged
into their record (``{p:<address>}:player``, :func:`service.store.keys.player_life`), and a game's life hash
(``{g:<id>}:life``) into its meta (:func:`service.store.keys.game_life`), so a move reads a player with one command
and reads and writes its turn with the meta's: each field moves unless the hash it goes to holds it already
(HSETNX: what the new code wrote wins), and the old hash is deleted.

Issue 21 too: an inbound record (``{p:<address>}:in:<message id>``) is a JSON string, not a hash: those recorded
before are rewritten, their expiry kept.

Issue 13: the old global keys, ``ss:due``, ``outbox:dirty``, ``in:pending``, ``ss:names``, ``outbox:local``,
``ss:clock:offset``, ``sms:day:<day>`` / ``sms:capped:<day>`` and ``ss:beat:lock``, are read and their
contents written into the shards of :mod:`service.store.keys` (what a shard holds already wins: ZADD NX,
HSETNX), then deleted. Run it once, with the beat stopped, on the single Redis being upgraded (the old
layout never ran on a cluster); running it again finds nothing to move.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from . import keys
from .base import Client, scan_keys
from .codec import text
from .outbox import LOCAL_OWNER

LEGACY_DUE, LEGACY_DIRTY, LEGACY_PENDING, LEGACY_NAMES = "ss:due", "outbox:dirty", "in:pending", "ss:names"
LEGACY_LOCAL, LEGACY_CLOCK, LEGACY_LOCK = "outbox:local", "ss:clock:offset", "ss:beat:lock"


def _move_zset(client: Client, old: str, shard_of: Callable[[str], str]) -> int:
    """Every member of the zset ``old`` into its shard (``shard_of(member)``), with its score."""
    moved = 0
    pairs: list[Any] = client.zrange(old, 0, -1, withscores=True)
    for member, score in pairs:
        m = text(member)
        client.zadd(shard_of(m), {m: score}, nx=True)
        moved += 1
    client.delete(old)
    return moved


MERGED_HASHES = (("p", "life", "player"), ("p", "nums", "player"), ("g", "life", "meta"))  # (owner, old, into)


def merge_life_hashes(client: Client) -> dict[str, int]:
    """Every ``{p:<address>}:life`` and ``{p:<address>}:nums`` hash into the player's record, every ``{g:<id>}:life``
    into the game's meta (see the module docstring); returns the hashes merged, by kind. One script a hash: the
    fields and the DEL in one step, in the hash's slot."""
    out: dict[str, int] = {}
    for owner, kind, into in MERGED_HASHES:
        merged = 0
        for key in list(scan_keys(client, "{" + owner + ":*}:" + kind)):
            old = text(key)  # {<owner>:<id>}:<kind> -> {<owner>:<id>}:<into>
            merged += int(client.eval(_MERGE_LUA, 2, old, old[:-len(kind)] + into))
        out["{" + owner + ":<" + ("address" if owner == "p" else "id") + ">}:" + kind] = merged
    return out


_MERGE_LUA = r"""
-- KEYS: the old hash, the hash it goes into. Each field goes unless that hash has it; then the old hash goes.
local all = redis.call('HGETALL', KEYS[1])
if #all == 0 then return 0 end
for i = 1, #all, 2 do redis.call('HSETNX', KEYS[2], all[i], all[i + 1]) end
redis.call('DEL', KEYS[1])
return 1
"""


_RECORD_LUA = r"""
-- KEYS: an inbound record. A hash (the layout before issue 21) becomes the JSON string it is now, its expiry kept.
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return 0 end
local all, record = redis.call('HGETALL', KEYS[1]), {}
for i = 1, #all, 2 do record[all[i]] = all[i + 1] end
local left = redis.call('PTTL', KEYS[1])
redis.call('SET', KEYS[1], cjson.encode(record))
if left > 0 then redis.call('PEXPIRE', KEYS[1], left) end
return 1
"""


def inbound_records_as_strings(client: Client) -> int:
    """Every inbound record kept as a hash (``{p:<address>}:in:<message id>``, before issue 21) rewritten as the
    JSON string a record is now (one ``SET`` at the webhook, not ``HSET`` and ``EXPIRE``); returns how many."""
    return sum(int(client.eval(_RECORD_LUA, 1, text(key))) for key in list(scan_keys(client, "{p:*}:in:*")))


def migrate_legacy(client: Client) -> dict[str, int]:
    """Move every legacy global key's contents into its shards, and merge the players' old life and numbers
    hashes into their records and the games' life hashes into their metas; returns what was moved, by old key."""
    out: dict[str, int] = merge_life_hashes(client)
    out["{p:<address>}:in:<message id> (hash)"] = inbound_records_as_strings(client)
    out[LEGACY_DUE] = _move_zset(client, LEGACY_DUE, lambda m: keys.due_key(m.split("|")[1]))
    out[LEGACY_DIRTY] = _move_zset(client, LEGACY_DIRTY, keys.dirty_key)
    out[LEGACY_PENDING] = _move_zset(client, LEGACY_PENDING, lambda m: keys.pending_key(m.partition(" ")[0]))
    names = {text(a): text(b) for a, b in client.hgetall(LEGACY_NAMES).items()}
    for field, address in names.items():
        client.hsetnx(keys.names_key(field), field, address)
    client.delete(LEGACY_NAMES)
    out[LEGACY_NAMES] = len(names)
    local = 0
    legacy: list[Any] = client.xrange(LEGACY_LOCAL, "-", "+") or []
    for sid, fields in legacy:  # in order: each owner's stream keeps it
        raw = text(fields.get(b"m") or fields.get("m") or "{}")
        oid = str(json.loads(raw).get("id") or "")
        owner = keys.split_outbox_id(oid)[0] if "#" in oid else LOCAL_OWNER
        client.zadd(keys.local_index_key(owner), {owner: int(text(sid).split("-")[0])})
        client.xadd(keys.owner_keys(owner)["local"], {"m": raw})
        local += 1
    client.delete(LEGACY_LOCAL)
    out[LEGACY_LOCAL] = local
    offset = client.get(LEGACY_CLOCK)
    if offset is not None:
        client.set(keys.CLOCK_OFFSET, offset, nx=True)
        client.delete(LEGACY_CLOCK)
    out[LEGACY_CLOCK] = int(offset is not None)
    days = 0
    for key in list(scan_keys(client, "sms:*:*")):
        k = text(key)
        kind, _, day = k[len("sms:"):].partition(":")
        if kind in ("day", "capped") and day.isdigit():
            new = keys.limit_keys("", 0, day)["sms_day" if kind == "day" else "capped"]
            ttl = client.ttl(k)
            client.set(new, client.get(k) or b"0", nx=True, ex=ttl if ttl and ttl > 0 else None)
            client.delete(k)
            days += 1
    out["sms:<kind>:<day>"] = days
    out[LEGACY_LOCK] = int(client.delete(LEGACY_LOCK))
    return out

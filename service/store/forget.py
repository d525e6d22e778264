"""Erasing a player from Redis (``slowspades players forget``, GDPR article 17): the Redis half of
:mod:`service.forget`, which decides what to erase and how a text names the player once they are gone.

What a player leaves in Redis, and what happens to it here:

* every key under their hash tag (``{p:<address>}:*``: the record, settings, game numbers, replies outside
  games, claims of their inbound messages, limit counters, link codes), for each of their addresses: deleted
  (:meth:`Forgetting.erase_owner`), with their members of the shards that point at such keys (``{dirty:k}``,
  ``{local:k}``, ``{inpend:k}``: every shard, an entry may be in any);
* their chosen name in the ``{names:k}`` index, and their own reply token (``rtok:<token>``): deleted;
* a ``LINK`` code pending at another address for them (``{p:<other>}:linkcode``, ``home`` = theirs): deleted;
* in each of their games (:meth:`Forgetting.forget_seat`): the meta's ``seat<n>`` becomes the forgotten id (the
  seat, the events and the archive are untouched: they name seats, never addresses), the seat's reply and page
  tokens are revoked, and a life field of the game that names their address (the pause of an unreachable
  player, ``pause:reach:<address>:<ms>``, :func:`service.lifecycle.reach.pause_field`) is renamed with the forgotten
  id; the game's outbox entries and local outbox stream, and the opponent's replies and local
  stream, are rewritten by the caller's ``scrub`` (an entry *to* the player keeps its status and loses its
  texts, one to the opponent keeps its texts with the player's name and address replaced).

A rewrite is not atomic across keys (they lie in several slots); it is idempotent, so a forget interrupted is run
again. What this cannot reach (Redis' RDB and AOF files, replicas' and backups' copies, disks of the web hosts'
spools) is in ``docs/operating.md`` ("Forget").
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .base import Client, scan_keys
from .codec import text
from .keys import (
    PAUSE_REACH,
    game_owner,
    name_field,
    names_key,
    owner_keys,
    player_owner,
    reply_token,
    shards,
    web_token,
)
from .personal import player_keys

Scrub = Callable[[str], str]  # a text with a player's address and name replaced
#: an entry's fields that hold what was said (emptied in an entry to the forgotten player)
TEXT_FIELDS = ("body", "subject", "html")
_GLOB = str.maketrans({c: "\\" + c for c in "*?[]\\"})


def scrub_entry(raw: str, scrub: Scrub, gone: frozenset[str], forgotten: str) -> str:
    """One stored outbox value: an entry's JSON rewritten (its recipient, if ``gone``, renamed ``forgotten`` and its
    texts emptied; else every string ``scrub``-bed), any other value (a status, an error) ``scrub``-bed."""
    try:
        entry = json.loads(raw)
    except ValueError:
        return scrub(raw)
    if not isinstance(entry, dict):
        return scrub(raw)
    out = {k: scrub(v) if isinstance(v, str) else v for k, v in entry.items()}
    if entry.get("to") in gone:
        out.update({"to": forgotten}, **{f: "" for f in TEXT_FIELDS if f in entry})
    return json.dumps(out, ensure_ascii=False) if out != entry else raw


class Forgetting:
    """The Redis writes of forgetting one player (see the module docstring)."""

    def __init__(self, client: Client) -> None:
        self.r = client

    def player_keys(self, address: str) -> dict[str, dict[str, Any]]:
        """Every key of the player ``address``, decoded (:func:`service.store.personal.player_keys`: an export)."""
        return player_keys(self.r, address)

    # -- what names the player ---------------------------------------------------------------------------
    def forget_seat(self, game_id: str, seat: int, forgotten: str) -> None:
        """Seat ``seat`` of ``game_id`` renamed ``forgotten`` in the meta (and in the game's life fields that name
        the seat's address); its reply and page tokens revoked."""
        meta = owner_keys(game_owner(game_id))["meta"]
        fields = {text(k): text(v) for k, v in self.r.hgetall(meta).items()}
        tok, web, address = fields.get(f"tok{seat}"), fields.get(f"web{seat}"), fields.get(f"seat{seat}", "")
        named = f"{PAUSE_REACH}{address}:"
        old = [k for k in fields if address and address != forgotten and k.startswith(named)]  # (run again: none)
        renamed = {f"{PAUSE_REACH}{forgotten}:{k[len(named):]}": fields[k] for k in old}
        pipe = self.r.pipeline(transaction=False)
        written: dict[Any, Any] = {f"seat{seat}": forgotten, **renamed}
        pipe.hset(meta, mapping=written)
        pipe.hdel(meta, f"tok{seat}", f"web{seat}", *old)
        if tok:
            pipe.delete(reply_token(text(tok)))
        if web:
            pipe.delete(web_token(text(web)))
        pipe.execute()

    def rewrite_texts(self, owner: str, scrub: Scrub, gone: frozenset[str], forgotten: str) -> int:
        """An owner's outbox entries and local outbox stream rewritten (:func:`scrub_entry`); returns the number of
        values changed. Each key is rewritten in one transaction (a stream is written again with its ids)."""
        k = owner_keys(owner)
        changed: dict[Any, Any] = {}
        for field, value in self.r.hgetall(k["outbox"]).items():
            old = text(value)
            new = scrub_entry(old, scrub, gone, forgotten)
            if new != old:
                changed[text(field)] = new
        if changed:
            self.r.hset(k["outbox"], mapping=changed)
        stream: list[tuple[str, dict[str, str]]] = []
        dirty = 0
        for sid, fields in self.r.xrange(k["local"]) or []:
            row = {text(f): text(v) for f, v in (fields or {}).items()}
            new_row = {f: scrub_entry(v, scrub, gone, forgotten) for f, v in row.items()}
            dirty += new_row != row
            stream.append((text(sid), new_row))
        if dirty:
            pipe = self.r.pipeline(transaction=True)
            pipe.delete(k["local"])
            for sid, row in stream:
                pipe.xadd(k["local"], row, id=sid)  # type: ignore[arg-type]
            pipe.execute()
        return len(changed) + dirty

    def release_name(self, home: str, name: str) -> None:
        """The chosen ``name`` no longer held by ``home`` in the names index."""
        field = name_field(name)
        holder = self.r.hget(names_key(field), field)
        if holder is not None and text(holder) == home:
            self.r.hdel(names_key(field), field)

    def drop_link_codes(self, addresses: frozenset[str]) -> int:
        """``LINK`` codes pending anywhere for one of ``addresses`` (a walk of the keyspace's ``:linkcode`` keys:
        they are few and short-lived); returns how many were deleted."""
        dropped = 0
        for key in list(scan_keys(self.r, "{p:*}:linkcode")):
            if text(self.r.hget(key, "home") or b"") in addresses:
                dropped += int(self.r.delete(key))
        return dropped

    def player_addresses(self) -> list[str]:
        """Every address with a player record (a walk of the keyspace's ``{p:*}:player`` keys)."""
        prefix, tail = "{p:", "}:player"
        found = (text(k) for k in scan_keys(self.r, prefix + "*" + tail))
        return sorted({k[len(prefix):-len(tail)] for k in found if k.startswith(prefix) and k.endswith(tail)})

    # -- the player's own keys ---------------------------------------------------------------------------
    def erase_owner(self, address: str) -> int:
        """Every key under ``address``'s hash tag deleted (its own reply token first), and its members of the
        shards that point at its keys; returns the number of keys deleted."""
        owner = player_owner(address)
        rtok = self.r.hget(owner_keys(owner)["meta"], "rtok")
        if rtok:
            self.r.delete(reply_token(text(rtok)))
        found: list[Any] = list(scan_keys(self.r, ("{" + owner + "}").translate(_GLOB) + "*"))
        deleted = 0
        for key in found:  # one at a time: on a cluster a DEL of several keys must lie in one slot (they do) ...
            deleted += int(self.r.delete(key))  # ... but one call each keeps this simple and the same everywhere
        # the indexes: an owner's entry may lie in any shard (on a cluster, one on the node of the write it
        # indexes: service.store.replica.registry_shard), so every shard is cleared
        pipe = self.r.pipeline(transaction=False)
        for key in [*shards("dirty"), *shards("local")]:
            pipe.zrem(key, owner)
        pipe.execute()
        for pending in shards("inpend"):
            mine: list[Any] = [m for m in self.r.zrange(pending, 0, -1) if text(m).partition(" ")[0] == address]
            if mine:
                self.r.zrem(pending, *mine)
        return deleted

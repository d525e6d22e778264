"""The operator CLI's reads (a mixin of :class:`service.store.Store`): every game and outbox found by walking the
keyspace (every primary of a cluster), a game's last append, a game's plan stream. (Sending an outbox entry again: :mod:`.outbox`.)"""

from __future__ import annotations

from typing import Iterator

from .base import Client, scan_keys
from .codec import text
from .keys import game_owner, owner_keys, owner_plans


def _scan_ids(r: Client, kind: str, suffix: str) -> Iterator[str]:
    """The ids in keys ``{<kind>:<id>}:<suffix>`` found with SCAN (operator use: walks the keyspace)."""
    prefix, tail = "{" + kind + ":", "}:" + suffix
    for key in scan_keys(r, prefix + "*" + tail):
        k = text(key)
        if k.startswith(prefix) and k.endswith(tail):
            yield k[len(prefix):-len(tail)]


class OperatorReads:
    """What ``slowspades games|outbox|players`` read."""

    r: Client

    def plan_log(self, game_id: str) -> list[tuple[str, str]]:
        """A game's plan changes (RULES D12), oldest first: (stream id, the change's JSON) (``keys.owner_plans``)."""
        out: list[tuple[str, str]] = []
        for sid, fields in self.r.xrange(owner_plans(game_owner(game_id))) or []:
            got = {text(k): text(v) for k, v in (fields or {}).items()}
            out.append((text(sid or ""), got.get("p", "")))
        return out

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

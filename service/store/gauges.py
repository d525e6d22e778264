"""What the metrics endpoint reads from Redis when it is scraped (:mod:`service.metrics`): the outbox's backlog and
the games by status. Read only, and bounded: functions over a client rather than a part of :class:`Store`, since
no move, task or command needs them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .base import Client, scan_keys
from .client import describe
from .codec import text
from .keys import owner_keys, shards

#: owners read per dirty shard at most (the oldest first): the backlog's depth is exact below 16 times this
OWNERS_PER_SHARD = 500


@dataclass(frozen=True)
class Backlog:
    """Outbox entries not yet sent (queued, or claimed and not settled) and when the oldest was queued."""

    entries: int
    owners: int
    oldest_ms: int | None


def outbox_backlog(r: Client, per_shard: int = OWNERS_PER_SHARD) -> Backlog:
    """The unsent entries of the owners in the dirty shards (an owner is registered there when it queues an
    entry, and tidied by the sweep once its queue is empty), in two round trips."""
    pipe = r.pipeline(transaction=False)
    for key in shards("dirty"):
        pipe.zrange(key, 0, per_shard - 1)
    owners = list(dict.fromkeys(text(o) for got in pipe.execute() for o in got))
    if not owners:
        return Backlog(0, 0, None)
    pipe = r.pipeline(transaction=False)
    for owner in owners:
        outq = owner_keys(owner)["outq"]
        pipe.zcard(outq)
        pipe.zrange(outq, 0, 0, withscores=True)
    replies = pipe.execute()
    sizes, firsts = replies[0::2], replies[1::2]
    oldest = [int(first[0][1]) for first in firsts if first]
    return Backlog(sum(int(n) for n in sizes), sum(1 for n in sizes if n), min(oldest) if oldest else None)


def games_by_status(r: Client, batch: int = 1000) -> dict[str, int]:
    """How many games are in each status (``invited``, ``active``, ``over``, ``declined``, ``expired``): SCAN of
    every game's meta (every primary of a cluster), their ``status`` read in pipelines of ``batch``."""
    counts: Counter[str] = Counter()
    keys: list[bytes] = []

    def read() -> None:
        pipe = r.pipeline(transaction=False)
        for key in keys:
            pipe.hget(key, "status")
        counts.update(text(s) for s in pipe.execute() if s is not None)
        keys.clear()

    for key in scan_keys(r, "{g:*}:meta"):
        keys.append(key)
        if len(keys) >= batch:
            read()
    if keys:
        read()
    return dict(counts)


class Gauges:
    """What is read of the store as a whole (``/metrics``' gauges, the operator's view): on this process's client."""

    def __init__(self, r: Client) -> None:
        self.r = r

    def outbox_backlog(self) -> Backlog:
        return outbox_backlog(self.r)

    def games_by_status(self) -> dict[str, int]:
        return games_by_status(self.r)

    def described(self) -> str:
        """The Redis this process reads (:func:`service.store.client.describe`), as an operator is shown it."""
        return describe(self.r)

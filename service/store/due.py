"""Due work in Redis sorted sets, scored by the time it falls due (ms since the epoch): the lifecycle's schedule,
kept beside the store (its Redis commands are here, its callers in ``service.lifecycle``). The work is split in
:data:`~service.store.keys.SHARDS` shards ``{due:<k>}`` by its game (:func:`service.store.keys.due_key`), each its own
hash tag (on a Redis Cluster the shards spread over the masters); :func:`scanning` reads them in turn.

A member names its work completely, so scheduling the same work twice is one entry:

* ``r|<game>|<seat>|<version>|<n>``: the n-th reminder of the turn that began at ``version``;
* ``a|<game>|<seat>|<version>``: reminders ran out: the computer moves for a player with AUTO ON;
* ``t|<game>|<seat>|<version>``: the turn's timeout: the waiting player is told they may CLAIM;
* ``b|<game>|<seat>|<version>``: the computer's move (a backstop for the Celery task);
* ``x|<game>``: an invitation expires;
* ``w|<game>|<seat>|now``: a seat's game page mark ended (``service.games.presence``);
* ``p|<game>|<seat>|<version>``: a prompt that went by push, not seen: by another channel
  (``service.lifecycle.push_fallback``).

The version a member carries makes it stale as soon as the game moves on: it then does nothing. The items a turn
begins with (its first reminder, its timeout, the computer's move) carry ``now`` (:data:`NOW`) instead: one member
a seat, which the seat's next turn moves (one ``ZADD`` a move, no ``ZREM`` of the turn that ended); falling due,
it acts for the turn its seat owes then, if any (``service.lifecycle.reminders.current``).
:func:`scanning` runs under a lock (``{beat}:lock``) so only one beat acts at a time; every action is also
idempotent on its own (the outbox append is keyed by the member), so even two beats
acting at once could not send a reminder twice.
"""

from __future__ import annotations

import logging
import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ContextManager, Iterable, Iterator

from . import keys

log = logging.getLogger(__name__)
RETRY_FAILED_MS = 300_000  # an item whose action failed is tried again 5 minutes later

RELEASE_LUA = r"""
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Removes a member only if its score is still the one read (so a re-schedule made meanwhile survives).
ZREM_IF_LUA = r"""
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


#: An item's version for "the turn its seat owes when it falls due" (its member says ``now``).
NOW = -1
#: the kinds of due work, each a member's first field (the module docstring; ``service.after.STEPS`` does each)
REMINDER, AUTO, TIMEOUT, BOT, EXPIRY = "r", "a", "t", "b", "x"


@dataclass(frozen=True)
class Item:
    """One piece of due work, parsed from its member."""

    kind: str
    game_id: str
    seat: int = 0
    version: int = 0
    n: int = 0

    @property
    def member(self) -> str:
        if self.kind == EXPIRY:
            return f"x|{self.game_id}"
        v = "now" if self.version == NOW else str(self.version)
        if self.kind == REMINDER:
            return f"r|{self.game_id}|{self.seat}|{v}|{self.n}"
        return f"{self.kind}|{self.game_id}|{self.seat}|{v}"

    @classmethod
    def parse(cls, member: str) -> "Item":
        parts = member.split("|")
        if parts[0] == EXPIRY:
            return cls(EXPIRY, parts[1])
        n = int(parts[4]) if len(parts) > 4 else 0
        return cls(parts[0], parts[1], int(parts[2]), NOW if parts[3] == "now" else int(parts[3]), n)


def _shards(game_ids: Iterable[str]) -> dict[str, str]:
    """The due shard of each game (a turn's items are of one game: its shard is worked out once)."""
    return {game_id: keys.due_key(game_id) for game_id in set(game_ids)}


def schedule(client: Any, item: Item, due_ms: int, keep: bool = False) -> None:
    """Put ``item`` in its shard, due at ``due_ms`` (an item already there is moved to that time; with ``keep``
    only later: ``ZADD GT``, so an item put off, to the end of quiet hours say, stays put off)."""
    schedule_many(client, [(item, due_ms)], keep)


def schedule_many(client: Any, timed: list[tuple[Item, int]], keep: bool = False) -> None:
    """:func:`schedule` of each (item, due ms): one ZADD a shard (a turn's reminder and timeout are one)."""
    by_shard: dict[str, dict[str, int]] = {}
    shard = _shards(item.game_id for item, _ in timed)
    for item, due_ms in timed:
        by_shard.setdefault(shard[item.game_id], {})[item.member] = int(due_ms)
    for key, mapping in by_shard.items():
        client.zadd(key, mapping, gt=keep)


def cancel(client: Any, *items: Item) -> None:
    """Take the items out of their shards (one ZREM a shard; ``client`` may be a pipeline)."""
    by_shard: dict[str, list[str]] = {}
    shard = _shards(i.game_id for i in items)
    for i in items:
        by_shard.setdefault(shard[i.game_id], []).append(i.member)
    for key, members in by_shard.items():
        client.zrem(key, *members)


def pending(client: Any, game_id: str | None = None) -> list[tuple[Item, int]]:
    """Every scheduled item (of one game if given), soonest first (tests and the CLI)."""
    out = []
    for key in [keys.due_key(game_id)] if game_id is not None else keys.shards("due"):
        for member, score in client.zrange(key, 0, -1, withscores=True):
            m = member.decode() if isinstance(member, bytes) else member
            item = Item.parse(m)
            if game_id is None or item.game_id == game_id:
                out.append((item, int(score)))
    return sorted(out, key=lambda x: x[1])


class Lock:
    """A Redis lock (SET NX PX with a random token, released only by its holder)."""

    def __init__(self, client: Any, name: str, ttl_ms: int) -> None:
        self.client, self.name, self.ttl_ms = client, name, ttl_ms
        self.token = secrets.token_hex(16)
        self._release = client.register_script(RELEASE_LUA)

    def acquire(self) -> bool:
        return bool(self.client.set(self.name, self.token, nx=True, px=self.ttl_ms))

    def release(self) -> None:
        self._release(keys=[self.name], args=[self.token])


class Scan:
    """The items due by ``now_ms`` (each shard in turn, at most ``limit`` a shard), iterated by the caller under the
    beat lock (:func:`scanning`); :meth:`settle` each with what its action returned: ``None`` (done: the item is
    removed) or a time in ms to try it again then (quiet hours, a pause, a failure). The store calls nothing of the
    caller's: the caller acts on each item itself."""

    def __init__(self, client: Any, now_ms: int, limit: int) -> None:
        self.client, self.now_ms, self.limit = client, now_ms, limit
        self.done = 0  # items settled
        self._zrem_if = client.register_script(ZREM_IF_LUA)
        self._current: tuple[str, str, int] | None = None

    def __iter__(self) -> Iterator[Item]:
        for key in keys.shards("due"):
            for member, score in self.client.zrangebyscore(key, "-inf", self.now_ms, start=0, num=self.limit,
                                                           withscores=True):
                m = member.decode() if isinstance(member, bytes) else member
                self._current = (key, m, int(score))
                try:
                    item = Item.parse(m)
                except (ValueError, IndexError):  # a member of no known form: kept, tried again later
                    log.exception("due item %s failed; retrying later", m)
                    self.settle(self.now_ms + RETRY_FAILED_MS)
                    continue
                yield item

    def settle(self, again: int | None) -> None:
        """The item last yielded: tried again at ``again`` (ms) if later than now, else removed (unless it was
        scheduled again meanwhile)."""
        if self._current is None:
            return
        key, m, score = self._current
        if again is not None and again > self.now_ms:
            self.client.zadd(key, {m: int(again)}, xx=True)
        else:
            self._zrem_if(keys=[key], args=[m, score])
        self._current = None
        self.done += 1


@contextmanager
def scanning(client: Any, now_ms: int, lock_ttl_ms: int = 55_000, limit: int = 1000) -> Iterator[Scan | None]:
    """The :class:`Scan` of the items due by ``now_ms`` under the beat lock (``{beat}:lock``), released after the
    ``with`` block; ``None`` if another beat holds it."""
    lock = Lock(client, keys.BEAT_LOCK, lock_ttl_ms)
    if not lock.acquire():
        yield None
        return
    try:
        yield Scan(client, now_ms, limit)
    finally:
        lock.release()


class DueWork:
    """The due-work gateway the service holds (``svc.store.due``): the functions above on its client, or, with
    ``on=``, queued on a caller's pipeline."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def schedule(self, item: Item, due_ms: int, keep: bool = False, on: Any | None = None) -> None:
        schedule(self.client if on is None else on, item, due_ms, keep)

    def schedule_many(self, timed: list[tuple[Item, int]], keep: bool = False, on: Any | None = None) -> None:
        schedule_many(self.client if on is None else on, timed, keep)

    def cancel(self, *items: Item, on: Any | None = None) -> None:
        cancel(self.client if on is None else on, *items)

    def pending(self, game_id: str | None = None) -> list[tuple[Item, int]]:
        return pending(self.client, game_id)

    def scanning(self, now_ms: int, lock_ttl_ms: int = 55_000, limit: int = 1000) -> ContextManager[Scan | None]:
        return scanning(self.client, now_ms, lock_ttl_ms, limit)

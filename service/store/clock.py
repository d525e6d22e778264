"""The service's clock: real time plus an offset a local run (or the simulator) may advance.

``now()`` is aware UTC. The offset, in seconds, lives in the Redis key
``{clock}:offset`` (:data:`service.store.keys.CLOCK_OFFSET`) so that every process of a local run (web, worker, beat) sees
the same advanced time; :func:`advance` moves it forward. Without a Redis client
the offset is 0. The service follows the offset only with ``SLOWSPADES_SHARED_CLOCK`` or the simulator
(:class:`Clock`); a deployment keeps real time and never reads the key. Tests control real time with time-machine, which this follows.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from .batch import Batch
from .keys import CLOCK_OFFSET

OFFSET_KEY = CLOCK_OFFSET


def offset(client: Any | None = None) -> float:
    """The offset in seconds added to real time (0 without a client or when unset)."""
    if client is None:
        return 0.0
    raw = client.get(OFFSET_KEY)
    if raw is None:
        return 0.0
    return float(raw.decode() if isinstance(raw, bytes) else raw)


def now(client: Any | None = None) -> datetime:
    """The current time, aware UTC, with the offset kept in Redis (if a client is given)."""
    return datetime.now(timezone.utc) + timedelta(seconds=offset(client))


def now_ms(client: Any | None = None) -> int:
    """:func:`now` as milliseconds since the epoch."""
    return int(now(client).timestamp() * 1000)


def queue_offset(pipe: Any) -> None:
    """Queue the read of the offset on a caller's pipeline (its reply goes to :func:`now_ms_with`)."""
    pipe.get(OFFSET_KEY)


def now_ms_with(raw_offset: Any) -> int:
    """:func:`now_ms` with the offset as the caller read it (``GET OFFSET_KEY`` in its own pipeline)."""
    return now_ms(_Read(raw_offset))


class _Read:
    """A stand-in client answering the offset already read."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def get(self, _key: str) -> Any:
        return self.raw


def advance(client: Any, seconds: float) -> float:
    """Move the shared clock forward by ``seconds``; returns the new offset."""
    return float(client.incrbyfloat(OFFSET_KEY, float(seconds)))


def reset(client: Any) -> None:
    """Back to real time."""
    client.delete(OFFSET_KEY)


class Clock:
    """The clock the service holds (``svc.store.clock``): the functions above on its client when it follows the
    shared offset (``shared``: ``SLOWSPADES_SHARED_CLOCK``, or the simulator), else real time, the offset's key
    never read (a deployment: nothing may move its time, and a move reads one key less)."""

    def __init__(self, client: Any, shared: bool = True) -> None:
        self.client = client
        self.shared = shared
        self._reader = client if shared else None  # what the module's functions read the offset with

    def now(self) -> datetime:
        return now(self._reader)

    def now_ms(self) -> int:
        return now_ms(self._reader)

    def add_now_ms(self, batch: Batch) -> None:
        """A part ``now_ms`` of a caller's :class:`~service.store.batch.Batch`: :meth:`now_ms`, its offset read in the
        batch's round trip (no command at all when the clock is not shared)."""
        if self.shared:
            batch.add("now_ms", queue_offset, now_ms_with)
        else:
            batch.add("now_ms", lambda _pipe: None, lambda _replies: now_ms(), many=True)

    def offset(self) -> float:
        return offset(self._reader)

    def advance(self, seconds: float) -> float:
        return advance(self.client, seconds)

    def reset(self) -> None:
        reset(self.client)

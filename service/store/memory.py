"""The game log in process memory: a :class:`~service.store.recorder.SnapshottingRecorder` with the Redis store's
semantics (``APPEND_LUA`` of :mod:`.game_log`, ``LOAD_LUA`` of :mod:`.snapshot`), for the unit tier (``tests/unit/``)
and anything that needs a game log without a Redis.

What it keeps of an owner is what the append's script keeps: the events (as the JSON text the stream holds, so a
read gives back what JSON gives back, never the caller's objects), the consumed message ids and the outbox
numbers each caused, the outbox entries (numbered ``<owner>#<n>``), the meta's fields and the latest snapshot.
Stream ids are made as Redis's ``XADD *`` makes them: ``<ms>-<seq>``, increasing within a stream. One lock
makes each append all or nothing, as the script is on Redis. What it does not keep: the turn, the outbox's
statuses and claims, expiry, archives and heads (``Store.archive``, ``Store.keep_in_play``): none is part of
the recorder protocol. ``tests/contract/`` holds both implementations to the same tests.
"""

from __future__ import annotations

import json
import threading
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from .keys import game_owner
from .recorder import AppendResult, StateRead, StoredEvent, sid_key

if TYPE_CHECKING:
    from .recorder import SnapshottingRecorder


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass
class _Owned:
    """What one owner (``g:<id>`` or ``p:<address>``) holds."""

    stream: list[tuple[str, str, int | None, str | None]] = field(default_factory=list)  # sid, JSON, t, m
    positions: list[tuple[int, int]] = field(default_factory=list)  # each entry's stream id as sid_key gives it
    consumed: dict[str, list[int]] = field(default_factory=dict)  # message id -> the outbox numbers it caused
    outbox: list[str] = field(default_factory=list)  # entry n is outbox[n - 1]
    meta: dict[str, str] = field(default_factory=dict)
    snapshot: tuple[str, str] | None = None  # (the stream id it covers, the state's JSON)
    last: tuple[int, int] = (0, 0)  # the last stream id made (a stream's ids only ever increase)


class MemoryGameLog:
    """Games' logs in a dict, behind one lock (threads of one process may share it)."""

    def __init__(self) -> None:
        self._owners: dict[str, _Owned] = {}
        self._lock = threading.Lock()

    def append(self, owner: str, expected_version: int, events: Iterable[dict[str, Any]] = (), *,
               message_id: str | None = None, outbox: Iterable[dict[str, Any]] = (),
               meta: dict[str, str] | None = None, snapshot: dict[str, Any] | None = None,
               plans_version: str | None = None) -> AppendResult:
        """:meth:`service.store.recorder.GameRecorder.append`: a duplicate first, then the version (and the
        plans' version), then everything at once."""
        encoded = [_compact(e) for e in events]
        entries = [_compact(e) for e in outbox]
        fields = {str(a): str(b) for a, b in (meta or {}).items()}
        state = _compact(snapshot) if snapshot is not None else None
        now = int(time.time() * 1000)
        with self._lock:
            owned = self._owners.setdefault(owner, _Owned())
            version = len(owned.stream)
            if message_id and message_id in owned.consumed:
                return AppendResult("duplicate", version, self._ids(owner, owned.consumed[message_id]))
            stale = expected_version >= 0 and version != expected_version
            if stale or (plans_version is not None and plans_version != owned.meta.get("pv", "0")):
                return AppendResult("conflict", version)
            numbers = list(range(len(owned.outbox) + 1, len(owned.outbox) + len(entries) + 1))
            if message_id:
                owned.consumed[message_id] = numbers
            last = ""
            for i, text in enumerate(encoded):
                last = self._next_id(owned)
                owned.stream.append((last, text, now, message_id) if i == 0 else (last, text, None, None))
                owned.positions.append(owned.last)
            if state is not None and last:
                owned.snapshot = (last, state)
            owned.outbox.extend(entries)
            owned.meta.update(fields)
            return AppendResult("ok", version + len(encoded), self._ids(owner, numbers), last)

    def load(self, game_id: str, after: str | None = None) -> list[StoredEvent]:
        """:meth:`service.store.recorder.GameRecorder.load`."""
        with self._lock:
            stream = self._after(self._owners.get(game_owner(game_id)), after)
        return self._events(stream)

    def version(self, game_id: str) -> int:
        """:meth:`service.store.recorder.GameRecorder.version`."""
        with self._lock:
            owned = self._owners.get(game_owner(game_id))
            return len(owned.stream) if owned else 0

    def state(self, game_id: str, after: str | None = None) -> StateRead:
        """:meth:`service.store.recorder.SnapshottingRecorder.state` (``LOAD_LUA``'s choice)."""
        with self._lock:
            owned = self._owners.get(game_owner(game_id))
            snap = owned.snapshot if owned else None
            if snap is not None and (not after or sid_key(after) < sid_key(snap[0])):
                return StateRead(json.loads(snap[1]), snap[0], self._events(self._after(owned, snap[0])))
            stream = self._after(owned, after)
        return StateRead(None, "", self._events(stream))

    @staticmethod
    def _after(owned: _Owned | None, after: str | None) -> list[tuple[str, str, int | None, str | None]]:
        """The entries of ``owned``'s stream after stream id ``after`` (all for ``None``)."""
        if owned is None:
            return []
        return owned.stream[bisect_right(owned.positions, sid_key(after)):] if after else list(owned.stream)

    @staticmethod
    def _events(stream: list[tuple[str, str, int | None, str | None]]) -> list[StoredEvent]:
        return [StoredEvent(sid, json.loads(text), t, m or None) for sid, text, t, m in stream]

    @staticmethod
    def _next_id(owned: _Owned) -> str:
        """The next stream id, as ``XADD *`` makes it: this ms, or the last id's ms and the next sequence."""
        ms = int(time.time() * 1000)
        owned.last = (ms, 0) if ms > owned.last[0] else (owned.last[0], owned.last[1] + 1)
        return f"{owned.last[0]}-{owned.last[1]}"

    @staticmethod
    def _ids(owner: str, numbers: list[int]) -> list[str]:
        return [f"{owner}#{n}" for n in numbers]


if TYPE_CHECKING:  # a recorder of the game log, as the Redis store is: mypy holds it
    _recorder: type[SnapshottingRecorder] = MemoryGameLog

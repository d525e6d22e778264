"""The game log's recorder protocol: what the move path needs of a game's events, and the records it answers with.

Modelled on pyeventsourcing's ``AggregateRecorder`` (``insert_events`` refused on a conflicting position,
``select_events`` after a position), with the game log's own rules:

- :meth:`GameRecorder.append` writes a batch of events to an owner (``g:<game id>``: :func:`.keys.game_owner`)
  all or nothing, expecting the version the caller decided against (-1: no check). A different version is a
  ``conflict`` and nothing is written. The owner's inbound message id is consumed with it: a message id the
  owner consumed already is a ``duplicate``, answered with the outbox ids its first append wrote and the version
  now, and nothing is written; the duplicate is found before the version is compared (a retried message is
  never a conflict). A conflict leaves the message id unconsumed.
- :meth:`GameRecorder.load` gives a game's events in order, or only those after a stream id (a position): each a
  :class:`StoredEvent`, its stream id (``<ms>-<seq>``, increasing), its event (a JSON object as JSON gives it
  back), and on the first event of each append the envelope (the time in ms and the message id, or ``None``).
- :meth:`GameRecorder.version` is the number of events of a game (0 for a game never appended to).
- :meth:`SnapshottingRecorder.state` reads a game for a reader that folded it up to a stream id: the snapshot
  written by an append (``snapshot=``) and the events after it when the reader is behind it, else the events
  after the reader's own.

Two implementations: :class:`service.store.Store` (Redis, one Lua script an append: :mod:`.game_log`,
:mod:`.snapshot`) and :class:`service.store.memory.MemoryGameLog` (in process, for the unit tier).
``tests/contract/`` runs the same tests of this behaviour on both, on one Redis and on a Redis Cluster.
This module imports nothing that does I/O (an import-linter contract).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol

from ..records import GameMeta


def sid_key(stream_id: str) -> tuple[int, int]:
    """A stream id (``<ms>-<seq>``) as a pair that sorts as the ids do."""
    ms, _, seq = stream_id.partition("-")
    return int(ms), int(seq or 0)


@dataclass(frozen=True)
class StoredEvent:
    """One stream entry: the stream id, the engine event dict, and the envelope (only on a batch's first)."""

    stream_id: str
    event: dict[str, Any]
    time_ms: int | None = None
    message_id: str | None = None


@dataclass(frozen=True)
class AppendResult:
    """What an append did: ``ok``, ``conflict`` (someone appended first) or ``duplicate`` (message consumed)."""

    status: str
    version: int
    outbox_ids: list[str] = field(default_factory=list)
    last_stream_id: str = ""
    turn: tuple[int, str, str] | None = None  # with ``turn=``: (1 if recorded, the turn before: version, seat)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class StateRead:
    """What a game's state read gave (``Store.queue_state``, :meth:`SnapshottingRecorder.state`): ``snapshot``
    (the state JSON, if the reader starts from it) with ``snapshot_sid``, and the events to fold on (after the
    snapshot, or after the reader's own stream id; a finished game: its whole archive, ``whole``)."""

    snapshot: dict[str, Any] | None
    snapshot_sid: str
    events: list[StoredEvent]
    whole: bool = False
    meta: GameMeta | None = None  # the game's meta, read after the events (``queue_state(with_meta=True)``)


class GameRecorder(Protocol):
    """A game log: the append expecting a version, the read after a position, the version (module docstring)."""

    def append(self, owner: str, expected_version: int, events: Iterable[dict[str, Any]] = (), *,
               message_id: str | None = None, outbox: Iterable[dict[str, Any]] = (),
               meta: dict[str, str] | None = None, snapshot: dict[str, Any] | None = None,
               plans_version: str | None = None) -> AppendResult:
        """Append ``events`` (and the ``outbox`` entries, numbered ``<owner>#<n>``; the ``meta`` fields; the
        state after them as the game's ``snapshot``) if the owner's version is ``expected_version`` (and its
        meta's ``pv`` is ``plans_version``, if given), consuming ``message_id``."""
        ...

    def load(self, game_id: str, after: str | None = None) -> list[StoredEvent]:
        """The game's events in order; with ``after``, only those after that stream id."""
        ...

    def version(self, game_id: str) -> int:
        """The number of events of the game."""
        ...


class SnapshottingRecorder(GameRecorder, Protocol):
    """A game log that also keeps each game's latest snapshot, written by an append."""

    def state(self, game_id: str, after: str | None = None) -> StateRead:
        """The snapshot and the events after it if the reader (folded up to ``after``) is behind the snapshot,
        else the events after ``after`` (all of them for ``None`` and no snapshot)."""
        ...

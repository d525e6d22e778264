"""What the after-phase of a change asks of the store (a mixin of :class:`service.store.Store`), in few calls.

The after-phase (:mod:`service.after`, :mod:`service.lifecycle.hooks`) decides what must be written and gathers it
as **write intents**, plain data: :class:`MarkInbound` (the message handled), :class:`SettleLocal` (local outbox
entries settled by the claim that holds them), :class:`Schedule` and :class:`Cancel` (due work: a new turn's
reminder and timeout, the computer's move), :class:`NoteLast` (the game a player was last prompted about).
:meth:`AfterPhase.write` executes them, in their order, in one round trip.

The local delivery (:func:`service.delivery.deliver_local_many`) asks two things: :meth:`AfterPhase.claim_local`
claims the entries and reads, in the same round trip, the marks of the likely recipients (STOP, and whether they
play games between people: the daily cap's question) and, on demand, the entries' text for the notes of their
games; :meth:`AfterPhase.player_marks` reads the marks of any other recipient. Who may be sent to stays the
service's decision: the store reads and writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Union

from . import due
from .base import Client
from .codec import text
from .keys import owner_keys, player_life, split_outbox_id
from .outbox import new_claim_token


@dataclass(frozen=True)
class MarkInbound:
    """The inbound message ``message_id`` of ``address`` given ``status`` (``done``: its record dropped)."""

    address: str
    message_id: str
    status: str


@dataclass(frozen=True)
class SettleLocal:
    """Outbox entries settled by the attempt holding their claim ``token`` (others' are left to them): ``sent``
    (the entries, with their ``id``) into the local outbox, ``refused`` (id, error) failed."""

    sent: tuple[dict[str, Any], ...]
    refused: tuple[tuple[str, str], ...]
    token: str


@dataclass(frozen=True)
class Schedule:
    """Due work: each (item, due ms) in its shard; ``keep``: only moved later (``ZADD GT``)."""

    timed: tuple[tuple[due.Item, int], ...]
    keep: bool = False


@dataclass(frozen=True)
class Cancel:
    """Due work taken out of its shards."""

    items: tuple[due.Item, ...]


@dataclass(frozen=True)
class NoteLast:
    """``game_id`` is the game ``address`` was last prompted about (their reply without ``#N`` goes to it)."""

    address: str
    game_id: str


Write = Union[MarkInbound, SettleLocal, Schedule, Cancel, NoteLast]


@dataclass(frozen=True)
class Marks:
    """What the local delivery reads of a recipient's record: whether they sent STOP, and their ``people`` mark
    (``1``: they play a game between people; ``0``: not; None: not looked for yet, see
    :meth:`service.store.limits.LimitCounters.in_people_games`)."""

    stopped: bool
    people: str | None


@dataclass
class LocalClaim:
    """:meth:`AfterPhase.claim_local`'s answer: the attempt's claim token (its settle's), the entries it claimed (in
    order), the recipients' marks read, and (with ``texts``) the entries as stored, claimed or not, by id (None:
    gone)."""

    token: str
    entries: list[dict[str, Any]]
    marks: dict[str, Marks]
    texts: dict[str, dict[str, Any] | None] = field(default_factory=dict)


class AfterPhase:
    """The after-phase's calls on :class:`service.store.Store` (see the module docstring), made of its other
    mixins' queued commands."""

    r: Client
    queue_settle_local: Callable[[Any, list[dict[str, Any]], list[tuple[str, str]], str], None]  # .outbox
    queue_claim_send_many: Callable[[Any, list[str], int, str], Callable[[list[Any]], list[dict[str, Any] | None]]]
    queue_mark_inbound: Callable[[Any, str, str, str], None]  # .inbox

    def write(self, writes: Iterable[Write]) -> None:
        """Execute ``writes`` in their order, in one round trip (none when there is nothing to write)."""
        pipe = self.r.pipeline(transaction=False)
        for w in writes:
            if isinstance(w, SettleLocal):
                self.queue_settle_local(pipe, list(w.sent), list(w.refused), w.token)
            elif isinstance(w, MarkInbound):
                self.queue_mark_inbound(pipe, w.address, w.message_id, w.status)
            elif isinstance(w, Schedule):
                due.schedule_many(pipe, list(w.timed), w.keep)
            elif isinstance(w, Cancel):
                due.cancel(pipe, *w.items)
            else:
                pipe.hset(player_life(w.address), mapping={"last": w.game_id})
        if len(pipe):
            pipe.execute()

    def claim_local(self, outbox_ids: list[str], lease_s: int, marks_of: list[str], token: str = "",
                    texts: list[str] | None = None) -> LocalClaim:
        """Claim ``outbox_ids`` for the attempt ``token`` (a new one if empty: :attr:`LocalClaim.token`) and read
        the :class:`Marks` of ``marks_of`` (and with ``texts``, those entries as stored), in one round trip."""
        token = token or new_claim_token()
        pipe = self.r.pipeline(transaction=False)
        read_claimed = self.queue_claim_send_many(pipe, outbox_ids, lease_s, token)
        for address in marks_of:
            pipe.hmget(player_life(address), "stopped", "people")
        _queue_texts(pipe, texts or [])
        replies = pipe.execute() if len(pipe) else []
        at, end = len(outbox_ids), len(outbox_ids) + len(marks_of)
        entries = [e for e in read_claimed(replies[:at]) if e is not None]
        return LocalClaim(token, entries, self._marks(marks_of, replies[at:end]), _texts(texts or [], replies[end:]))

    def outbox_texts(self, outbox_ids: list[str]) -> dict[str, dict[str, Any] | None]:
        """The entries ``outbox_ids`` as stored (without their status; None: gone), in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        _queue_texts(pipe, outbox_ids)
        return _texts(outbox_ids, pipe.execute() if outbox_ids else [])

    def player_marks(self, addresses: list[str]) -> dict[str, Marks]:
        """The :class:`Marks` of ``addresses``, in one round trip (none for no address)."""
        pipe = self.r.pipeline(transaction=False)
        for address in addresses:
            pipe.hmget(player_life(address), "stopped", "people")
        return self._marks(addresses, pipe.execute() if addresses else [])

    @staticmethod
    def _marks(addresses: list[str], replies: list[Any]) -> dict[str, Marks]:
        """The marks of ``addresses`` from their ``HMGET stopped people`` replies."""
        return {a: Marks(stopped in (b"1", "1"), None if people is None else text(people))
                for a, (stopped, people) in zip(addresses, replies)}


def _queue_texts(pipe: Any, outbox_ids: list[str]) -> None:
    for oid in outbox_ids:
        owner, n = split_outbox_id(oid)
        pipe.hget(owner_keys(owner)["outbox"], n)


def _texts(outbox_ids: list[str], replies: list[Any]) -> dict[str, dict[str, Any] | None]:
    return {oid: None if raw is None else dict(json.loads(text(raw))) for oid, raw in zip(outbox_ids, replies)}

"""The read of a move, in one call (a mixin of :class:`service.store.Store`): :meth:`MoveReads.read_move` gives one
flat, typed :class:`MoveRecords` of what handling an inbound message and deciding a move in a game read first.

Asked with a message (``sender``'s ``message_id``): its record (``None``: handled already, or unknown), the outbox
numbers it caused if it was handled, the home ``sender`` acts for (``LINK``, :mod:`.links`) and the receipts' mark
on it (:mod:`.reach`), and the home's record (their life fields too). Asked with a game: its meta (with its life
fields: the turn, pauses, page marks, :mod:`.presence`), the records of the players its meta seats, its state as a
reader that folded it up to stream id ``after`` needs it (``Store.queue_state``: the snapshot, if the reader
starts from it, and the events to fold) and the clock (``Store.clock``).

One round trip in the common case, on the caller's guesses (its seat cache's): ``home``, the home ``sender`` acted
for when this process saw it last, whose record comes with the message; ``seats``, the addresses the game seated
when this process saw it, whose records come with the game (and hold the home's record and mark, when the home
sits there). What the guesses missed is read here, one round trip more each: the players' records when the meta
seats others, the home's record or mark when the seats changed. When ``sender`` acts for another home than
``home``, :attr:`MoveRecords.actor` says which: the caller asks again as that home (its own guesses differ).

Nothing here folds a game or decides who moves: the caller (``service.games.apply``) folds the events on the game
its process holds and reads the meta.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from redis.client import Pipeline

from ..addresses import is_bot
from ..records import GameMeta
from .batch import Batch
from .clock import Clock
from .codec import text_hashes
from .inbox import StoredMessage
from .keys import player_owner
from .links import Links
from .presence import presence_from
from .recorder import StateRead, StoredEvent


@dataclass(frozen=True)
class MoveRecords:
    """What :meth:`MoveReads.read_move` read (see the module docstring); a part not asked for is left empty."""

    # the message (asked with ``message_id``)
    actor: str = ""  # the home the message's sender acts for (the sender itself if it names none)
    msg: dict[str, str] | None = None  # the message's record; None: handled already, or unknown
    done: list[str] | None = None  # the outbox numbers the message caused if it was handled, else None
    record: dict[str, str] | None = None  # the home's record (their life fields too)
    unreachable: bool = False  # the sender was marked unreachable by a delivery receipt
    # the game (asked with ``game_id``)
    game_id: str = ""
    meta: GameMeta = field(default_factory=GameMeta)  # its meta, with its life fields
    players: dict[str, dict[str, str]] = field(default_factory=dict)  # address -> record, of the people it seats
    page: dict[int, int] = field(default_factory=dict)  # seat -> ms until which it is on its page (.presence)
    snapshot: dict[str, Any] | None = None  # the state to start from (the reader's own if None)
    snapshot_sid: str = ""  # the stream id the snapshot covers
    events: list[StoredEvent] = field(default_factory=list)  # to fold on: after the snapshot, or after ``after``
    now_ms: int = 0  # the clock (``Store.clock``), read with the game


class _Parts(Protocol):
    """What :class:`MoveReads` uses of the :class:`~service.store.Store` it is a part of."""

    clock: Clock

    def pipeline(self) -> Pipeline: ...

    def queue_message(self, pipe: Pipeline, sender: str, message_id: str, owner: str, with_sender: bool,
                      with_record: bool) -> Callable[[list[Any]], StoredMessage]: ...

    def queue_state(self, pipe: Pipeline, game_id: str, after: str | None = None,
                    with_meta: bool = False) -> Callable[[list[Any]], StateRead]: ...

    def queue_player(self, pipe: Pipeline, address: str) -> None: ...

    def player_records(self, addresses: Sequence[str]) -> dict[str, dict[str, str]]: ...


class MoveReads:
    """:meth:`read_move` and :meth:`player_records`."""

    def read_move(self: _Parts, game_id: str = "", *, seats: Sequence[str] | None = None, after: str | None = None,
                  sender: str = "", message_id: str = "", home: str = "") -> MoveRecords:
        """:class:`MoveRecords` of the game ``game_id`` and/or ``sender``'s message ``message_id`` read as the home
        ``home``'s (see the module docstring). ``seats``: the addresses the game seated when this process saw it
        (None: not known); ``after``: the last stream id of the game's state the caller holds (None: none)."""
        people = [a for a in seats or () if a and not is_bot(a)]
        seated = bool(message_id) and home in people
        batch = Batch(self.pipeline())
        if message_id:
            from_game = seated and sender == home  # the game's read takes the sender's whole record: its home is there
            batch.add_read("message", lambda p: self.queue_message(p, sender, message_id, player_owner(home),
                                                                   with_sender=not from_game, with_record=not seated))
        if game_id:
            with batch.part("players") as p:
                for address in people:
                    self.queue_player(p, address)
            batch.add_read("game", lambda p: self.queue_state(p, game_id, after, with_meta=True))
            self.clock.add_now_ms(batch)
        got = batch.run()
        game: dict[str, Any] = {}
        players: dict[str, dict[str, str]] = {}
        if game_id:
            state: StateRead = got["game"]
            meta = state.meta if state.meta is not None else GameMeta()
            named = list(meta.seats)
            if seats is not None and list(seats) == named:
                players = dict(zip(people, text_hashes(got["players"])))
            else:  # a game this process had not seen, or whose seats changed since: their records apart
                players = self.player_records(named)
            game = dict(game_id=game_id, meta=meta, players=players, page=presence_from(meta),
                        snapshot=state.snapshot, snapshot_sid=state.snapshot_sid, events=state.events,
                        now_ms=got["now_ms"])
        if not message_id:
            return MoveRecords(**game)
        stored: StoredMessage = got["message"]
        mine = players.get(home) if seated else None
        if stored.home_mark is not None:
            actor, mark = stored.home_mark
        elif mine is not None:
            actor, mark = Links.sender_from(mine)
        else:  # the seats changed since this process saw them: read it apart
            pipe = self.pipeline()
            Links.queue_sender(pipe, sender)
            actor, mark = Links.sender_of_reply(pipe.execute()[0])
        actor = actor or sender
        record = mine if mine is not None else stored.record
        if stored.msg is not None and record is None:  # to come with the game, whose seats changed: read here
            record = self.player_records([actor]).get(actor, {})
        return MoveRecords(actor, stored.msg, stored.done, record, bool(mark), **game)

    def player_records(self: _Parts, addresses: Sequence[str]) -> dict[str, dict[str, str]]:
        """The records of the people among ``addresses`` (not the computer, not an empty seat), by address: one
        round trip (none for nobody)."""
        people = list(dict.fromkeys(a for a in addresses if a and not is_bot(a)))
        if not people:
            return {}
        pipe = self.pipeline()
        for address in people:
            self.queue_player(pipe, address)
        return dict(zip(people, text_hashes(pipe.execute())))


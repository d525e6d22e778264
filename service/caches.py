"""Per-process caches of games: :class:`GameCache` (folded states, with their newest events, never changed once
kept: a move folds on its own copy) and :class:`SeatCache` (who sits in which game). One of each belongs to a :class:`service.bootstrap.Dependencies`
(``svc.games``, ``svc.seats``); nothing here is a module global."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from spades.events import Event, from_dict
from spades.game import Game
from spades.snapshot import SnapshotFormatError
from spades.snapshot import load as load_snapshot

from .addresses import is_bot
from .records import GameMeta
from .store import Pipeline, Store, StoredEvent

RECENT = 12  # the newest events kept with a cached game (the news of a seat a little behind, without reading them)


@dataclass
class Taken:
    """A game as read from the cache and the store: its state, the last stream id folded in, and its newest events
    (oldest first, those of versions ``version - len(recent)`` .. ``version - 1`` as read)."""

    game: Game
    sid: str
    recent: tuple[Event, ...]
    version: int  # ``game.version`` when read (the game is folded on afterwards)
    meta: GameMeta | None = None  # the game's meta, read with it (``read_queued(with_meta=True)``)

    def recent_after(self, appended: list[Event] | tuple[Event, ...]) -> tuple[Event, ...]:
        """The newest events once ``appended`` (folded on since reading it) are stored too."""
        if self.version + len(appended) != self.game.version:
            return ()
        return (*self.recent, *appended)[-RECENT:]


def private_copy(game: Game) -> Game:
    """A copy of ``game`` that folding on leaves ``game`` as it is: its lists (and the lists in them) copied, the
    rest shared (cards, events, tuples: immutable). A few microseconds, against a deep copy's hundreds."""
    out = object.__new__(Game)
    for name, value in vars(game).items():
        if type(value) is list:
            value = [list(x) if type(x) is list else x for x in value]
        elif type(value) is dict:
            value = dict(value)
        setattr(out, name, value)
    return out


class GameCache:
    """Folded games kept per process, keyed by game id, with the last stream id folded in and the
    game's newest events.

    A game in the cache is never changed: a reader folds the events that followed it on a copy
    (:meth:`fold`; with ``private``, a copy in any case, for a move to decide on), and a move's successful
    append keeps its game as the newest (:meth:`keep`). Nothing is taken out, so nothing is put back: a game
    read and not used, or decided on and not appended (a conflict), leaves the cache as it was.
    """

    def __init__(self, store: Store, size: int = 2000) -> None:
        self._store = store
        self._d: OrderedDict[str, Taken] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def held(self, game_id: str) -> Taken | None:
        """The game as this process holds it (never to be changed: :meth:`fold` copies it), or None."""
        with self._lock:
            return self._d.get(game_id)

    def fold(self, game_id: str, held: Taken | None, snapshot: dict[str, Any] | None, snapshot_sid: str,
             stored: list[StoredEvent], meta: GameMeta | None = None, private: bool = False) -> Taken:
        """The game ``held`` (:meth:`held`, read before the store's read) with what the store read after it folded
        on: a snapshot to start from instead (``snapshot``, covering ``snapshot_sid``), the events to fold. A
        snapshot this engine did not write (``spades.snapshot.SnapshotFormatError``) is ignored and the whole log
        folded (one more read). ``private``: the game handed out is the caller's own to fold on."""
        game, sid, recent = (held.game, held.sid, held.recent) if held is not None else (Game(), "", ())
        fresh = held is None
        if snapshot is not None:
            try:
                game, sid, recent, fresh = load_snapshot(snapshot), snapshot_sid, (), True
            except SnapshotFormatError:
                game, sid, recent, fresh = Game(), "", (), True
                stored = self._store.load(game_id)
        if not fresh and (stored or private):  # the cache's game stays as it is
            game = private_copy(game)
        new = []
        for se in stored:
            event = from_dict(se.event)
            game.apply(event)
            new.append(event)
            sid = se.stream_id
        return Taken(game, sid, (*recent, *new)[-RECENT:], game.version, meta)

    def read_queued(self, game_id: str, pipe: Pipeline, with_meta: bool = False) -> Callable[[list[Any]], Taken]:
        """The game's state read with a caller's pipeline (``Store.queue_state``: the events after those this
        process holds, or its snapshot and the events after it; call the result with the replies of what it queued)
        and folded (:meth:`fold`); ``with_meta``: the game's meta read with it, in :attr:`Taken.meta`. Not to be
        folded on (:meth:`keep` it, or drop it)."""
        held = self.held(game_id)
        finish_read = self._store.queue_state(pipe, game_id, held.sid if held is not None else None, with_meta)

        def finish(replies: list[Any]) -> Taken:
            read = finish_read(replies)
            return self.fold(game_id, held, read.snapshot, read.snapshot_sid, read.events, read.meta)

        return finish

    def keep(self, game_id: str, taken: Taken, sid: str | None = None,
             appended: list[Event] | tuple[Event, ...] = ()) -> None:
        """Keep a game read (``sid``, ``appended``: the stream id and events the caller appended since reading it,
        folded on it): the newest this process holds. It is not to be changed afterwards."""
        entry = Taken(taken.game, taken.sid if sid is None else sid, taken.recent_after(appended), taken.game.version)
        with self._lock:
            self._d[game_id] = entry
            self._d.move_to_end(game_id)
            while len(self._d) > self.size:
                self._d.popitem(last=False)

    def keep_new(self, game_id: str, game: Game, sid: str) -> None:
        """Keep a game just created (its newest events unknown)."""
        self.keep(game_id, Taken(game, sid, (), game.version))

    def load(self, game_id: str) -> Game:
        """The game's current state (read and kept; not to be changed)."""
        pipe = self._store.pipeline()
        taken = self.read_queued(game_id, pipe)(pipe.execute())
        self.keep(game_id, taken)
        return taken.game

    def clear(self) -> None:
        with self._lock:
            self._d.clear()


class SeatCache:
    """The addresses of a game's seats per process (they never change once the game is under way), so the
    players' records can be read in the same round trip as the game's meta; checked against the meta read."""

    def __init__(self, size: int = 20000) -> None:
        self._d: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self._by_address: OrderedDict[str, str] = OrderedDict()  # the game each address was last seen in
        self._homes: OrderedDict[str, str] = OrderedDict()  # a linked address -> the home it was last seen acting for
        self._lock = threading.Lock()
        self.size = size

    def get(self, game_id: str) -> tuple[str, str] | None:
        with self._lock:
            return self._d.get(game_id)

    def game_of(self, address: str) -> str | None:
        """A guess at the player's last prompted game: the game this process last saw them in."""
        with self._lock:
            return self._by_address.get(address)

    def home_of(self, address: str) -> str:
        """A guess at the player ``address`` acts for (its home if linked, :mod:`service.store.links`): the one this
        process last saw, else ``address`` itself. Only a guess: the inbound read checks it in the same round trip."""
        with self._lock:
            return self._homes.get(address, address)

    def note_home(self, address: str, home: str) -> None:
        """``address`` was seen acting for ``home`` (itself: not linked)."""
        with self._lock:
            if home == address:
                self._homes.pop(address, None)
                return
            self._homes[address] = home
            self._homes.move_to_end(address)
            while len(self._homes) > self.size:
                self._homes.popitem(last=False)

    def note(self, game_id: str, meta: GameMeta) -> None:
        if meta.status not in ("active", "over"):
            return
        seats = meta.seats
        with self._lock:
            self._d[game_id] = seats
            while len(self._d) > self.size:
                self._d.popitem(last=False)
            for address in seats:
                if address and not is_bot(address):
                    self._by_address[address] = game_id
                    self._by_address.move_to_end(address)
            while len(self._by_address) > 2 * self.size:
                self._by_address.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._by_address.clear()
            self._homes.clear()

"""Per-process caches of games: :class:`GameCache` (folded states, with their newest events) and
:class:`SeatCache` (who sits in which game). One of each belongs to a :class:`service.bootstrap.Dependencies`
(``svc.games``, ``svc.seats``); nothing here is a module global."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from spades import snapshot
from spades.events import Event, from_dict
from spades.game import Game

from .addresses import is_bot
from .records import GameMeta
from .store import Pipeline, Store

STATE_READS = 2  # the replies take_queued queues, at most (Store.queue_state)
RECENT = 12  # the newest events kept with a cached game (the news of a seat a little behind, without reading them)


@dataclass
class Taken:
    """A game taken out of the cache: its state, the last stream id folded in, and its newest events
    (oldest first, those of versions ``version - len(recent)`` .. ``version - 1`` as taken)."""

    game: Game
    sid: str
    recent: tuple[Event, ...]
    version: int  # ``game.version`` when taken (the game is folded on afterwards)
    meta: GameMeta | None = None  # the game's meta, read with it (``take_queued(with_meta=True)``)

    def recent_after(self, appended: list[Event] | tuple[Event, ...]) -> tuple[Event, ...]:
        """The newest events once ``appended`` (folded on since taking it) are stored too."""
        if self.version + len(appended) != self.game.version:
            return ()
        return (*self.recent, *appended)[-RECENT:]


class GameCache:
    """Folded games kept per process, keyed by game id, with the last stream id folded in and the
    game's newest events.

    An entry is taken out while in use (so two threads never share a ``Game``) and put back
    after a successful append; on conflict it is simply dropped.
    """

    def __init__(self, store: Store, size: int = 2000) -> None:
        self._store = store
        self._d: OrderedDict[str, tuple[Game, str, tuple[Event, ...]]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, game_id: str) -> Taken:
        pipe = self._store.pipeline()
        finish = self.take_queued(game_id, pipe)
        return finish(pipe.execute())

    def take_queued(self, game_id: str, pipe: Pipeline, with_meta: bool = False) -> Callable[[list[Any]], Taken]:
        """:meth:`take` with its read queued on ``pipe`` (:data:`STATE_READS` replies: call the result with them);
        ``with_meta``: the game's meta read with it, in :attr:`Taken.meta` (``Store.queue_state``).

        A game this process does not hold (or holds from before the game's snapshot) starts from the
        snapshot and folds only the events after it (``Store.queue_state``); a snapshot this engine did not
        write (``spades.snapshot.SnapshotFormatError``) is ignored and the whole log folded (one more read)."""
        with self._lock:
            entry = self._d.pop(game_id, None)
        game, sid, recent = entry if entry else (Game(), "", ())
        finish_read = self._store.queue_state(pipe, game_id, sid or None, with_meta)

        def finish(replies: list[Any]) -> Taken:
            nonlocal game, sid, recent
            read = finish_read(replies)
            stored = read.events
            if read.snapshot is not None:
                try:
                    game, sid, recent = snapshot.load(read.snapshot), read.snapshot_sid, ()
                except snapshot.SnapshotFormatError:
                    game, sid, recent = Game(), "", ()
                    stored = self._store.load(game_id)
            last = sid
            new = []
            for se in stored:
                event = from_dict(se.event)
                game.apply(event)
                new.append(event)
                last = se.stream_id
            return Taken(game, last, (*recent, *new)[-RECENT:], game.version, read.meta)

        return finish

    def put(self, game_id: str, taken: Taken, sid: str | None = None,
            appended: list[Event] | tuple[Event, ...] = ()) -> None:
        """Put a game back (``sid``, ``appended``: the stream id and events the caller appended since taking it)."""
        with self._lock:
            self._d[game_id] = (taken.game, taken.sid if sid is None else sid, taken.recent_after(appended))
            self._d.move_to_end(game_id)
            while len(self._d) > self.size:
                self._d.popitem(last=False)

    def put_new(self, game_id: str, game: Game, sid: str) -> None:
        """Keep a game just created (its newest events unknown)."""
        self.put(game_id, Taken(game, sid, (), game.version))

    def load(self, game_id: str) -> Game:
        """The game's current state (taken and put back)."""
        taken = self.take(game_id)
        self.put(game_id, taken)
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
        if meta.get("status") not in ("active", "over"):
            return
        seats = (meta.get("seat0", ""), meta.get("seat1", ""))
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

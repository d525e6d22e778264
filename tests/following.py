"""Following a game in a test as it is played: the fold of its stored events, read as they come.

Folding a game's whole log again at every move made each long game take the square of its length
(a game to 1000 took minutes): :class:`Following` keeps the state it folded and reads only the events
after the last one it read (``Store.load(after=...)``), and nothing at all while the version is the same.
"""

from __future__ import annotations

from typing import Any

from spades.events import from_dict
from spades.game import Game, fold


class Following:
    """``Following(store, game_id)()``: the game's state now (one object, updated in place at each call)."""

    def __init__(self, store: Any, game_id: str) -> None:
        self.store = store
        self.game_id = game_id
        self.game = Game()
        self.last: str | None = None  # the stream id of the last event folded

    def __call__(self) -> Game:
        if self.last is not None and self.store.version(self.game_id) == self.game.version:
            return self.game
        new = self.store.load(self.game_id, after=self.last)
        fold((from_dict(e.event) for e in new), self.game)
        if new:
            self.last = new[-1].stream_id
        return self.game

    def full(self) -> Game:
        """The fold of the whole log, read again; asserted equal to the state followed."""
        whole = fold(from_dict(e.event) for e in self.store.load(self.game_id))
        assert vars(whole) == vars(self()), "the game followed event by event differs from its full fold"
        return whole

"""Where a game's randomness comes from: shuffles, exchange draws and the first player.

By default every draw uses :class:`secrets.SystemRandom` (RULES.md D10); a seed
makes a game reproducible for tests and the arena. Whatever the dealer draws is
recorded in the events, so replaying a log never draws a random number
(:class:`RecordedDealer` hands back what the log recorded, and checks it).
"""

from __future__ import annotations

import random
import secrets
from typing import Sequence

from .cards import DECK, Card


class Dealer:
    """Draws every random thing a game needs. ``Dealer()`` is cryptographically secure."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng: random.Random = secrets.SystemRandom() if seed is None else random.Random(seed)

    def first_player(self) -> int:
        """The first player of hand 1 (D1)."""
        return self._rng.randrange(2)

    def shuffled_deck(self) -> tuple[Card, ...]:
        """A shuffled deck, top card first (section 3)."""
        cards = list(DECK)
        self._rng.shuffle(cards)
        return tuple(cards)

    def draw_from(self, pile: Sequence[Card], count: int) -> tuple[Card, ...]:
        """``count`` distinct cards drawn at random from ``pile`` (the double nil exchange, D5)."""
        return tuple(self._rng.sample(list(pile), count))


class DuplicateDealer(Dealer):
    """A seeded dealer whose ``k``-th deck depends only on the seed and ``k``.

    The duplicate arena plays one deal twice with the seats swapped. With :class:`Dealer` the
    decks after the first hand would depend on how many random numbers the exchanges (D5) drew
    before them; here the first player, every deck and every exchange draw come from separate
    streams, so hand ``k`` of both plays starts from the same deck whatever happened before it.
    """

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self._seed = seed
        self._decks = 0
        self._exchange_rng = random.Random(f"{seed}-exchange")

    def shuffled_deck(self) -> tuple[Card, ...]:
        self._decks += 1
        cards = list(DECK)
        random.Random(f"{self._seed}-deck-{self._decks}").shuffle(cards)
        return tuple(cards)

    def draw_from(self, pile: Sequence[Card], count: int) -> tuple[Card, ...]:
        return tuple(self._exchange_rng.sample(list(pile), count))


class ReplayMismatch(ValueError):
    """A recorded random draw that the rules could not have produced."""


class RecordedDealer(Dealer):
    """Hands back the draws a log recorded, after checking each is one the rules allow."""

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.first: int | None = None
        self.deck: tuple[Card, ...] | None = None
        self.received: tuple[Card, ...] | None = None

    def first_player(self) -> int:
        if self.first not in (0, 1):
            raise ReplayMismatch("no recorded first player")
        return self.first

    def shuffled_deck(self) -> tuple[Card, ...]:
        deck = self.deck
        if deck is None or len(deck) != 52 or set(deck) != set(DECK):
            raise ReplayMismatch("the recorded deck is not a permutation of the 52 cards")
        return deck

    def draw_from(self, pile: Sequence[Card], count: int) -> tuple[Card, ...]:
        got = self.received
        if got is None or len(got) != count or len(set(got)) != count or not set(got) <= set(pile):
            raise ReplayMismatch("the recorded exchange draw is not from the discard pile")
        return got

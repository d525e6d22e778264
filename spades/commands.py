"""Commands: what a player asks to do, as plain immutable data.

A command is decided against the current game (``spades.game.decide``), which
either returns the events it causes or raises a :class:`spades.errors.RuleError`.
Seats are 0 and 1; who sits where is the service's business, not the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .cards import Card


@dataclass(frozen=True, slots=True)
class DeclareDoubleNil:
    """Bid double nil at one's first draw decision of the hand, before seeing its card (section 4, D3)."""

    seat: int


@dataclass(frozen=True, slots=True)
class DeclineDoubleNil:
    """Pass on double nil at one's first draw decision, and see the card on top of the draw pile (D3)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the card on top of the draw pile; the next card is discarded unseen by the opponent (section 3)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard the card on top of the draw pile and keep the next one (section 3)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """A double nil bidder throws away 0 to 3 cards for random ones from the discards (section 4, D5)."""

    seat: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid a number of tricks, 0 (nil) to 13 (section 5)."""

    seat: int
    tricks: int


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card to the current trick (section 6)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The player at ``seat`` loses the game at once: they resigned, or a timeout was claimed against them.

    Allowed at any time while the game is on, whoever is to move.
    """

    seat: int
    reason: str = "resigned"


Command = Union[DeclareDoubleNil, DeclineDoubleNil, Keep, Discard, Exchange, Bid, Play, Forfeit]
FORFEIT_REASONS = ("resigned", "timeout")

"""Cards: suits, ranks, the 52-card deck, and parsing what a player types into a card.

Each card has exactly one canonical code: rank then suit letter (``AS``, ``10H``,
``QD``, ``2C``). :func:`parse_card` is forgiving about what it accepts (``T`` or
``10``, any case, spaces, the symbols ♠♥♦♣ before or after the rank) and raises
:class:`CardSyntaxError` for text that is not a card at all, which is a
different thing from a card that is illegal to play now (see ``spades.errors``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from operator import attrgetter
from types import MappingProxyType
from typing import Callable, Iterable, Mapping

from .base_errors import CardSyntaxError


class Suit(enum.Enum):
    """A suit, identified by its letter. Spades are trumps."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]

    @property
    def word(self) -> str:
        """The English plural name: ``spades``, ``hearts``..."""
        return self.name.lower()


_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SYMBOL_TO_SUIT = {sym: suit for suit, sym in _SYMBOLS.items()}
_SYMBOL_TO_SUIT.update({"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS})

#: Suits in the order a hand is shown: spades first, then the red and black suits alternating.
SUIT_ORDER: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)

_SUIT_INDEX = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.CLUBS: 3}
_DISPLAY_INDEX = {suit: i for i, suit in enumerate(SUIT_ORDER)}

RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_FROM_TEXT = {str(n): n for n in range(2, 11)}
_RANK_FROM_TEXT.update({"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14})


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. ``rank`` runs from 2 to 14 (the ace is high in every suit).

    There are exactly 52 instances: ``Card(14, Suit.SPADES)`` returns the shared ace of
    spades from :data:`DECK`, so cards compare and hash by identity (fast, and equal
    cards are always the same object; copies and pickles come back as the shared card).
    """

    rank: int
    suit: Suit
    #: The canonical code (``AS``, ``10H``), made once for each of the 52 (a field: reading it calls nothing).
    code: str = field(init=False, repr=False, compare=False)
    #: The rank as shown (``A``, ``10``, ``7``).
    rank_code: str = field(init=False, repr=False, compare=False)
    #: A dense number 0..51, stable across runs.
    index: int = field(init=False, repr=False, compare=False)
    _order: int = field(init=False, repr=False, compare=False)

    def __new__(cls, rank: int, suit: Suit) -> "Card":
        if _CANON:
            if type(rank) is not int or type(suit) is not Suit or not 2 <= rank <= 14:
                raise CardSyntaxError(f"{rank!r}{suit!r}")
            return _CANON[_SUIT_INDEX[suit] * 13 + rank - 2]
        return object.__new__(cls)

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, int) and 2 <= self.rank <= 14 and isinstance(self.suit, Suit)):
            raise CardSyntaxError(f"{self.rank!r}{self.suit!r}")
        object.__setattr__(self, "index", _SUIT_INDEX[self.suit] * 13 + self.rank - 2)
        object.__setattr__(self, "_order", _DISPLAY_INDEX[self.suit] * 13 + 14 - self.rank)
        object.__setattr__(self, "rank_code", RANK_NAMES.get(self.rank, str(self.rank)))
        object.__setattr__(self, "code", self.rank_code + self.suit.value)

    def __reduce__(self) -> tuple[object, tuple[int, Suit]]:
        return card_of, (self.rank, self.suit)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __lt__(self, other: "Card") -> bool:  # display order: suit order, then rank
        return sort_key(self) < sort_key(other)

    @classmethod
    def from_code(cls, code: str) -> "Card":
        """The card with this canonical code (strict; use :func:`parse_card` for user text)."""
        try:
            return _BY_CODE[code]
        except KeyError:
            raise CardSyntaxError(code) from None


#: The 52 cards, each a single shared instance.
_CANON: list[Card] = []
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in range(2, 15))
_CANON.extend(DECK)
#: Each card by its canonical code (``AS``, ``10H``): what stored events are read with, a lookup and no call.
BY_CODE: Mapping[str, Card] = MappingProxyType({card.code: card for card in DECK})
_BY_CODE = {**BY_CODE, **{card.code.replace("10", "T"): card for card in DECK if card.rank == 10}}


def card_of(rank: int, suit: Suit) -> Card:
    """The shared instance of the card with this rank and suit."""
    return DECK[_SUIT_INDEX[suit] * 13 + rank - 2]


#: A card's place in a hand as shown: grouped by suit (spades, hearts, clubs, diamonds), high cards first
#: (an attribute getter: sorting calls no Python function per card).
sort_key: Callable[[Card], int] = attrgetter("_order")


def sorted_hand(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=sort_key)


def parse_card(text: str, suit_letters: dict[str, Suit] | None = None) -> Card:
    """Read one card from what a player typed.

    Accepts ``QH``, ``qh``, `` 10s ``, ``TS``, ``♥Q``, ``Q♥``, ``H Q``.
    ``suit_letters`` adds a language's own suit initials (``{"K": Suit.HEARTS}``);
    English letters are always accepted. Raises :class:`CardSyntaxError` if the
    text is not a card.
    """
    raw = text
    s = "".join(text.split()).upper()
    if not s:
        raise CardSyntaxError(raw)
    rest = s
    # symbol or letter at the end, then at the start
    for take_end in (True, False):
        ch = rest[-1] if take_end else rest[0]
        found = _SYMBOL_TO_SUIT.get(ch) or _SYMBOL_TO_SUIT.get(ch + "\ufe0f")
        if found is None and ch in "SHDC":
            found = Suit(ch)
        if found is None and suit_letters and ch in suit_letters:
            found = suit_letters[ch]
        if found is not None:
            candidate = rest[:-1] if take_end else rest[1:]
            candidate = candidate.replace("\ufe0f", "")
            if candidate in _RANK_FROM_TEXT:
                return card_of(_RANK_FROM_TEXT[candidate], found)
    # variation selector after a symbol, e.g. "Q♥️"
    if s.endswith("\ufe0f"):
        return parse_card(s[:-1], suit_letters)
    raise CardSyntaxError(raw)


def cards_text(cards: Iterable[Card]) -> str:
    return " ".join(c.code for c in cards)

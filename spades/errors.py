"""The errors the engine raises.

Two families, kept apart as python-chess keeps an invalid move apart from an
illegal one:

* :class:`CardSyntaxError`: the text is not a card at all.
* :class:`RuleError` and its subclasses: a well-formed command that the rules
  do not allow now. Every rule error carries the legal moves at that point, so
  whoever shows it can say what *is* allowed.
"""

from __future__ import annotations

from typing import Sequence

from .base_errors import CardSyntaxError as CardSyntaxError  # defined below spades.cards, which raises it
from .base_errors import SpadesError as SpadesError
from .cards import Suit
from .commands import Command


class RuleError(SpadesError):
    """A command the rules do not allow now. ``legal`` lists what is allowed."""

    code = "illegal"

    def __init__(self, message: str, legal: Sequence[Command] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.legal: tuple[Command, ...] = tuple(legal)


class GameOverError(RuleError):
    """The game has ended; nothing more may be played."""

    code = "game_over"


class NotYourTurn(RuleError):
    """The command came from the player who is not to move. ``to_move`` is the seat that is."""

    code = "not_your_turn"

    def __init__(self, message: str, legal: Sequence[Command] = (), to_move: int | None = None) -> None:
        super().__init__(message, legal)
        self.to_move = to_move


class FirstPlayerChoosing(NotYourTurn):
    """In a simultaneous draw (D11), the second player moved before the first player's double nil choice.

    Its ``code`` is ``not_your_turn``'s: the player is told to wait for the opponent.
    """


class WrongPhase(RuleError):
    """A command of another phase (a bid during the draw, a card during bidding...)."""

    code = "wrong_phase"


class MustFollowSuit(RuleError):
    """The player holds the suit led and played another. ``suit`` is the suit led."""

    code = "must_follow_suit"

    def __init__(self, message: str, legal: Sequence[Command] = (), suit: Suit | None = None) -> None:
        super().__init__(message, legal)
        self.suit = suit


class SpadesNotBroken(RuleError):
    """A spade was led before spades were broken, and the leader holds another suit."""

    code = "spades_not_broken"


class CardNotInHand(RuleError):
    """The card named is not in the player's hand."""

    code = "card_not_in_hand"


class BidOutOfRange(RuleError):
    """A bid that is not a whole number from 0 to 13."""

    code = "bid_out_of_range"


class DoubleNilNotAllowed(RuleError):
    """Double nil declared after the player's first draw decision of the hand (D3)."""

    code = "double_nil_not_allowed"


class BadExchange(RuleError):
    """An exchange of more than three cards, of cards not in hand, or of the same card twice (D5)."""

    code = "bad_exchange"

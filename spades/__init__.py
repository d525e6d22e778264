"""slowspades' game engine: two-player Spades as pure, event-sourced Python (no I/O).

See RULES.md (the specification) and docs/events.md (the events). The main entry points:
:func:`spades.game.new_game`, :func:`spades.game.decide`, :func:`spades.game.fold`,
:func:`spades.game.legal_moves` and :func:`spades.game.view`.
"""

from .cards import DECK, Card, Suit, parse_card
from .commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Forfeit, Keep, Play
from .dealer import Dealer
from .events import HouseRules
from .game import Game, PlayerView, decide, fold, legal_moves, new_game, view

__all__ = [
    "DECK", "Card", "Suit", "parse_card", "Bid", "Command", "DeclareDoubleNil", "DeclineDoubleNil", "Discard",
    "Exchange", "Forfeit", "Keep", "Play", "Dealer", "HouseRules", "Game", "PlayerView", "decide", "fold",
    "legal_moves", "new_game", "view",
]

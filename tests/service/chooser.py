"""A quick, deterministic chooser of legal moves, to drive whole games through the service in tests.

(``spades.bots`` will offer real strategies; this only needs to finish games in a reasonable number of hands.)
"""

from __future__ import annotations

from spades.cards import Suit
from spades.commands import Bid, Command, DeclineDoubleNil, Discard, Exchange, Keep, Play
from spades.game import Game, legal_moves, view
from spades.legal import trick_winner


def _beats(card, trick) -> bool:  # type: ignore[no-untyped-def]
    return trick_winner(list(trick) + [(9, card)]) == 9


def choose(game: Game, seat: int) -> Command:
    legal = legal_moves(game, seat)
    assert legal, f"seat {seat} has no legal move in phase {game.phase}"
    first = legal[0]
    if any(isinstance(c, DeclineDoubleNil) for c in legal):
        return DeclineDoubleNil(seat)
    if isinstance(first, (Keep, Discard)):
        card = view(game, seat).offered
        return Keep(seat) if card is not None and (card.rank >= 11 or card.suit is Suit.SPADES) else Discard(seat)
    if isinstance(first, Exchange):
        return Exchange(seat, ())
    if isinstance(first, Bid):
        hand = game.hands[seat]
        spades = [c for c in hand if c.suit is Suit.SPADES]
        aces_kings = sum(1 for c in hand if c.rank >= 13 and c.suit is not Suit.SPADES)
        estimate = aces_kings + sum(1 for c in spades if c.rank >= 11) + max(0, len(spades) - 3)
        return Bid(seat, max(1, min(13, estimate)))
    cards = [c.card for c in legal if isinstance(c, Play)]
    low_first = sorted(cards, key=lambda c: (c.suit is Suit.SPADES, c.rank))
    if game.trick:
        winners = [c for c in low_first if _beats(c, game.trick)]
        return Play(seat, winners[0] if winners else low_first[0])
    return Play(seat, max(cards, key=lambda c: (c.suit is not Suit.SPADES, c.rank)))

"""What a seat may do now: the cards it may play (RULES.md section 6), its legal commands, who wins a trick.

:func:`legal_moves` lists a seat's commands in a :class:`spades.state.Game`; :func:`playable` and
:func:`legal_commands` answer from the parts of a state alone, so a :class:`spades.player_view.PlayerView`
uses them too.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from .cards import Card
from .commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Keep, Play
from .state import BID, DRAW, EXCHANGE, OVER, PLAY, SPADES, Game

MAX_EXCHANGE = 3


def playable(hand: Sequence[Card], trick: Sequence[tuple[int, Card]], spades_broken: bool) -> list[Card]:
    """The cards of ``hand`` (in display order) that may be played to ``trick`` (section 6)."""
    if trick:
        led = trick[0][1].suit
        return [c for c in hand if c.suit is led] or list(hand)
    if spades_broken:
        return list(hand)
    return [c for c in hand if c.suit is not SPADES] or list(hand)


def legal_commands(phase: str, seat: int, may_move: bool, offer: bool, hand: Sequence[Card],
                   trick: Sequence[tuple[int, Card]], spades_broken: bool) -> list[Command]:
    """What ``seat`` may do in ``phase`` (``offer``: at its double nil choice, D3), from the parts of a state."""
    if phase == OVER or not may_move:
        return []
    if phase == DRAW:
        if offer:
            return [DeclareDoubleNil(seat), DeclineDoubleNil(seat)]
        return [Keep(seat), Discard(seat)]
    if phase == EXCHANGE:
        return [Exchange(seat, combo) for n in range(MAX_EXCHANGE + 1) for combo in combinations(hand, n)]
    if phase == BID:
        return [Bid(seat, n) for n in range(14)]
    return [Play(seat, card) for card in playable(hand, trick, spades_broken)]


def playable_cards(game: Game, seat: int) -> list[Card]:
    """The cards ``seat`` may play to the current trick, in display order (section 6)."""
    if game.phase != PLAY or seat not in game.movers:
        return []
    return playable(game.hands[seat], game.trick, game.spades_broken)


def legal_moves(game: Game, seat: int) -> list[Command]:
    """Every command ``seat`` may give now (empty when they may not move now).

    Forfeit is always allowed too while the game is on, and is not listed. In the
    exchange phase this lists all 378 ways to throw 0 to 3 of 13 cards.
    """
    return legal_commands(game.phase, seat, seat in game.movers, game.offer_pending(seat), game.hands[seat], game.trick,
                  game.spades_broken)



def trick_winner(cards: Sequence[tuple[int, Card]]) -> int:
    """The seat that wins a trick: the highest spade, else the highest card of the suit led (section 6)."""
    best_seat, best = cards[0]
    for seat, card in cards[1:]:
        if card.suit is best.suit:
            if card.rank > best.rank:
                best_seat, best = seat, card
        elif card.suit is SPADES:
            best_seat, best = seat, card
    return best_seat


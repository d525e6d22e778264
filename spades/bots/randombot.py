"""The ``random`` strategy: uniform over the legal moves, except that it bids like ``basic``.

It never declares double nil (that is a bid, and ``basic`` does not make it); given
``dn_rate`` it declares double nil that often, which the tests use to exercise exchanges.
An exchange is drawn uniformly from the 378 ways to throw 0 to 3 of 13 cards without
listing them: the number thrown ``n`` is chosen with weight C(13, n), then ``n`` cards.
"""

from __future__ import annotations

import random
from math import comb
from typing import Sequence

from ..cards import Card
from ..commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Keep, Play
from ..game import BID, DRAW, EXCHANGE, MAX_EXCHANGE, PLAY, PlayerView
from .basic import bid_for

_KEEP = (Keep(0), Keep(1))
_DISCARD = (Discard(0), Discard(1))
_DECLINE = (DeclineDoubleNil(0), DeclineDoubleNil(1))


class RandomStrategy:
    """Uniform over legal moves; bids like ``basic``."""

    name = "random"

    def __init__(self, seed: int | None = None, dn_rate: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.dn_rate = dn_rate

    def choose(self, view: PlayerView) -> Command:
        seat = view.seat
        phase = view.phase
        rand = self.rng.random
        if phase == PLAY:
            cards = view.playable
            return Play(seat, cards[int(rand() * len(cards))])
        if phase == DRAW:
            if view.double_nil_offer:
                if self.dn_rate and rand() < self.dn_rate:
                    return DeclareDoubleNil(seat)
                return _DECLINE[seat]
            return _KEEP[seat] if rand() < 0.5 else _DISCARD[seat]
        if phase == BID:
            return Bid(seat, bid_for(view.hand))
        if phase == EXCHANGE:
            return Exchange(seat, exchange_sample(view.hand, self.rng))
        raise ValueError(f"nothing to choose in phase {phase!r}")


def exchange_sample(hand: Sequence[Card], rng: random.Random) -> tuple[Card, ...]:
    """A uniform choice among all ways to throw 0 to 3 cards of ``hand`` (in the hand's order)."""
    n_cards = len(hand)
    weights = [comb(n_cards, n) for n in range(MAX_EXCHANGE + 1)]
    pick = rng.randrange(sum(weights))
    n = 0
    while pick >= weights[n]:
        pick -= weights[n]
        n += 1
    chosen = sorted(rng.sample(range(n_cards), n))
    return tuple(hand[i] for i in chosen)

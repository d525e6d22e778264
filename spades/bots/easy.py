"""The ``easy`` strategy: plays like a beginner, making the mistakes a person new to Spades makes.

It is meant to be beaten by a careful beginner. Its moves are never random in the sense of a
coin tossed over the legal ones; they are the habits of someone who has just learnt the rules
(RULES.md sections 3-8):

* Draw (section 3): keeps "high" cards, aces, kings, queens and jacks, and spades from the 10 up;
  anything else it lets go (so it throws away useful low spades and keeps lone queens).
* Double nil and nil (sections 4, 5): never.
* Bid (section 5): counts high cards loosely, an ace or a king a trick whether or not the king
  is guarded, two queens a trick, a trick for every spade above the 10, and nothing for length
  or for a void it could trump; now and then it adds or drops one on a hunch.
* Play (section 6): does not count cards. When it can win a trick it does so with its highest
  card of the suit, even when a lower one would do; when it cannot follow it trumps whenever it
  holds a spade, bid made or not (so it piles up bags, section 8); when it cannot win it throws
  its lowest card. It leads its highest card of its longest side suit, except now and then, when
  it leads a low card of another suit than the one it meant to; it never tries to set a nil.
"""

from __future__ import annotations

import random
from collections import Counter

from ..cards import Card, Suit
from ..commands import Bid, Command, DeclineDoubleNil, Discard, Exchange, Keep, Play
from ..game import BID, DRAW, EXCHANGE, PLAY, PlayerView

SPADES = Suit.SPADES
_KEEP = (Keep(0), Keep(1))
_DISCARD = (Discard(0), Discard(1))
_DECLINE = (DeclineDoubleNil(0), DeclineDoubleNil(1))
HUNCH = 0.3  # how often the bid is one more or one fewer than the count (half each way)
WRONG_LEAD = 0.25  # how often it leads a low card of another suit than the one it meant to


def looks_high(card: Card) -> bool:
    """What a beginner keeps in the draw: a picture card or an ace, or a spade from the 10 up."""
    return card.rank >= 11 or (card.suit is SPADES and card.rank >= 10)


def loose_count(hand: tuple[Card, ...]) -> int:
    """Tricks counted by high cards only: aces and kings one each, two queens one, spades above the 10."""
    count = 0.0
    for card in hand:
        if card.suit is SPADES and card.rank > 10:
            count += 1
        elif card.rank >= 13:
            count += 1
        elif card.rank == 12:
            count += 0.5
    return int(count)


class EasyStrategy:
    """A beginner: loose bids, no counting, wins with high cards, trumps whenever it can."""

    name = "easy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Command:
        seat = view.seat
        phase = view.phase
        if phase == PLAY:
            return Play(seat, self.play(view))
        if phase == DRAW:
            if view.double_nil_offer:
                return _DECLINE[seat]
            card = view.offered
            if card is None:
                raise ValueError("no card offered to keep or discard")
            return _KEEP[seat] if looks_high(card) else _DISCARD[seat]
        if phase == BID:
            return Bid(seat, self.bid(view))
        if phase == EXCHANGE:  # never bids double nil; if ever asked, throws its highest cards
            worst = sorted(view.hand, key=lambda c: (c.suit is SPADES, c.rank), reverse=True)[:3]
            return Exchange(seat, tuple(c for c in view.hand if c in worst))
        raise ValueError(f"nothing to choose in phase {phase!r}")

    def bid(self, view: PlayerView) -> int:
        count = loose_count(view.hand)
        roll = self.rng.random()
        if roll < HUNCH / 2:
            count += 1
        elif roll < HUNCH:
            count -= 1
        return max(1, min(13, count))

    def play(self, view: PlayerView) -> Card:
        cards = view.playable
        if len(cards) == 1:
            return cards[0]
        if view.trick:
            return self.follow(cards, view.trick[0][1])
        return self.lead(view, cards)

    @staticmethod
    def follow(cards: list[Card], lead: Card) -> Card:
        led = lead.suit
        same = [c for c in cards if c.suit is led]
        if same:
            top = max(same, key=lambda c: c.rank)
            return top if top.rank > lead.rank else min(same, key=lambda c: c.rank)
        spades = [c for c in cards if c.suit is SPADES]
        if spades:  # trump whenever it can, with its lowest spade
            return min(spades, key=lambda c: c.rank)
        return min(cards, key=lambda c: c.rank)

    def lead(self, view: PlayerView, cards: list[Card]) -> Card:
        lengths = Counter(c.suit for c in view.hand)
        side = [c for c in cards if c.suit is not SPADES] or cards
        suits = sorted({c.suit for c in side}, key=lambda s: (lengths[s], s.value), reverse=True)
        if len(suits) > 1 and self.rng.random() < WRONG_LEAD:
            other = suits[1 + int(self.rng.random() * (len(suits) - 1))]
            return min((c for c in side if c.suit is other), key=lambda c: c.rank)
        return max((c for c in side if c.suit is suits[0]), key=lambda c: c.rank)

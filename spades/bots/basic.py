"""The ``basic`` strategy: a sensible, simple player that reads only its :class:`PlayerView`.

* Draw: keeps a card if it is likely to win a trick (any spade, an ace, a king, a guarded
  queen), otherwise takes the next one.
* Double nil: never (RULES.md section 4 is a gamble this player does not take). If it ever
  has to exchange, it throws its three most dangerous cards.
* Bid: counts likely tricks (aces, guarded kings and queens, high and long spades, short
  suits to ruff); bids nil (section 5) with a hand that should win nothing.
* Play: counts the cards it cannot see (not in its hand, not among its own discards, not
  played yet); while it still needs tricks it wins cheaply or leads likely winners, once it
  has made its bid it ducks to avoid bags (section 8); as a nil bidder it always ducks; it
  tries to make an opponent's nil fail.
"""

from __future__ import annotations

import random
from typing import Sequence

from ..cards import DECK, Card, Suit
from ..commands import Bid, Command, DeclineDoubleNil, Discard, Exchange, Keep, Play
from ..game import BID, DRAW, EXCHANGE, PLAY, PlayerView

SPADES = Suit.SPADES
_KEEP = (Keep(0), Keep(1))
_DISCARD = (Discard(0), Discard(1))
_DECLINE = (DeclineDoubleNil(0), DeclineDoubleNil(1))


def keep_value(card: Card) -> float:
    """How useful a card is likely to be, 0 to 1; the average card is worth about 0.3."""
    if card.suit is SPADES:
        return 0.3 + 0.7 * (card.rank - 2) / 12
    return {14: 0.9, 13: 0.6, 12: 0.3, 11: 0.15}.get(card.rank, 0.05)


_SIDE_SUITS = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


def estimate_tricks(hand: Sequence[Card]) -> float:
    """The number of tricks ``hand`` should win against one opponent (section 7's bid)."""
    spades = sorted([c.rank for c in hand if c.suit is SPADES], reverse=True)
    n_spades = len(spades)
    est = 0.0
    used = 0
    for rank in spades:
        if rank == 14:
            est += 1.0
        elif rank == 13:
            est += 0.9 if n_spades >= 2 else 0.5
        elif rank == 12:
            est += 0.7 if n_spades >= 3 else 0.3
        elif rank == 11:
            est += 0.5 if n_spades >= 4 else 0.2
        else:
            break
        used += 1
    est += 0.75 * max(0, n_spades - max(3, used))  # long trumps
    spare = n_spades - used
    for suit in _SIDE_SUITS:
        ranks = [c.rank for c in hand if c.suit is suit]
        length = len(ranks)
        if 14 in ranks:
            est += 0.95
        if 13 in ranks:
            est += 0.75 if length >= 2 else 0.3
        if 12 in ranks:
            est += 0.35 if length >= 3 else 0.1
        if length <= 1 and spare > 0:  # a void or singleton to ruff with a spare spade
            est += 0.6 if length == 0 else 0.3
            spare -= 1
    return est


def wants_nil(hand: Sequence[Card], estimate: float | None = None) -> bool:
    """A hand weak enough to bid nil: few likely tricks, no spade above 9, no ace, at most 3 spades."""
    if any(c.rank == 14 or (c.suit is SPADES and c.rank > 9) for c in hand):
        return False
    if sum(1 for c in hand if c.suit is SPADES) > 3:
        return False
    return (estimate_tricks(hand) if estimate is None else estimate) < 1.5


def bid_for(hand: Sequence[Card]) -> int:
    """The bid for ``hand``: nil with a very weak hand, else the likely tricks (at least 1)."""
    est = estimate_tricks(hand)
    if wants_nil(hand, est):
        return 0
    return max(1, min(13, int(est + 0.35)))


class BasicStrategy:
    """Keeps winners, bids its likely tricks, makes its bid and then ducks."""

    name = "basic"

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
            assert card is not None
            return _KEEP[seat] if keep_value(card) >= 0.3 else _DISCARD[seat]
        if phase == BID:
            return Bid(seat, bid_for(view.hand))
        if phase == EXCHANGE:
            worst = sorted(view.hand, key=lambda c: (c.suit is SPADES, c.rank), reverse=True)[:3]
            return Exchange(seat, tuple(c for c in view.hand if c in worst))
        raise ValueError(f"nothing to choose in phase {phase!r}")

    # -- play ----------------------------------------------------------------------------
    def play(self, view: PlayerView) -> Card:
        cards = view.playable
        if len(cards) == 1:
            return cards[0]
        me, opp = view.seat, view.opponent
        nil = view.double_nil[me] or view.bids[me] == 0
        need = 0 if nil else (view.bids[me] or 0) - view.tricks_won[me]
        opp_nil = (view.double_nil[opp] or view.bids[opp] == 0) and view.tricks_won[opp] == 0
        duck = nil or need <= 0 or opp_nil
        if view.trick:
            return self._follow(view, cards, duck)
        return self._lead(view, cards, duck)

    @staticmethod
    def _unknown(view: PlayerView) -> list[Card]:
        seen = set(view.hand)
        seen.update(view.discarded)
        seen.update(view.played)
        if view.exchange:
            seen.update(view.exchange[0])
        return [c for c in DECK if c not in seen]

    def _follow(self, view: PlayerView, cards: list[Card], duck: bool) -> Card:
        lead = view.trick[0][1]
        led = lead.suit

        def beats(c: Card) -> bool:
            return (c.suit is led and c.rank > lead.rank) or (c.suit is SPADES and led is not SPADES)

        winners = [c for c in cards if beats(c)]
        losers = [c for c in cards if not beats(c)]
        if duck:
            if losers:  # shed the highest card that still loses (non-spades first)
                return max(losers, key=lambda c: (c.suit is not SPADES, c.rank))
            return max(winners, key=lambda c: c.rank)
        if winners:  # win as cheaply as possible
            return min(winners, key=lambda c: (c.suit is SPADES and led is not SPADES, c.rank))
        return min(losers, key=lambda c: (c.suit is SPADES, c.rank))

    def _lead(self, view: PlayerView, cards: list[Card], duck: bool) -> Card:
        unknown = self._unknown(view)
        n_unknown = len(unknown)
        m = view.opponent_cards

        def p_none(k: int) -> float:  # the opponent holds none of k given unknown cards
            p = 1.0
            for i in range(k):
                if n_unknown - i <= 0:
                    break
                p *= max(0.0, (n_unknown - m - i) / (n_unknown - i))
            return p

        unknown_spades = sum(1 for u in unknown if u.suit is SPADES)
        p_has_spade = 1.0 - p_none(unknown_spades)

        def p_win(c: Card) -> float:
            higher = sum(1 for u in unknown if u.suit is c.suit and u.rank > c.rank)
            p = p_none(higher)
            if c.suit is not SPADES:
                in_suit = sum(1 for u in unknown if u.suit is c.suit)
                p *= 1.0 - p_none(in_suit) * p_has_spade
            return p

        scored = [(p_win(c), c) for c in cards]
        if duck:
            return min(scored, key=lambda pc: (pc[0], pc[1].suit is SPADES, pc[1].rank))[1]
        best_p, best = max(scored, key=lambda pc: (pc[0], pc[1].suit is not SPADES, -pc[1].rank))
        if best_p >= 0.6:
            return best
        # no likely winner: lead low from the shortest side suit, to ruff it later
        lengths = {s: 0 for s in Suit}
        for c in view.hand:
            lengths[c.suit] += 1
        return min(cards, key=lambda c: (c.suit is SPADES, lengths[c.suit], c.rank))

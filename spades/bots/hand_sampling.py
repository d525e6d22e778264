"""The opponent's hands ``pimc`` and ``hard`` sample (:func:`sample_hands`): among the cards they may hold
(:mod:`spades.bots.card_counting`), weighted by what their draw likely kept, and read against their bid.

* the prior: a player keeps the good card of a draw pair (:func:`good`), so the opponent holds such a card more
  often than another (:data:`DRAFT_WEIGHT`; or, with ``pairs``, exactly as the draw's pairs deal them: :func:`_ways`,
  :func:`kept_good_weights`);
* their bid (nil and double nil included) says how strong their hand was: samples are drawn several times over
  and resampled by how well a simple trick count of the sampled hand (:func:`estimate_tricks`) matches the bid.
"""

from __future__ import annotations

import math
import random
from typing import Callable, Sequence

from ..game import PlayerView
from .card_counting import opponent_played, unseen

#: Reading the opponent's bid: samples are drawn BID_OVERSAMPLE times over and resampled with weight
#: exp(-(count - bid)^2 / 2 var), the count :func:`estimate_tricks` of the sampled hand and its played
#: cards. Paired one-hand tests against ``basic`` (hand 1 of 1,200 decks, seeds 5000-6199, points a hand
#: less ``basic``'s, a bag 5): var 0.3 / 10 times over +3.19 +- 0.89 on var 1.2 / 3 times (the setting
#: before); var 0.6 / 6 times +1.55 +- 0.58 (2,400 decks); var 2.4 -1.35 +- 0.80: the tighter the better.
BID_OVERSAMPLE = 10
BID_READ_VAR = 0.3
BID_READ_VAR_NIL = 0.6


def good(c: int) -> bool:
    """A card the usual draw keeps when it is offered: a spade, an ace, a king or a queen (section 3)."""
    return c < 13 or c % 13 >= 10


#: How much likelier the opponent is to have kept a card than discarded it, before any play: a
#: player who keeps the good card of a draw pair (:func:`good`) ends up with such a card about 2.7
#: times as often as with another (section 3). (``pimc``'s prior; ``hard`` draws as :func:`_ways` counts.)
DRAFT_WEIGHT = tuple(2.7 if good(c) else 1.0 for c in range(52))


def _ways(kept_good: int, good_total: int, pairs: int = 13) -> int:
    """For one kept hand of ``kept_good`` good cards (:func:`good`), how many ways the opponent's draw gives
    it: their ``2 * pairs`` cards, ``good_total`` of them good, matched into pairs and ordered, when the
    opponent keeps the first card of a pair exactly when it is good (section 3: a kept first card is good;
    a first card let go is not, and the second is then kept whatever it is). The pairs' own order multiplies
    every hand alike and is left out.

    A kept card that is not good was the second of its pair, after a discarded card that is not good (one
    order); a kept good card may be first (any discarded card second) or second after a discarded card that
    is not good (two orders then). So the bad kept cards take bad discards one each, and the good kept cards
    take the rest, doubled for each bad one. Every kept hand with as many good cards is as likely, so this
    count, a function of ``kept_good`` alone, is each such hand's weight."""
    bad_kept = pairs - kept_good
    bad_discarded = 2 * pairs - good_total - bad_kept
    doubled = bad_discarded - bad_kept  # bad discards left for the good kept cards
    if kept_good < 0 or bad_kept < 0 or doubled < 0 or kept_good > good_total:
        return 0
    return math.perm(bad_discarded, bad_kept) * math.factorial(kept_good) << doubled


def kept_good_weights(good_total: int, good_played: int, good_free: int, bad_free: int, n: int) -> list[int]:
    """Weights of the opponent holding ``j`` good cards among the ``n`` they still hold, j = 0..n: they played
    ``good_played`` good cards already and may hold any of ``good_free`` good and ``bad_free`` other cards
    (:func:`_ways`; the cards within each kind equally likely)."""
    return [math.comb(good_free, j) * math.comb(bad_free, n - j) * _ways(good_played + j, good_total)
            for j in range(n + 1)]


def estimate_tricks(hand: Sequence[int]) -> float:
    """A rough count of the tricks a hand (card indices) takes; used to read the opponent's bid."""
    by_suit = [[], [], [], []]  # type: list[list[int]]
    for c in hand:
        by_suit[c // 13].append(c % 13)
    spades = sorted(by_suit[0], reverse=True)
    est = 0.0
    for i, r in enumerate(spades):
        if r >= 12 - i or r >= 9 and i < 3:
            est += 1.0 if r == 12 else 0.8
        elif i >= 3:
            est += 0.7
    spare = max(0, len(spades) - 3)
    for s in (1, 2, 3):
        ranks = by_suit[s]
        n = len(ranks)
        if 12 in ranks:
            est += 0.95
        if 11 in ranks:
            est += 0.75 if n >= 2 else 0.3
        if 10 in ranks and n >= 3:
            est += 0.35
        if n <= 1 and spare:
            est += 0.6 if n == 0 else 0.3
            spare -= 1
    return est


def sample_hands(view: PlayerView, count: int, rng: random.Random, pairs: bool = False,
                 oversample: int = BID_OVERSAMPLE, read_var: float = BID_READ_VAR) -> list[int]:
    """``count`` opponent hands (masks) that agree with the view, reweighted by the opponent's bid (``oversample``
    times over, with the variance ``read_var``); ``pairs``: drawn as the draw's pairs give them (:func:`_pair_draw`)."""
    pool, voids = unseen(view)
    n = view.opponent_cards
    allowed = [c for c in pool if not voids >> (c // 13) & 1]
    if len(allowed) < n:
        allowed = pool
    opp = 1 - view.seat
    bid = view.bids[opp]
    nil = view.double_nil[opp] or bid == 0
    draw_weight = [1.0 / DRAFT_WEIGHT[c] for c in range(52)]
    rand = rng.random
    log = math.log

    def draw() -> list[int]:  # weighted sampling without replacement (Efraimidis-Spirakis keys)
        keyed = sorted(allowed, key=lambda c: log(rand() + 1e-300) * draw_weight[c])
        return keyed[len(keyed) - n:]

    played_by_opp = opponent_played(view)
    if pairs and not any(view.double_nil):  # (an exchange follows a double nil only)
        draw = _pair_draw(rng, pool, played_by_opp, allowed, n) or draw

    if bid is None and not view.double_nil[opp]:
        out = []
        for _ in range(count):
            mask = 0
            for c in draw():
                mask |= 1 << c
            out.append(mask)
        return out
    target = 0.0 if nil else float(bid or 0)
    raw: list[int] = []
    weights: list[float] = []
    var = BID_READ_VAR_NIL if nil else read_var
    for _ in range(count * oversample):
        hand = draw()
        est = estimate_tricks(hand + played_by_opp)
        mask = 0
        for c in hand:
            mask |= 1 << c
        raw.append(mask)
        weights.append(math.exp(-0.5 * (est - target) ** 2 / var))
    return rng.choices(raw, weights=weights, k=count)


def _pair_draw(rng: random.Random, pool: list[int], played_by_opp: list[int], allowed: list[int],
               n: int) -> Callable[[], list[int]] | None:
    """Draws of the opponent's ``n`` cards from ``allowed`` as the draw's pairs give them (:func:`_ways`):
    how many good cards first, then which, uniformly within each kind; None when no kept hand of the
    usual draw agrees with what the opponent has played. Their 26 cards are the ``pool`` (:func:`unseen`)
    and the cards they have played."""
    good_played = sum(1 for c in played_by_opp if good(c))
    good_free = [c for c in allowed if good(c)]
    bad_free = [c for c in allowed if not good(c)]
    good_total = sum(1 for c in pool if good(c)) + good_played
    weights = kept_good_weights(good_total, good_played, len(good_free), len(bad_free), n)
    if not any(weights):
        return None
    counts = range(n + 1)

    def draw() -> list[int]:
        j = rng.choices(counts, weights=weights)[0]
        return rng.sample(good_free, j) + rng.sample(bad_free, n - j)

    return draw

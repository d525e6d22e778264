"""The ``pimc`` strategy: Monte Carlo over the opponent's possible hands, each solved with all cards seen.

It reads only its :class:`spades.game.PlayerView`. The opponent holds ``view.opponent_cards``
of the cards this player has not seen (not in hand, not among its own discards and thrown cards,
not played: :mod:`spades.bots.card_counting`); which ones is sampled
(:mod:`spades.bots.hand_sampling`), agreeing with everything the view shows:

* a suit the opponent failed to follow is a suit they do not hold (section 6);
* their bid (nil and double nil included) says how strong their hand was: samples are
  reweighted by how well a simple trick count of the sampled hand matches the bid;
* after their double nil exchange they may hold cards this player discarded (D5).

Decisions (RULES.md sections 3-8):

* card play (section 6): every legal card (one of each group of equivalent cards) is tried on
  each sample; the rest of the hand is played by a quick rule that sees all cards and the last
  :data:`EXACT_TRICKS` tricks are searched exactly (:mod:`spades.bots.handsearch`). The card with
  the best average utility is played. The utility of an end of hand is my hand score minus the
  opponent's (bags and the 10-bag penalty included, a bag also costing a little of the future),
  plus a large bonus or malus when the hand ends the game (first to 500, D9);
* bid (section 5): the hand is played out on samples to see how many tricks it takes and whether
  it can stay nil; the bid (0 to 13) with the best expected score is made;
* draw (section 3): keeps spades and high cards, low ones when playing double nil;
* double nil (section 4): declared only as a last gamble, when the opponent is about to win and
  a normal hand could not catch up; the exchange throws the most dangerous cards.

Every choice is reproducible from the seed: the amount of work per decision is counted in search
nodes, not seconds; a wall-clock cap (:data:`HARD_CAP_S`) only guards against a pathological case.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..cards import DECK, Card
from ..commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Keep, Play
from ..game import BID, DRAW, EXCHANGE, PLAY, PlayerView
from ..scoring import score_player, winner_after_hand
from .card_counting import unseen
from .hand_sampling import BID_OVERSAMPLE, BID_READ_VAR, estimate_tricks, good, sample_hands
from .handsearch import Deal, TimeUp, reps

EXACT_TRICKS = 5  # tricks searched exactly at the end of each sampled hand
END_EXACT = 7  # from this many cards in hand on, the search goes to the end of the hand
PLAY_SAMPLES = (8, 40)  # at least, at most samples for a card
PLAY_NODES = 5000  # search work per card decision, after the minimum samples
BID_SAMPLES = 48
BID_EXACT = 5  # tricks searched exactly at the end of a bid's playout (the rest by the quick rule)
#: A sampled trick count read as (offset, weight): one fewer, as is, one more. Fitted (maximum
#: likelihood) to whether 1,039 bids of ``pimc`` against ``basic`` were made, with a playout that
#: searched four tricks exactly (for a six-trick playout the fit was about -2: 5%, -1: 10-15%, 0: 60%,
#: +1: 20%); kept, not refitted, for the five-trick playout (6.4% of its 4,219 bids were set).
SPREAD = ((-1, 0.3), (0, 0.6), (1, 0.1))
NIL_DOUBT = 0.2  # taken off the sampled chance that a nil survives
HARD_CAP_S = 0.5  # seconds; checked after every sample (at least two for a card)
#: seconds from the start of a decision after which a sample still being searched is dropped
#: (the clock is looked at inside the search too, every ``handsearch.CLOCK_EVERY`` positions)
ABORT_S = 0.6
WIN_BONUS = 400.0  # the value of winning the game, against hand scores of about 100
BAG_COST = 5.0  # what a bag costs of the future (10 bags cost 100)
#: Card play only: a further malus for ending the hand short of my (non-nil) bid. The samples are
#: searched with every card seen, so a plan that makes the bid only just there fails more often
#: at the table; this makes the search prefer the card that keeps the bid safe over saving bags.
SET_MALUS = 30.0


@dataclass(frozen=True)
class Settings:
    """How much work ``pimc`` does and how it reads what it samples; the defaults are described above (and, for
    reading the opponent's bid, in :mod:`spades.bots.hand_sampling`)."""

    play_samples: tuple[int, int] = PLAY_SAMPLES
    play_nodes: int = PLAY_NODES
    exact_tricks: int = EXACT_TRICKS
    end_exact: int = END_EXACT
    bid_samples: int = BID_SAMPLES
    bid_exact: int = BID_EXACT
    spread: tuple[tuple[int, float], ...] = SPREAD
    nil_doubt: float = NIL_DOUBT
    bid_oversample: int = BID_OVERSAMPLE
    bid_read_var: float = BID_READ_VAR
    set_malus: float = SET_MALUS
    hard_cap_s: float = HARD_CAP_S
    abort_s: float = ABORT_S
    pairs: bool = False  # the opponent's hand drawn as the draw's pairs give it (:func:`hand_sampling.kept_good_weights`)
    bag_cost: float = BAG_COST  # what a bag carried costs of the future (half that near the end)


#: The ``hard`` level: ``pimc`` spending more of its time (card play: the last six tricks searched
#: exactly and up to 12,000 positions over 12 to 64 samples; the bid: 96 samples), reading its
#: sampled trick counts lower (a stronger opponent than ``basic``, the spread was fitted against,
#: takes more tricks from it): two fewer 10%, one fewer 35%, as is 50%, one more 5%; drawing the
#: opponent's hand as the draw's pairs deal it (``pairs``), and with that prior reading their bid
#: with a variance of 0.7, near the spread of real bids about the count (0.7 to 1.3), not 0.3
#: (the tight reading had made up for the weighted prior's too weak hands). Trials in docs/bots.md.
HARD = Settings(exact_tricks=6, play_nodes=12000, play_samples=(12, 64), bid_samples=96,
                spread=((-2, 0.1), (-1, 0.35), (0, 0.5), (1, 0.05)), pairs=True, bid_read_var=0.7)


_KEEP = (Keep(0), Keep(1))
_DISCARD = (Discard(0), Discard(1))
_DECLINE = (DeclineDoubleNil(0), DeclineDoubleNil(1))


def danger(c: int) -> int:
    """How likely a card is to win a trick its owner does not want (for nil play and the exchange)."""
    r = c % 13
    return r + 8 if c < 13 else r


class MonteCarloStrategy:
    """Perfect-information Monte Carlo: samples the opponent's hand, solves each, plays the best average."""

    name = "pimc"

    def __init__(self, seed: int | None = None, settings: Settings = Settings(), name: str = "pimc") -> None:
        self.rng = random.Random(seed)
        self.settings = settings
        self.name = name
        self.play_nodes = settings.play_nodes
        self.exact = settings.exact_tricks
        self.end_exact = settings.end_exact
        self.bid_samples = settings.bid_samples
        self.bid_exact = settings.bid_exact

    def choose(self, view: PlayerView) -> Command:
        seat = view.seat
        phase = view.phase
        if phase == PLAY:
            return Play(seat, self.play(view))
        if phase == DRAW:
            if view.double_nil_offer:
                return DeclareDoubleNil(seat) if self.wants_double_nil(view) else _DECLINE[seat]
            card = view.offered
            if card is None:
                raise ValueError("no card offered to keep or discard")
            return _KEEP[seat] if self.keeps(view, card) else _DISCARD[seat]
        if phase == BID:
            return Bid(seat, self.bid(view))
        if phase == EXCHANGE:
            return Exchange(seat, self.exchange(view))
        raise ValueError(f"nothing to choose in phase {phase!r}")

    # -- draw, double nil, exchange -------------------------------------------------------------
    @staticmethod
    def keeps(view: PlayerView, card: Card) -> bool:
        """Keep a card worth more than the average unseen card (section 3)."""
        if view.double_nil[view.seat]:
            return danger(card.index) <= 5
        return good(card.index)

    @staticmethod
    def wants_double_nil(view: PlayerView) -> bool:
        """A gamble for +200 (section 4), taken only when the opponent is about to win whatever this
        player bids (within 20 of the target) and +200, but no normal hand, would take it there.

        Played against ``basic`` a double nil survives about one hand in eight, less than the
        chance that the opponent fails otherwise, so it is not a gamble to take any earlier.
        """
        me, opp = view.scores[view.seat], view.scores[1 - view.seat]
        target = view.rules.target
        return opp >= target - 20 and me + 130 < target <= me + 200

    @staticmethod
    def exchange(view: PlayerView) -> tuple[Card, ...]:
        """Throw up to three cards likely to win a trick (section 4); a replacement is a random card."""
        worst = sorted(view.hand, key=lambda c: danger(c.index), reverse=True)[:3]
        throw = [c for c in worst if danger(c.index) >= 9]
        return tuple(c for c in view.hand if c in throw)

    # -- the opponent's hand -------------------------------------------------------------------------
    def samples(self, view: PlayerView, count: int) -> list[int]:
        """``count`` opponent hands (masks) that agree with the view, reweighted by the opponent's bid
        (:func:`spades.bots.hand_sampling.sample_hands` with this player's settings and generator)."""
        settings = self.settings
        return sample_hands(view, count, self.rng, settings.pairs, settings.bid_oversample, settings.bid_read_var)

    # -- values ----------------------------------------------------------------------------------
    def side_value(self, view: PlayerView, side: int, bid: int, double_nil: bool, tricks: int) -> tuple[float, int]:
        """(hand value with the bag cost, new game total) for ``side`` taking ``tricks``."""
        hs = score_player(bid=bid, double_nil=double_nil, tricks=tricks, score_before=view.scores[side],
                          bags_before=view.bags[side], rules=view.rules)
        near_end = max(view.scores) >= view.rules.target - 150
        cost = self.settings.bag_cost / 2 if near_end else self.settings.bag_cost
        return hs.hand_total - cost * (hs.bags_carried - view.bags[side]), hs.game_total

    def utility(self, view: PlayerView) -> list[float]:
        """My value of ending the hand with t tricks, t = 0..13 (both bids known)."""
        me, opp = view.seat, 1 - view.seat
        out = []
        for t in range(14):
            v_me, tot_me = self.side_value(view, me, view.bids[me] or 0, view.double_nil[me], t)
            v_op, tot_op = self.side_value(view, opp, view.bids[opp] or 0, view.double_nil[opp], 13 - t)
            u = v_me - v_op
            if not view.double_nil[me] and (view.bids[me] or 0) > t:
                u -= self.settings.set_malus
            totals = (tot_me, tot_op) if me == 0 else (tot_op, tot_me)
            over = winner_after_hand(totals, view.rules)
            if over:
                u += WIN_BONUS if over[0] == me else -WIN_BONUS
            out.append(u)
        return out

    # -- bidding ---------------------------------------------------------------------------------
    def bid(self, view: PlayerView) -> int:
        """The bid (0 to 13) with the best expected value over sampled opponent hands (section 5)."""
        me, opp = view.seat, 1 - view.seat
        a = 0
        for c in view.hand:
            a |= 1 << c.index
        lead_me = me != view.first_player
        opp_bid = view.bids[opp]
        opp_nil = view.double_nil[opp] or opp_bid == 0
        started = time.perf_counter()
        deadline = started + self.settings.hard_cap_s
        tricks: list[int] = []
        clean: list[bool] = []
        abort = started + self.settings.abort_s
        max_deal = Deal(list(range(14)), (13, 13 if opp_bid is None else opp_bid), (False, opp_nil), abort)
        nil_deal = Deal([1.0] + [0.0] * 13, (0, 13 if opp_bid is None else opp_bid), (True, opp_nil), abort)
        for b in self.samples(view, self.bid_samples):
            try:
                took = round(max_deal.rollout(a, b, lead_me, 0, 0, False, self.bid_exact))
                survived = nil_deal.rollout(a, b, lead_me, 0, 0, False, self.bid_exact) > 0.5
            except TimeUp:
                break
            tricks.append(took)
            clean.append(survived)
            if time.perf_counter() > deadline:
                break
        if not tricks:  # not one sample in time (a machine far too loaded): bid the rough count
            return max(1, min(13, round(estimate_tricks([c.index for c in view.hand]))))
        opp_score = view.scores[opp]
        opp_gain = 10 * opp_bid if opp_bid else (100 if opp_nil else 50)
        target = view.rules.target

        def ending(total: int) -> float:
            if total >= target and total > opp_score + opp_gain:
                return WIN_BONUS / 2
            return 0.0

        best_bid, best_value = 1, -1e18
        n = len(tricks)
        # the samples are played with every card seen; at the table a nil bidder cannot see where the
        # danger is, and nils fail more often than that: count the chance lower
        p_nil = max(0.0, sum(clean) / n - self.settings.nil_doubt)
        v_ok, tot_ok = self.side_value(view, me, 0, False, 0)
        v_bad, tot_bad = self.side_value(view, me, 0, False, 1)
        nil_value = p_nil * (v_ok + ending(tot_ok)) + (1 - p_nil) * (v_bad + ending(tot_bad))
        # Each sample's count is spread over one trick either side, a little more below: the samples
        # are played with every card seen, and the best of 13 noisy averages would otherwise favour
        # the bids whose chance was overestimated (the winner's curse), setting the bidder too often.
        # (A count that every sample agrees on is a certainty, and is not spread.)
        spread: dict[int, float] = {}
        shape = self.settings.spread if min(tricks) < max(tricks) else ((0, 1.0),)
        for t in tricks:
            for offset, weight in shape:
                got = min(13, max(0, t + offset))
                spread[got] = spread.get(got, 0.0) + weight / n
        for bid in range(1, 14):
            value = 0.0
            for t, weight in spread.items():
                got = bid + (t - bid + 1) // 2 if t >= bid else t
                v, tot = self.side_value(view, me, bid, False, got)
                value += weight * (v + ending(tot))
            if value > best_value:
                best_bid, best_value = bid, value
        if nil_value > best_value:
            return 0
        return best_bid

    # -- card play -------------------------------------------------------------------------------
    def play(self, view: PlayerView) -> Card:
        """The card with the best average utility over sampled deals (section 6)."""
        cards = view.playable
        if len(cards) == 1:
            return cards[0]
        me, opp = view.seat, 1 - view.seat
        a = 0
        for card in view.hand:
            a |= 1 << card.index
        allowed = 0
        for card in cards:
            allowed |= 1 << card.index
        pool, _ = unseen(view)
        others = 0
        for c in pool:
            others |= 1 << c
        lead = view.trick[0][1].index if view.trick else -1
        if lead >= 0:
            others |= 1 << lead
        candidates = reps(a, others, allowed)
        if len(candidates) == 1:
            return DECK[candidates[0]]
        bids = (view.bids[me] or 0, view.bids[opp] or 0)
        nil = (view.double_nil[me] or view.bids[me] == 0, view.double_nil[opp] or view.bids[opp] == 0)
        started = time.perf_counter()
        deal = Deal(self.utility(view), bids, nil, started + self.settings.abort_s)
        t, t_op = view.tricks_won[me], view.tricks_won[opp]
        broken = view.spades_broken
        # from END_EXACT cards in hand on, every sample is searched exactly to the end of the hand
        exact = self.end_exact if len(view.hand) <= self.end_exact else self.exact
        totals = [0.0] * len(candidates)
        lo, hi = self.settings.play_samples
        deadline = started + self.settings.hard_cap_s
        done = 0
        samples = self.samples(view, hi)
        for b in samples:
            values = []
            try:
                for c in candidates:
                    a2 = a ^ (1 << c)
                    if lead >= 0:
                        v = deal.finish_trick(a2, b, False, lead, c, t, t_op, broken, exact)
                    elif bin(a).count("1") <= exact:
                        v = deal.answer(a2, b, True, c, t, broken)
                    else:
                        mode = deal.mode(1, (t, t_op))
                        f = deal.follow_card(b, a2, c, mode)
                        v = deal.finish_trick(a2, b ^ (1 << f), True, c, f, t, t_op, broken, exact)
                    values.append(v)
            except TimeUp:  # out of time inside this sample: it is dropped, the others decide
                break
            for i, v in enumerate(values):
                totals[i] += v
            done += 1
            if done >= lo and deal.nodes > self.play_nodes or done >= 2 and time.perf_counter() > deadline:
                break
        if not done:  # not one sample in time: the quick rule's card on the first sample
            b, mode = samples[0], deal.mode(0, (t, t_op))
            if lead >= 0:
                return DECK[deal.follow_card(a, b, lead, mode)]
            return DECK[deal.lead_card(a, b, broken, mode)]
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return DECK[candidates[best]]

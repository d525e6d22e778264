"""Fast two-player trick play with every card visible: the search and the rollouts behind ``pimc``.

Cards are the integers 0..51 of :attr:`spades.cards.Card.index` (suit * 13 + rank - 2; suit 0 is
spades), a hand is a 52-bit mask. Seat 0 of a :class:`Deal` is the searching player ("me"),
seat 1 the opponent. Two things are offered:

* :meth:`Deal.solve`: the exact value of the rest of the hand, me maximising and the opponent
  minimising a utility ``U[t]`` of the number of tricks ``t`` I end the hand with (minimax with
  memoisation, equivalent cards searched once, alpha-beta with the bounds kept in the memo);
* :meth:`Deal.rollout`: the rest of the hand played quickly by a rule for each side that sees all
  the cards (win a trick while the bid is short, duck once it is made, duck as a nil bidder, and
  force tricks on an opponent's nil), handing over to :meth:`Deal.solve` for the last tricks.

Rules followed: RULES.md section 6 (follow suit, spades broken, highest spade or highest card
of the suit led wins).
"""

from __future__ import annotations

import time
from typing import Sequence

SUIT_BITS = 0x1FFF
NO_SPADES = ((1 << 52) - 1) ^ SUIT_BITS

WIN, DUCK, AVOID, SET = 0, 1, 2, 3
INF = 1e18
CLOCK_EVERY = 256  # positions between two looks at the clock (when a deadline is set)


class TimeUp(Exception):
    """Raised inside a search once :attr:`Deal.deadline` has passed; the sample is to be dropped."""

_REPS: dict[int, tuple[int, ...]] = {}


def _suit_reps(mine: int, other: int) -> tuple[int, ...]:
    """Ranks (0..12) of ``mine`` worth trying: the lowest of each run with no ``other`` card inside."""
    key = mine << 13 | other
    got = _REPS.get(key)
    if got is None:
        out = []
        open_run = False
        for r in range(13):
            if mine >> r & 1:
                if not open_run:
                    out.append(r)
                    open_run = True
            elif other >> r & 1:
                open_run = False
        got = _REPS[key] = tuple(out)
    return got


def reps(hand: int, other: int, allowed: int) -> list[int]:
    """One card of each group of equivalent cards of ``hand & allowed`` (``other``: the rest in play)."""
    out: list[int] = []
    sel = hand & allowed
    for s in range(4):
        shift = 13 * s
        mine = sel >> shift & SUIT_BITS
        if mine:
            base = shift
            out.extend(base + r for r in _suit_reps(mine, other >> shift & SUIT_BITS))
    return out


def bits(mask: int) -> list[int]:
    """The cards of a mask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def lead_allowed(hand: int, broken: bool) -> int:
    """The cards of ``hand`` that may lead (section 6: no spade lead before spades are broken)."""
    if broken:
        return hand
    return hand & NO_SPADES or hand


def follow_allowed(hand: int, led_suit: int) -> int:
    """The cards of ``hand`` that may follow a lead of ``led_suit`` (section 6: follow suit if you can)."""
    return hand & (SUIT_BITS << 13 * led_suit) or hand


def beats(follow: int, lead: int) -> bool:
    """True when the follower's card wins a two-card trick (section 6)."""
    fs, ls = follow // 13, lead // 13
    if fs == ls:
        return follow > lead
    return fs == 0


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _high(mask: int) -> int:
    return mask.bit_length() - 1


class Deal:
    """The rest of one hand with every card known, from my point of view (seat 0 is me).

    ``utility[t]`` is my value of ending the hand with ``t`` tricks (0..13). ``bids`` and
    ``nil`` drive the rollout rule; ``nodes`` counts the work of every search of one decision.
    ``deadline`` (a :func:`time.perf_counter` value, or ``None``) is looked at every
    :data:`CLOCK_EVERY` positions; once it has passed the search raises :class:`TimeUp`. The
    memo keeps only bounds proven by finished searches, so the deal can still be searched afterwards.
    """

    def __init__(self, utility: Sequence[float], bids: tuple[int, int], nil: tuple[bool, bool],
                 deadline: float | None = None) -> None:
        self.U = list(utility)
        self.bids = bids
        self.nil = nil
        self.memo: dict[tuple[int, int, bool, int, bool], tuple[float, float]] = {}
        # the least and greatest utility still reachable with t tricks taken and k to play
        self.umin = [[min(self.U[t:t + k + 1]) for k in range(14)] for t in range(14)]
        self.umax = [[max(self.U[t:t + k + 1]) for k in range(14)] for t in range(14)]
        self.nodes = 0
        self.deadline = deadline

    def _tick(self) -> None:
        self.nodes += 1
        if self.deadline is not None and not self.nodes % CLOCK_EVERY and time.perf_counter() > self.deadline:
            raise TimeUp

    # -- exact search ------------------------------------------------------------------------
    def solve(self, a: int, b: int, lead_me: bool, t: int, broken: bool,
              alpha: float = -INF, beta: float = INF) -> float:
        """My value at the start of a trick: ``a`` my cards, ``b`` the opponent's, ``t`` my tricks so far.

        Alpha-beta (fail-soft): the value is exact when it lies strictly inside ``(alpha, beta)``;
        otherwise it is a bound on the far side of the window. The memo keeps, for each position,
        the bounds found so far (exact when they meet), and the utility's least and greatest value
        over the tricks still to play bound every position before any search.
        """
        if not a:
            return self.U[t]
        key = (a, b, lead_me, t, broken)
        memo = self.memo
        got = memo.get(key)
        if got is not None:
            lo, hi = got
            if lo == hi or lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        else:
            k = a.bit_count()
            lo, hi = self.umin[t][k], self.umax[t][k]
            if lo == hi or lo >= beta:
                return lo
            if hi <= alpha:
                return hi
        a0, b0 = alpha, beta
        self._tick()
        if lead_me:
            best = -INF
            for lead in reps(a, b, lead_allowed(a, broken)):
                v = self.answer(a ^ (1 << lead), b, True, lead, t, broken, alpha if alpha > best else best, beta)
                if v > best:
                    best = v
                    if best >= beta:
                        break
        else:
            best = INF
            for lead in reps(b, a, lead_allowed(b, broken)):
                v = self.answer(a, b ^ (1 << lead), False, lead, t, broken, alpha, beta if beta < best else best)
                if v < best:
                    best = v
                    if best <= alpha:
                        break
        if best <= a0:
            hi = best if best < hi else hi
        elif best >= b0:
            lo = best if best > lo else lo
        else:
            lo = hi = best
        memo[key] = (lo, hi)
        return best

    def answer(self, a: int, b: int, lead_me: bool, lead: int, t: int, broken: bool,
               alpha: float = -INF, beta: float = INF) -> float:
        """The value once ``lead`` is on the table (already taken from its owner's mask), the follower
        choosing best; alpha-beta in the window ``(alpha, beta)`` as :meth:`solve`."""
        ls = lead // 13
        if ls == 0:
            broken = True
        if lead_me:  # the opponent follows, minimising
            best = INF
            for f in reps(b, a | 1 << lead, follow_allowed(b, ls)):
                fs = f // 13
                won = (f > lead) if fs == ls else fs == 0
                nb = broken or fs == 0
                v = self.solve(a, b ^ (1 << f), not won, t + (not won), nb, alpha, beta if beta < best else best)
                if v < best:
                    best = v
                    if best <= alpha:
                        break
            return best
        best = -INF
        for f in reps(a, b | 1 << lead, follow_allowed(a, ls)):
            fs = f // 13
            won = (f > lead) if fs == ls else fs == 0
            nb = broken or fs == 0
            v = self.solve(a ^ (1 << f), b, won, t + won, nb, alpha if alpha > best else best, beta)
            if v > best:
                best = v
                if best >= beta:
                    break
        return best

    # -- the quick rule --------------------------------------------------------------------------
    def mode(self, side: int, tricks: Sequence[int]) -> int:
        """What ``side`` plays for now: WIN, DUCK, AVOID (a nil still clean) or SET (the other's nil)."""
        other = 1 - side
        if self.nil[side]:
            return AVOID if tricks[side] == 0 else WIN
        if self.nil[other] and tricks[other] == 0:
            return SET
        if tricks[side] < self.bids[side]:
            return WIN
        if not self.nil[other] and tricks[other] < self.bids[other]:
            return WIN  # try to set the opponent
        return DUCK

    @staticmethod
    def lead_card(me: int, op: int, broken: bool, mode: int) -> int:
        allowed = lead_allowed(me, broken)
        if mode == WIN:
            for s in (1, 2, 3, 0):
                mine = allowed >> 13 * s & SUIT_BITS
                if not mine:
                    continue
                theirs = op >> 13 * s & SUIT_BITS
                top = _high(mine)
                if theirs >> top:  # they hold a higher card
                    continue
                if s and not theirs and op & SUIT_BITS:  # they can trump it
                    continue
                return 13 * s + top
            # no sure winner: lead low from a side suit
            side = allowed & NO_SPADES or allowed
            return min(bits(side), key=lambda c: c % 13)
        if mode == SET:  # make the nil bidder win: a suit where all their cards beat my lowest
            choice = -1
            for s in (1, 2, 3, 0):
                mine = allowed >> 13 * s & SUIT_BITS
                theirs = op >> 13 * s & SUIT_BITS
                if mine and theirs and _low(theirs) > _low(mine):
                    c = 13 * s + _low(mine)
                    if choice < 0 or c % 13 < choice % 13:
                        choice = c
            if choice >= 0:
                return choice
            return min(bits(allowed), key=lambda c: (c // 13 == 0, c % 13))
        # DUCK / AVOID: lead low where they hold something higher
        choice = -1
        margin = -1
        for s in (1, 2, 3, 0):
            mine = allowed >> 13 * s & SUIT_BITS
            if not mine:
                continue
            low = _low(mine)
            theirs = op >> 13 * s & SUIT_BITS
            above = bin(theirs >> (low + 1)).count("1")
            if above > margin:
                margin, choice = above, 13 * s + low
        return choice

    @staticmethod
    def follow_card(me: int, op_left: int, lead: int, mode: int) -> int:
        ls = lead // 13
        allowed = follow_allowed(me, ls)
        cards = bits(allowed)
        winners = [c for c in cards if beats(c, lead)]
        losers = [c for c in cards if not beats(c, lead)]
        if mode == WIN:
            if winners:
                return min(winners, key=lambda c: (c // 13 == 0 and ls != 0, c % 13))
            return min(losers, key=lambda c: (c // 13 == 0, c % 13))
        if mode == SET:  # the nil bidder led: stay under it, keeping low cards for later
            if losers:
                return max(losers, key=lambda c: (c // 13 != 0, c % 13))
            return min(winners, key=lambda c: c % 13)
        if losers:  # DUCK / AVOID: shed the highest card that still loses
            return max(losers, key=lambda c: (c // 13 != 0, c % 13))
        if mode == AVOID:
            return max(winners, key=lambda c: c % 13)
        return min(winners, key=lambda c: c % 13)

    def rollout(self, a: int, b: int, lead_me: bool, t: int, t_op: int, broken: bool, exact: int) -> float:
        """Play the rest by the quick rule until ``exact`` tricks are left, then search them exactly."""
        hands = [a, b]
        tricks = [t, t_op]
        leader = 0 if lead_me else 1
        while bin(hands[0]).count("1") > exact:
            follower = 1 - leader
            lead = self.lead_card(hands[leader], hands[follower], broken, self.mode(leader, tricks))
            hands[leader] ^= 1 << lead
            f = self.follow_card(hands[follower], hands[leader], lead, self.mode(follower, tricks))
            hands[follower] ^= 1 << f
            if lead // 13 == 0 or f // 13 == 0:
                broken = True
            winner = follower if beats(f, lead) else leader
            tricks[winner] += 1
            leader = winner
            self._tick()
        return self.solve(hands[0], hands[1], leader == 0, tricks[0], broken)

    def finish_trick(self, a: int, b: int, lead_me: bool, lead: int, follow: int, t: int, t_op: int,
                     broken: bool, exact: int) -> float:
        """The value once a whole trick (``lead`` then ``follow``, both taken from the masks) is played."""
        won_by_follower = beats(follow, lead)
        me_won = won_by_follower != lead_me
        if lead // 13 == 0 or follow // 13 == 0:
            broken = True
        t2, o2 = t + me_won, t_op + (not me_won)
        if bin(a).count("1") <= exact:
            return self.solve(a, b, me_won, t2, broken)
        return self.rollout(a, b, me_won, t2, o2, broken, exact)

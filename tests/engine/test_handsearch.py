"""``spades.bots.handsearch``: the alpha-beta search gives the exact minimax value of the rest of a hand.

RULES.md section 6 (follow suit, spades broken, the highest spade or the highest card of the suit
led wins the trick).
"""

from __future__ import annotations

import random

from spades.bots.handsearch import Deal, beats, follow_allowed, lead_allowed


def minimax(U: list[float], a: int, b: int, lead_me: bool, t: int, broken: bool) -> float:
    """Plain minimax over every legal card, no memo, no cut: the reference value."""
    if not a:
        return U[t]
    leader, follower = (a, b) if lead_me else (b, a)
    pick = max if lead_me else min
    values = []
    for lead in range(52):
        if not lead_allowed(leader, broken) >> lead & 1:
            continue
        answers = []
        for f in range(52):
            if not follow_allowed(follower, lead // 13) >> f & 1:
                continue
            me_won = beats(f, lead) != lead_me
            nb = broken or lead < 13 or f < 13
            na, nb_ = (a ^ 1 << lead, b ^ 1 << f) if lead_me else (a ^ 1 << f, b ^ 1 << lead)
            answers.append(minimax(U, na, nb_, me_won, t + me_won, nb))
        values.append((min if lead_me else max)(answers))
    return pick(values)


def test_alpha_beta_search_equals_plain_minimax_on_random_positions() -> None:
    """Section 6: the same value as trying every card, for trick counts and for uneven utilities."""
    rng = random.Random(7)
    for i in range(120):
        k = rng.randint(1, 4)
        cards = rng.sample(range(52), 2 * k)
        a = sum(1 << c for c in cards[:k])
        b = sum(1 << c for c in cards[k:])
        U = [float(x) for x in range(14)] if i % 3 == 0 else [rng.uniform(-100, 100) for _ in range(14)]
        t = rng.randint(0, 13 - k)
        lead_me, broken = rng.random() < 0.5, rng.random() < 0.5
        deal = Deal(U, (13, 13), (False, False))
        assert abs(deal.solve(a, b, lead_me, t, broken) - minimax(U, a, b, lead_me, t, broken)) < 1e-9
        # a second search on the same memo (bounds kept from the first) agrees too
        assert abs(deal.solve(a, b, lead_me, t, broken) - minimax(U, a, b, lead_me, t, broken)) < 1e-9

"""Scoring one hand, and deciding whether the game is over (RULES.md sections 4, 5, 7, 8, 9; D6, D8, D9)."""

from __future__ import annotations

from .events import HandScore, HouseRules

BAG_LIMIT = 10
SANDBAG_PENALTY = 100


def score_player(
    bid: int,
    double_nil: bool,
    tricks: int,
    score_before: int,
    bags_before: int,
    rules: HouseRules,
) -> HandScore:
    """One player's :class:`HandScore` for a hand.

    * bid 1-13 made: 10 a trick bid + 1 a trick above (each a bag); set: -10 a trick bid (section 7).
    * nil (bid 0): +100 / -100 (section 5); double nil: +200 / -200 (section 4).
    * a failed nil's tricks are bags only under the D6 house rule.
    * each time the running count of bags reaches 10: -100, the rest carries over (section 8).
    """
    if double_nil or bid == 0:
        contract = "double_nil" if double_nil else "nil"
        made = tricks == 0
        worth = 200 if double_nil else 100
        nil_points = worth if made else -worth
        bid_points = 0
        bags = tricks if (not made and rules.failed_nil_bags) else 0
        bid = 0
    else:
        contract = "bid"
        made = tricks >= bid
        nil_points = 0
        bags = tricks - bid if made else 0
        bid_points = 10 * bid + bags if made else -10 * bid
    running = bags_before + bags
    penalty = 0
    while running >= BAG_LIMIT:
        running -= BAG_LIMIT
        penalty -= SANDBAG_PENALTY
    total = bid_points + nil_points + penalty
    return HandScore(
        contract=contract, bid=bid, tricks=tricks, made=made, bid_points=bid_points, bags=bags,
        nil_points=nil_points, sandbag_penalty=penalty, hand_total=total,
        game_total=score_before + total, bags_carried=running,
    )


def winner_after_hand(scores: tuple[int, int], rules: HouseRules) -> tuple[int, str] | None:
    """``(winner, reason)`` if the game is over after a hand with these totals, else ``None``.

    D9: over when at least one player has reached the target and the scores differ; the higher
    wins. Equal scores always mean another hand. D8 house rule: a player at or below the floor
    loses, with the same tie rule.
    """
    a, b = scores
    if a == b:
        return None
    if max(a, b) >= rules.target:
        return (0 if a > b else 1), "score"
    if rules.floor is not None and min(a, b) <= rules.floor:
        return (0 if a > b else 1), "floor"
    return None

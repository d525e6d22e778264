"""Scoring and the end of the game (RULES.md sections 4, 5, 7, 8, 9; D6, D8, D9)."""

from __future__ import annotations

from spades.events import DEFAULT_FLOOR, HouseRules
from spades.scoring import score_player, winner_after_hand

RULES = HouseRules()


def test_section_7_karen_bids_7_wins_8_scores_71_and_1_bag() -> None:
    s = score_player(bid=7, double_nil=False, tricks=8, score_before=0, bags_before=0, rules=RULES)
    assert (s.bid_points, s.bags, s.hand_total, s.game_total, s.bags_carried, s.made) == (71, 1, 71, 71, 1, True)


def test_section_7_set_loses_10_per_trick_bid() -> None:
    s = score_player(bid=5, double_nil=False, tricks=4, score_before=30, bags_before=2, rules=RULES)
    assert (s.made, s.bid_points, s.bags, s.hand_total, s.game_total, s.bags_carried) == (False, -50, 0, -50, -20, 2)


def test_section_8_bonnie_11_bags_loses_100_and_carries_1() -> None:
    """Bonnie bids 4 wins 7, bids 3 wins 6, bids 4 wins 9.

    RULES.md writes "3 + 3 + 4 = 11", but bidding 4 and winning 9 is 5 bags: 3 + 3 + 5 = 11.
    What we assert is the stated outcome: 11 bags in all, 100 points lost, 1 bag carried over.
    """
    score, bags = 0, 0
    totals = []
    for bid, won in ((4, 7), (3, 6), (4, 9)):
        s = score_player(bid=bid, double_nil=False, tricks=won, score_before=score, bags_before=bags, rules=RULES)
        score, bags = s.game_total, s.bags_carried
        totals.append(s)
    assert sum(s.bags for s in totals) == 11
    assert [s.sandbag_penalty for s in totals] == [0, 0, -100]
    assert totals[-1].bags_carried == 1
    assert totals[-1].hand_total == 45 - 100
    assert score == 43 + 33 + 45 - 100
    # "Nine more bags cost her another 100."
    s = score_player(bid=1, double_nil=False, tricks=10, score_before=score, bags_before=bags, rules=RULES)
    assert (s.bags, s.sandbag_penalty, s.bags_carried) == (9, -100, 0)


def test_section_5_nil_scores_plus_or_minus_100() -> None:
    made = score_player(bid=0, double_nil=False, tricks=0, score_before=0, bags_before=0, rules=RULES)
    failed = score_player(bid=0, double_nil=False, tricks=2, score_before=0, bags_before=0, rules=RULES)
    assert (made.contract, made.nil_points, made.hand_total) == ("nil", 100, 100)
    assert (failed.nil_points, failed.bags, failed.bid_points, failed.hand_total) == (-100, 0, 0, -100)


def test_section_4_double_nil_scores_plus_or_minus_200() -> None:
    made = score_player(bid=0, double_nil=True, tricks=0, score_before=0, bags_before=0, rules=RULES)
    failed = score_player(bid=0, double_nil=True, tricks=1, score_before=0, bags_before=0, rules=RULES)
    assert (made.contract, made.hand_total, failed.hand_total) == ("double_nil", 200, -200)


def test_d6_failed_nil_tricks_are_not_bags_by_default_and_are_with_the_house_rule() -> None:
    house = HouseRules(failed_nil_bags=True)
    default = score_player(bid=0, double_nil=False, tricks=3, score_before=0, bags_before=8, rules=RULES)
    counted = score_player(bid=0, double_nil=False, tricks=3, score_before=0, bags_before=8, rules=house)
    assert (default.bags, default.bags_carried, default.hand_total) == (0, 8, -100)
    assert (counted.bags, counted.bags_carried, counted.sandbag_penalty, counted.hand_total) == (3, 1, -100, -200)
    dn = score_player(bid=0, double_nil=True, tricks=2, score_before=0, bags_before=0, rules=house)
    assert (dn.bags, dn.hand_total) == (2, -200)


def test_section_9_first_to_500_wins() -> None:
    assert winner_after_hand((500, 480), RULES) == (0, "score")
    assert winner_after_hand((120, 510), RULES) == (1, "score")
    assert winner_after_hand((499, 480), RULES) is None


def test_section_9_both_over_500_higher_wins() -> None:
    assert winner_after_hand((530, 560), RULES) == (1, "score")
    assert winner_after_hand((601, 600), RULES) == (0, "score")


def test_d9_equal_scores_play_another_hand_whatever_they_are() -> None:
    assert winner_after_hand((520, 520), RULES) is None
    assert winner_after_hand((500, 500), RULES) is None
    assert winner_after_hand((-300, -300), HouseRules(floor=-200)) is None


def test_d8_no_floor_by_default_and_a_floor_as_house_rule() -> None:
    assert winner_after_hand((-900, 100), RULES) is None
    floor = HouseRules(floor=DEFAULT_FLOOR)
    assert winner_after_hand((-200, 100), floor) == (1, "floor")
    assert winner_after_hand((50, -250), floor) == (0, "floor")
    assert winner_after_hand((-199, 100), floor) is None

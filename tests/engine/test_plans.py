"""Answers given ahead (RULES D12): plans apply as the player's own moves, at the first moment they are legal."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from spades.cards import Suit, parse_card
from spades.commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Exchange, Keep, Play
from spades.dealer import Dealer
from spades.events import AUTO_PLAN, BidMade, CardPlayed, Event, HouseRules, redact, to_dict
from spades.game import Game, decide, fold, legal_moves, new_game
from spades.plans import (
    FOLLOW,
    GONE,
    HIGH,
    LOW,
    UNBROKEN,
    WIN,
    Follow,
    Plan,
    PlanError,
    check,
    next_move,
    play_ahead,
    resolve,
    track,
)
from spades.replay import ReplayError, verify_log

from .helpers import cards, run, to_play

H, S, D, C = Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS
HAND0 = "AS KS 2S 9H 4H 3H KD 5D 2D QC 8C 4C 3C"
HAND1 = "QS 3S AH KH 8H 7H 2H AD QD 9D 7C 6C 5C"


def c(code: str):  # type: ignore[no-untyped-def]
    return parse_card(code)


def folder(dealer: Dealer):  # type: ignore[no-untyped-def]
    def decide_fold(game: Game, command: Command) -> list[Event]:
        events = decide(game, command, dealer)
        fold(events, game)
        return events
    return decide_fold


def playing(leader: int = 1) -> tuple[Game, list[Event]]:
    """Hand 1 in play, bids 3-3: seat 1 (the second player) leads first (section 5)."""
    game, events = to_play(HAND0, HAND1, first=0)
    assert game.phase == "play" and game.movers == (leader,)
    return game, events


def test_d12_a_planned_follow_plays_at_once_when_the_opponent_leads_its_suit() -> None:
    game, events = playing()
    plans = [Plan(1, follows=(Follow(H, c("4H")),)), None]
    run(game, events, Play(1, c("7H")))
    ahead = play_ahead(game, track(plans, (), events[-1:]), folder(Dealer(seed=1)))
    played = [e for e in ahead.events if isinstance(e, CardPlayed)]
    assert played == [CardPlayed(0, c("4H"), AUTO_PLAN)]
    assert game.movers == (1,) and game.tricks_won == [0, 1]  # 7H won; seat 1 leads again
    assert ahead.plans[0] is None  # spent: the plan held nothing else


def test_d12_the_opponent_sees_an_ordinary_move_and_the_owner_where_it_came_from() -> None:
    event = CardPlayed(0, c("4H"), AUTO_PLAN)
    assert redact(event, 0)["auto"] == AUTO_PLAN
    assert "auto" not in redact(event, 1)
    assert "auto" not in redact(BidMade(1, 4, AUTO_PLAN), 0)
    assert to_dict(BidMade(1, 4))["type"] == "bid_made" and "auto" not in to_dict(BidMade(1, 4))


@pytest.mark.parametrize(("hand", "led", "rule", "want"), [
    ("9H 4H 3H KD", "7H", LOW, "3H"),
    ("9H 4H 3H KD", "7H", WIN, "9H"),
    ("9H 4H 3H KD", "10H", WIN, "3H"),  # nothing of the suit wins: the lowest
    ("9H 4H 3H KD", "7H", HIGH, "9H"),
    ("AS 2S KD 5D 3C", "7H", LOW, "3C"),  # void: the lowest card that is not a spade
    ("AS 2S KD 5D 3C", "7H", WIN, "2S"),  # void: the lowest spade wins it
    ("AS 2S KD 5D 3C", "7H", HIGH, "KD"),  # void: the highest card that is not a spade
    ("AS 2S", "7H", LOW, "2S"),
    ("AS 2S 5D", "7S", WIN, "AS"),
])
def test_d12_the_rules_lowest_lowest_that_wins_highest(hand: str, led: str, rule: str, want: str) -> None:
    assert resolve(rule, cards(hand), [(1, c(led))]) == c(want)


def test_d12_a_follow_for_the_next_trick_is_spent_with_it_an_always_follow_stays() -> None:
    game, events = playing()
    plans = [Plan(1, follows=(Follow(H, LOW), Follow(C, WIN, always=True), Follow(D, HIGH))), None]
    run(game, events, Play(1, c("5C")))
    ahead = play_ahead(game, track(plans, (), events[-1:]), folder(Dealer(seed=1)))
    assert [e.card.code for e in ahead.events if isinstance(e, CardPlayed)] == ["8C"]  # lowest club that wins
    assert ahead.plans[0] == Plan(1, follows=(Follow(C, WIN, always=True),))  # H and D were for that trick


def test_d12_leads_in_order_and_two_plans_play_tricks_in_one_sitting() -> None:
    game, events = playing()
    plans = [Plan(1, follows=(Follow(H, LOW, True), Follow(D, LOW, True), Follow(C, LOW, True))),
             Plan(1, leads=(c("AH"), c("KH"), c("AD")))]
    ahead = play_ahead(game, plans, folder(Dealer(seed=1)))
    played = [(e.seat, e.card.code) for e in ahead.events if isinstance(e, CardPlayed)]
    assert played == [(1, "AH"), (0, "3H"), (1, "KH"), (0, "4H"), (1, "AD"), (0, "2D")]
    assert game.tricks_won == [0, 3] and game.movers == (1,)  # the leads are spent: seat 1 is asked
    assert ahead.plans[1] is None


def test_d12_an_entry_that_can_no_longer_apply_is_dropped_and_the_player_asked() -> None:
    game, events = playing()
    # seat 0 planned to play AS on hearts, but holds hearts: the rules require a heart (section 6)
    plan = Plan(1, follows=(Follow(H, c("AS")),))
    run(game, events, Play(1, c("7H")))
    ahead = play_ahead(game, [plan, None], folder(Dealer(seed=1)))
    assert ahead.events == [] and game.movers == (0,)
    assert [(d.reason, d.card) for d in ahead.dropped[0]] == [(FOLLOW, c("AS"))]
    # a lead of a card that has gone
    game, events = playing()
    run(game, events, Play(1, c("7H")), Play(0, c("9H")))  # seat 0 wins and leads
    stale = Plan(1, leads=(c("9H"), c("KD")))
    command, after, dropped = next_move(game, 0, stale)
    assert command is None and dropped is not None and dropped.reason == GONE
    assert after is not None and after.leads == (c("KD"),)


def test_d12_a_spade_lead_before_spades_are_broken_is_dropped() -> None:
    game, events = playing()
    run(game, events, Play(1, c("7H")), Play(0, c("9H")))
    command, _, dropped = next_move(game, 0, Plan(1, leads=(c("AS"),)))
    assert command is None and dropped is not None and dropped.reason == UNBROKEN


def test_d12_bids_given_ahead_whatever_and_by_the_opponents_bid() -> None:
    dealer = Dealer(seed=3)
    events = list(new_game("b", HouseRules(), dealer))
    game = fold(events)
    while game.phase == "draw":
        seat = game.movers[0]
        run(game, events, DeclineDoubleNil(seat) if game.offer_pending(seat) else Keep(seat), dealer=dealer)
    second, first = game.second_player, game.first_player
    plans: list[Plan | None] = [None, None]
    plans[first] = Plan(1, bid=3, bid_if=((0, 2, 5), (6, 13, 2)))
    plans[second] = Plan(1, bid=7)
    ahead = play_ahead(game, plans, folder(dealer))
    bids = [(e.seat, e.tricks, e.auto) for e in ahead.events if isinstance(e, BidMade)]
    assert bids == [(second, 7, AUTO_PLAN), (first, 2, AUTO_PLAN)]  # 7 is in 6-13: bid 2
    assert game.phase == "play"


def test_d12_the_exchange_given_with_the_double_nil() -> None:
    dealer = Dealer(seed=5)
    events = list(new_game("x", HouseRules(), dealer))
    game = fold(events)
    first = game.first_player
    run(game, events, DeclareDoubleNil(first), dealer=dealer)
    plans: list[Plan | None] = [None, None]
    plans[first] = Plan(1, swap_high=3)
    while game.phase == "draw":
        seat = game.movers[0]
        run(game, events, DeclineDoubleNil(seat) if game.offer_pending(seat) else Keep(seat), dealer=dealer)
    hand = list(game.hands[first])
    ahead = play_ahead(game, plans, folder(dealer))
    thrown = ahead.events[0]
    assert isinstance(thrown, type(ahead.events[0])) and getattr(thrown, "auto") == AUTO_PLAN
    assert sorted(c.rank for c in thrown.thrown) == sorted(c.rank for c in hand)[-3:]  # type: ignore[attr-defined]


def test_d12_a_plan_ends_with_its_hand() -> None:
    plan = Plan(1, leads=(c("AH"),))
    from spades.events import HandScored
    assert track([plan, None], (), [HandScored(1, ())])[0] is None  # type: ignore[arg-type]


def test_d12_a_plan_is_checked_when_given() -> None:
    game, events = playing()
    with pytest.raises(PlanError) as e:
        check(game, 0, Plan(1, follows=(Follow(H, c("AH")),)))  # not in the hand
    assert e.value.reason == GONE
    with pytest.raises(PlanError) as e:
        check(game, 0, Plan(1, follows=(Follow(H, c("KD")),)))  # holds hearts
    assert e.value.reason == FOLLOW
    with pytest.raises(PlanError) as e:
        check(game, 0, Plan(1, leads=(c("AS"),)))  # spades not broken
    assert e.value.reason == UNBROKEN
    with pytest.raises(PlanError) as e:
        check(game, 0, Plan(1, bid=4))  # the bids are made
    assert e.value.reason == "bid"
    with pytest.raises(PlanError) as e:
        check(game, 0, Plan(2, leads=(c("KD"),)))  # not this hand
    assert e.value.reason == "over"
    check(game, 0, Plan(1, follows=(Follow(H, c("4H")), Follow(S, WIN, True)), leads=(c("KD"), c("QC"))))


def test_d12_a_plan_is_stored_and_read_back() -> None:
    plan = Plan(3, (Follow(H, c("4H")), Follow(D, LOW, True)), (c("AS"), c("KS")), 4, ((0, 3, 5),), None, 3)
    assert Plan.loads(plan.dumps()) == plan
    assert Plan.loads("not json") is None and Plan.loads("") is None


def test_d12_replay_checks_a_planned_move_as_the_players_own() -> None:
    game, events = playing()
    run(game, events, Play(1, c("7H")))
    ahead = play_ahead(game, [Plan(1, follows=(Follow(H, c("4H")),)), None], folder(Dealer(seed=0)))
    log = events + ahead.events
    verify_log(log)
    bad = [replace(e, card=c("KD")) if isinstance(e, CardPlayed) and e.auto == AUTO_PLAN else e for e in log]
    with pytest.raises(ReplayError):
        verify_log(bad)  # a "planned" diamond on a heart lead, holding hearts


# -- the property: a game with plans is the game where each planned move is sent by hand -----------------------
def _random_plan(rng: random.Random, game: Game, seat: int) -> Plan | None:
    hand = game.hands[seat]
    follows = []
    for suit in rng.sample(list(Suit), rng.randrange(0, 5)):
        mine = [x for x in hand if x.suit is suit] or list(hand)
        play = rng.choice([LOW, WIN, HIGH, *mine]) if hand else LOW
        follows.append(Follow(suit, play, rng.random() < 0.5))
    leads = tuple(rng.sample(hand, min(len(hand), rng.randrange(0, 4))))
    bid = rng.randrange(0, 8) if rng.random() < 0.5 else None
    plan = Plan(game.hand_no, tuple(follows), leads, bid, ((0, 3, rng.randrange(0, 8)),) if rng.random() < .3 else ())
    for candidate in (plan, replace(plan, bid=None, bid_if=()), replace(plan, leads=()),
                      replace(plan, leads=(), bid=None, bid_if=())):
        try:
            check(game, seat, candidate)
            return candidate
        except PlanError:
            continue
    return None


def _strip(events: list[Event]) -> list[Event]:
    return [replace(e, auto="") if getattr(e, "auto", "") == AUTO_PLAN else e for e in events]  # type: ignore[type-var]


@pytest.mark.parametrize("seed", range(40))
def test_d12_property_a_game_with_plans_is_the_game_with_each_planned_move_sent_then(seed: int) -> None:
    rng = random.Random(seed)
    dealer = Dealer(seed=seed)
    log = list(new_game(f"p{seed}", HouseRules(), dealer))
    game = fold(log)
    plans: list[Plan | None] = [None, None]
    sent: list[Command] = []  # every move in order, planned or by hand
    decide_fold = folder(dealer)
    while game.phase != "over" and game.hand_no <= 3:
        if rng.random() < 0.4 and game.phase != "over":
            seat = rng.randrange(2)
            new = _random_plan(rng, game, seat)
            if new is not None:
                plans[seat] = new if plans[seat] is None else plans[seat].merged(new)  # type: ignore[union-attr]
        ahead = play_ahead(game, plans, decide_fold)
        plans = ahead.plans
        log += ahead.events
        sent += [_command(e) for e in ahead.events if getattr(e, "auto", "") == AUTO_PLAN]
        if game.phase == "over" or game.hand_no > 3:
            break
        seat = game.movers[rng.randrange(len(game.movers))]
        options = legal_moves(game, seat)
        command = rng.choice(options[:20])
        trick = tuple(game.trick)
        events = decide_fold(game, command)
        log += events
        sent.append(command)
        plans = track(plans, trick, events)
    assert any(getattr(e, "auto", "") == AUTO_PLAN for e in log), "no plan applied: a weak case"
    # the same game, every move sent by hand
    dealer2 = Dealer(seed=seed)
    again = list(new_game(f"p{seed}", HouseRules(), dealer2))
    game2 = fold(again)
    for command in sent:
        events = decide(game2, command, dealer2)
        fold(events, game2)
        again += events
    assert again == _strip(log)
    verify_log(log)


def _command(event: Event) -> Command:
    if isinstance(event, CardPlayed):
        return Play(event.seat, event.card)
    if isinstance(event, BidMade):
        return Bid(event.seat, event.tricks)
    return Exchange(event.seat, event.thrown)  # type: ignore[attr-defined]

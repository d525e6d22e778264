"""The rules, move by move: roles, the draw, double nil, bidding, play, errors (RULES.md sections 2-6, 9; D1-D9)."""

from __future__ import annotations

from typing import Sequence

import pytest

from spades import errors
from spades.cards import DECK, Card, Suit, parse_card
from spades.commands import (
    Bid,
    DeclareDoubleNil,
    DeclineDoubleNil,
    Discard,
    Exchange,
    Forfeit,
    Keep,
    Play,
)
from spades.dealer import Dealer
from spades.events import (
    BidMade,
    CardsExchanged,
    DoubleNilDeclined,
    DrawDecided,
    GameEnded,
    HandScored,
    HandStarted,
    HouseRules,
    TrickWon,
)
from spades.game import decide, fold, legal_moves, new_game, view

from .helpers import SUITED, cards, deck_for, draw_all_keep, run, snapshot, start, to_play

C = parse_card


def rejected(game, command, error: type, *words: str) -> errors.RuleError:  # type: ignore[no-untyped-def]
    """``command`` raises ``error`` naming ``words``, carries the legal moves, and changes nothing."""
    before = snapshot(game)
    with pytest.raises(error) as info:
        decide(game, command, Dealer(seed=0))
    assert type(info.value) is error
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    assert info.value.legal == tuple(legal_moves(game, command.seat))
    assert snapshot(game) == before
    return info.value


def play_hand(game, events) -> None:  # type: ignore[no-untyped-def]
    """Play out the hand, each player playing the first card the rules allow."""
    hand = game.hand_no
    while game.hand_no == hand and game.phase == "play":
        seat = game.to_move
        run(game, events, legal_moves(game, seat)[0])


# -- section 2 and D1: roles ------------------------------------------------------------------
def test_d1_first_player_is_drawn_and_recorded() -> None:
    firsts = {new_game("g", dealer=Dealer(seed=s))[0].first_player for s in range(20)}
    assert firsts == {0, 1}
    events = new_game("g", dealer=Dealer(seed=4))
    assert events[1].first_player == events[0].first_player and sorted(events[1].deck, key=DECK.index) == list(DECK)


def test_section_2_first_player_draws_first_second_bids_first_and_leads() -> None:
    game, events = to_play(SUITED["H"], SUITED["D"], bids=(2, 5), first=1)
    assert [e.seat for e in events if isinstance(e, DoubleNilDeclined)] == [1, 0]
    assert [e.seat for e in events if isinstance(e, DrawDecided)][0] == 1
    game, events = to_play(SUITED["H"], SUITED["D"], bids=(2, 5), first=1, rules=HouseRules(simultaneous_draw=False))
    assert [e.seat for e in events if isinstance(e, DrawDecided)][:4] == [1, 0, 1, 0]  # D11 house rule: alternation
    assert [e.seat for e in events if isinstance(e, BidMade)] == [0, 1]
    assert game.to_move == 0 and game.leader == 0


def test_section_5_megan_bids_8_then_drew_bids_6() -> None:
    """Megan (second player, seat 1) bids first: 8; then Drew (first player, seat 0): 6. Bids may sum over 13."""
    game, events = start(deck_for(cards(SUITED["H"]), cards(SUITED["S"])), first=0)
    draw_all_keep(game, events)
    assert game.phase == "bid" and game.to_move == 1
    rejected(game, Bid(0, 6), errors.NotYourTurn, "seat 1")
    run(game, events, Bid(1, 8))
    run(game, events, Bid(0, 6))
    assert game.bids == [6, 8] and game.phase == "play"
    assert view(game, 0).bids == (6, 8)


# -- section 3 and D2: the draw ------------------------------------------------------------------
def test_section_3_each_decision_consumes_two_cards_and_the_draw_ends_13_and_26() -> None:
    """With strict alternation (the D11 house rule) the decisions take the pile two cards at a time."""
    deck = Dealer(seed=9).shuffled_deck()
    game, events = start(deck, first=0, rules=HouseRules(simultaneous_draw=False))
    seen: list[set[Card]] = [set(), set()]
    step = 0
    while game.phase == "draw":
        seat = game.to_move
        if game.offer_pending(seat):
            assert view(game, seat).offered is None
            run(game, events, DeclineDoubleNil(seat))
        offered = view(game, seat).offered
        assert offered is deck[2 * step]
        before = game.draw_pos
        (decided,) = run(game, events, Keep(seat) if step % 3 else Discard(seat))
        assert game.draw_pos == before + 2
        assert {decided.kept, decided.discarded} == {deck[2 * step], deck[2 * step + 1]}
        assert decided.kept is (deck[2 * step] if step % 3 else deck[2 * step + 1])
        seen[seat] |= {decided.kept, decided.discarded}
        step += 1
    assert step == 26 and game.decisions == [13, 13]
    assert len(game.hands[0]) == len(game.hands[1]) == 13 and len(game.discards) == 26
    assert set(game.hands[0]) | set(game.hands[1]) | set(game.discards) == set(DECK)
    for seat in (0, 1):
        v = view(game, seat)
        assert set(v.kept) | set(v.discarded) == seen[seat] and len(seen[seat]) == 26   # D2: sees both cards
        assert not (set(v.hand) | set(v.kept) | set(v.discarded)) & seen[1 - seat]      # none of the opponent's


@pytest.mark.parametrize("simultaneous", [True, False])
def test_section_3_opponent_sees_neither_card_of_a_decision(simultaneous: bool) -> None:
    game, events = start(Dealer(seed=2).shuffled_deck(), first=0, rules=HouseRules(simultaneous_draw=simultaneous))
    run(game, events, DeclineDoubleNil(0))
    v1 = view(game, 1)
    assert v1.offered is None and v1.hand == () and v1.my_turn is simultaneous  # D11: may choose at once
    (decided,) = run(game, events, Keep(0))
    v1 = view(game, 1)
    assert decided.kept not in v1.hand + v1.kept + v1.discarded and v1.decisions == (1, 0)
    assert v1.opponent_cards == 1 and v1.double_nil_offer


# -- section 4 and D3-D5: double nil -----------------------------------------------------------
def test_d3_double_nil_only_at_first_decision_before_seeing_its_card() -> None:
    game, events = start(Dealer(seed=5).shuffled_deck(), first=0)
    v = view(game, 0)
    assert v.double_nil_offer and v.offered is None
    assert set(v.legal) == {DeclareDoubleNil(0), DeclineDoubleNil(0)}
    rejected(game, Keep(0), errors.WrongPhase, "double nil")
    run(game, events, DeclineDoubleNil(0))
    assert view(game, 0).offered is not None
    rejected(game, DeclareDoubleNil(0), errors.DoubleNilNotAllowed, "first draw decision")
    run(game, events, Keep(0))
    run(game, events, DeclineDoubleNil(1), Keep(1))
    rejected(game, DeclareDoubleNil(0), errors.DoubleNilNotAllowed, "first draw decision")


def test_d3_double_nil_after_the_draw_is_refused() -> None:
    game, events = start(deck_for(cards(SUITED["H"]), cards(SUITED["S"])), first=0)
    draw_all_keep(game, events)
    rejected(game, DeclareDoubleNil(1), errors.DoubleNilNotAllowed, "double nil")


def test_section_4_double_nil_bidder_draws_exchanges_and_does_not_bid() -> None:
    h0, h1 = cards(SUITED["H"]), cards(SUITED["D"])
    game, events = start(deck_for(h0, h1), first=0)
    run(game, events, DeclareDoubleNil(0))
    assert game.double_nil == [True, False] and view(game, 0).offered is h0[0]
    draw_all_keep(game, events)
    assert game.phase == "exchange" and game.to_move == 0
    rejected(game, Bid(0, 3), errors.WrongPhase, "exchange")
    rejected(game, Exchange(0, tuple(h0[:4])), errors.BadExchange, "3")
    rejected(game, Exchange(0, (h0[0], h0[0])), errors.BadExchange, "twice")
    rejected(game, Exchange(0, (h1[0],)), errors.BadExchange, h1[0].code)
    assert len(legal_moves(game, 0)) == 1 + 13 + 78 + 286
    (ex,) = run(game, events, Exchange(0, (C("AH"), C("KH"))), dealer=Dealer(seed=1))
    assert isinstance(ex, CardsExchanged) and len(ex.received) == 2
    assert not set(ex.received) & set(h0) and set(ex.received) <= set(cards(" ".join((SUITED["S"], SUITED["C"]))))
    assert len(game.hands[0]) == 13 and C("AH") in game.discards and len(game.discards) == 26
    assert game.phase == "bid" and game.to_move == 1 and game.bid_order() == [1]
    run(game, events, Bid(1, 4))
    assert game.phase == "play" and game.to_move == 1


class SpyDealer(Dealer):
    def __init__(self) -> None:
        super().__init__(seed=3)
        self.piles: list[list[Card]] = []

    def draw_from(self, pile: Sequence[Card], count: int) -> tuple[Card, ...]:
        self.piles.append(list(pile))
        return super().draw_from(pile, count)


def test_d4_d5_both_double_nil_exchange_second_player_first_from_the_pile_as_it_stands() -> None:
    h0, h1 = cards(SUITED["H"]), cards(SUITED["D"])
    game, events = start(deck_for(h0, h1), first=0)
    run(game, events, DeclareDoubleNil(0), Keep(0), DeclareDoubleNil(1), Keep(1))
    draw_all_keep(game, events)
    assert game.phase == "exchange" and game.to_move == 1  # second player first (D4)
    rejected(game, Exchange(0, ()), errors.NotYourTurn, "seat 1")
    spy = SpyDealer()
    (first_ex,) = run(game, events, Exchange(1, (C("AD"), C("KD"), C("QD"))), dealer=spy)
    assert not {C("AD"), C("KD"), C("QD")} & set(spy.piles[0])  # thrown cards join the pile after the draw (D5)
    assert {C("AD"), C("KD"), C("QD")} <= set(game.discards)
    (second_ex,) = run(game, events, Exchange(0, (C("AH"),)), dealer=spy)
    assert {C("AD"), C("KD"), C("QD")} <= set(spy.piles[1]) and C("AH") not in spy.piles[1]
    assert game.phase == "play" and game.bids == [None, None] and game.to_move == 1  # nobody bids again
    assert view(game, 0).exchange == (second_ex.thrown, second_ex.received)
    assert view(game, 1).exchange == (first_ex.thrown, first_ex.received)


def test_d5_exchange_of_no_cards() -> None:
    game, events = start(deck_for(cards(SUITED["H"]), cards(SUITED["D"])), first=1)
    run(game, events, DeclareDoubleNil(1))
    draw_all_keep(game, events)
    (ex,) = run(game, events, Exchange(1, ()))
    assert ex.thrown == () and ex.received == () and game.phase == "bid" and game.to_move == 0


# -- section 5: bids -----------------------------------------------------------------------------
def test_section_5_bid_out_of_range_names_0_to_13() -> None:
    game, events = start(deck_for(cards(SUITED["H"]), cards(SUITED["S"])), first=0)
    draw_all_keep(game, events)
    for bad in (14, -1, 2.5, True):
        err = rejected(game, Bid(1, bad), errors.BidOutOfRange, "0", "13")  # type: ignore[arg-type]
        assert err.legal == tuple(Bid(1, n) for n in range(14))
    run(game, events, Bid(1, 0), Bid(0, 13))
    assert game.bids == [13, 0]


def test_wrong_phase_commands_are_refused() -> None:
    game, events = start(Dealer(seed=1).shuffled_deck(), first=0)
    run(game, events, DeclineDoubleNil(0))
    rejected(game, Bid(0, 3), errors.WrongPhase, "keep or discard")
    rejected(game, Play(0, C("AS")), errors.WrongPhase, "keep or discard")
    rejected(game, Exchange(0, ()), errors.WrongPhase)
    draw_all_keep(game, events)
    rejected(game, Keep(1), errors.WrongPhase, "bid 0 to 13")
    rejected(game, Play(1, game.hands[1][0]), errors.WrongPhase, "bid")


# -- section 6: play -------------------------------------------------------------------------------
def test_section_6_not_your_turn_says_whose_turn() -> None:
    game, _ = to_play(SUITED["H"], SUITED["D"], first=0)
    err = rejected(game, Play(0, C("AH")), errors.NotYourTurn, "seat 1's turn")
    assert err.to_move == 1 and err.legal == ()


def test_section_6_must_follow_suit_names_the_suit() -> None:
    game, events = to_play("AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2D", SUITED["S"][:0] + "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2H", first=0)
    run(game, events, Play(1, C("2H")))
    err = rejected(game, Play(0, C("2D")), errors.MustFollowSuit, "hearts")
    assert err.suit is Suit.HEARTS and all(m.card.suit is Suit.HEARTS for m in err.legal)
    rejected(game, Play(0, C("AS")), errors.CardNotInHand, "AS")


def test_section_6_void_player_may_play_any_card_spade_not_required() -> None:
    game, events = to_play("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2D", SUITED["H"], first=0)
    run(game, events, Play(1, C("2H")))
    assert {m.card for m in legal_moves(game, 0)} == set(game.hands[0])
    (played, won) = run(game, events, Play(0, C("2D")))
    assert isinstance(won, TrickWon) and won.seat == 1  # the suit led wins without a spade


def test_section_6_spades_cannot_be_led_before_broken() -> None:
    game, events = to_play(SUITED["H"], "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2D", first=0)
    err = rejected(game, Play(1, C("AS")), errors.SpadesNotBroken, "spades are not broken")
    assert err.legal == (Play(1, C("2D")),)
    run(game, events, Play(1, C("2D")))
    assert not game.spades_broken


def test_section_6_spades_broken_by_a_spade_on_another_suit() -> None:
    game, events = to_play("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2D", "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2S",
                           first=0)
    run(game, events, Play(1, C("AH")))
    assert not game.spades_broken
    (_, won) = run(game, events, Play(0, C("3S")))
    assert won.seat == 0 and game.spades_broken and game.to_move == 0  # D7: the winner leads
    assert view(game, 1).spades_broken and view(game, 1).last_trick == won
    run(game, events, Play(0, C("AS")))  # may lead spades now


def test_section_6_spades_broken_by_a_forced_spade_lead() -> None:
    game, events = to_play(SUITED["H"], SUITED["S"], first=0)
    assert {m.card for m in legal_moves(game, 1)} == set(cards(SUITED["S"]))
    run(game, events, Play(1, C("2S")))
    assert game.spades_broken


def test_section_6_following_a_spade_lead_with_a_spade_does_not_break_before_the_lead() -> None:
    game, events = to_play("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2D", "2S AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H",
                           first=0)
    new = run(game, events, Play(1, C("AH")), Play(0, C("3S")))
    assert new[-1].seat == 0 and game.spades_broken


def test_section_6_highest_spade_wins_else_highest_of_suit_led() -> None:
    game, events = to_play("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2H", "2S AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H",
                           first=0)
    won = run(game, events, Play(1, C("3H")), Play(0, C("2H")))[-1]
    assert won.seat == 1 and won.trick == 1 and game.to_move == 1


def test_section_6_thirteen_tricks_make_a_hand_and_roles_swap_section_2() -> None:
    game, events = to_play(SUITED["S"], SUITED["H"], bids=(13, 0), first=0)
    play_hand(game, events)
    scored = [e for e in events if isinstance(e, HandScored)]
    assert len([e for e in events if isinstance(e, TrickWon)]) == 13 and len(scored) == 1
    s0, s1 = scored[0].scores
    assert (s0.tricks, s0.hand_total, s1.contract, s1.hand_total) == (13, 130, "nil", 100)
    nxt = events[-1]
    assert isinstance(nxt, HandStarted) and nxt.hand == 2 and nxt.first_player == 1
    assert game.phase == "draw" and game.to_move == 1 and game.scores == [130, 100]


def test_section_9_game_ends_when_a_player_reaches_the_target() -> None:
    game, events = to_play(SUITED["S"], SUITED["H"], bids=(13, 1), first=0, rules=HouseRules(target=100))
    play_hand(game, events)
    end = events[-1]
    assert isinstance(end, GameEnded) and end.winner == 0 and end.scores == (130, -10) and end.reason == "score"
    assert game.phase == "over" and game.winner == 0
    rejected(game, Play(1, C("AH")), errors.GameOverError, "over")


def test_d9_equal_scores_above_target_play_another_hand() -> None:
    game, events = to_play(SUITED["S"], SUITED["H"], bids=(13, 0), first=0, rules=HouseRules(target=100))
    game.scores = [0, 30]  # as if hand 0 had left seat 1 30 ahead: 130 each after this hand
    play_hand(game, events)
    assert game.scores == [130, 130] and isinstance(events[-1], HandStarted)


def test_forfeit_any_time_ends_the_game() -> None:
    game, events = start(Dealer(seed=1).shuffled_deck(), first=0)
    rejected(game, Forfeit(1, "bored"), errors.RuleError, "resigned or timeout")
    (end,) = run(game, events, Forfeit(1, "timeout"))
    assert end == GameEnded(winner=0, scores=(0, 0), reason="timeout", hands=0)
    assert legal_moves(game, 0) == [] and view(game, 0).winner == 0


def test_legal_moves_in_every_phase_and_only_for_the_player_to_move() -> None:
    game, events = start(Dealer(seed=8).shuffled_deck(), first=1)
    assert legal_moves(game, 0) == [] and view(game, 0).legal == ()
    assert legal_moves(game, 1) == [DeclareDoubleNil(1), DeclineDoubleNil(1)]
    run(game, events, DeclineDoubleNil(1))
    assert legal_moves(game, 1) == [Keep(1), Discard(1)]


def test_fold_of_the_events_equals_the_live_state() -> None:
    game, events = to_play(SUITED["S"], SUITED["H"], bids=(5, 2), first=0)
    run(game, events, Play(1, C("2H")), Play(0, C("2S")))
    assert vars(fold(events)) == vars(game)

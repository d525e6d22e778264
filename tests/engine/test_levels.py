"""The levels a person can choose (easy, normal, hard) and the ``easy`` beginner's habits.

``easy`` is meant to be beaten by a careful beginner: it makes a person's mistakes (RULES.md
sections 3-8: keeps picture cards in the draw, counts high cards loosely, never bids nil, wins
with its highest card, trumps whenever it can and so takes bags), and every move it makes is legal.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from spades import bots
from spades.arena import play_game
from spades.bots.easy import EasyStrategy, loose_count
from spades.bots.montecarlo import HARD, SPREAD, MonteCarloStrategy
from spades.commands import Bid, DeclineDoubleNil, Discard, Keep, Play
from spades.dealer import Dealer
from spades.events import BidMade, Event
from spades.game import BID, decide, fold, new_game, view
from spades.replay import verify_log

from .helpers import cards, deck_for, draw_all_keep, run, start, to_play
from .test_pimc import assert_legal_in_random_positions


def test_each_level_is_a_named_player_the_arena_can_use() -> None:
    assert bots.LEVELS == ("easy", "normal", "hard")
    for level in bots.LEVELS:
        assert level in bots.names()
        assert bots.bot_for_level(level, seed=1).choose  # builds
    assert isinstance(bots.bot_for_level("easy", seed=1), EasyStrategy)
    with pytest.raises(ValueError, match="easy, normal, hard"):
        bots.bot_for_level("pimc")


def test_every_easy_decision_is_legal_in_random_positions() -> None:
    assert_legal_in_random_positions(lambda seed: EasyStrategy(seed=seed), 120, seed=5)


def test_easy_games_replay_clean_and_it_never_bids_nil() -> None:
    for seed in range(3):
        log: list[Event] = []
        strategies = [bots.get("easy", seed=seed), bots.get("basic", seed=seed + 5)]
        game = play_game(f"e{seed}", strategies, Dealer(seed=seed), max_hands=4, on_event=log.append)
        assert verify_log(log).scores == game.scores
        easy_bids = [e.tricks for e in log if isinstance(e, BidMade) and e.seat == 0]
        assert easy_bids and min(easy_bids) >= 1


def test_easy_keeps_picture_cards_and_lets_low_spades_go() -> None:
    game, events = start(deck_for(cards("JH 2S AS 3D 4D 5D 6D 7D 8D 9D 10D JD QD"),
                             cards("2H 3H 4H 5H 6H 7H 8H 9H 10H KH QH AH 2C")))
    easy = EasyStrategy(seed=1)
    run(game, events, DeclineDoubleNil(0))
    assert easy.choose(view(game, 0)) == Keep(0)  # the jack of hearts: a picture card
    run(game, events, Keep(0))
    assert easy.choose(view(game, 0)) == Discard(0)  # the 2 of spades: a low card to a beginner


def test_easy_counts_high_cards_loosely() -> None:
    # a lone king counts as a trick; six long low spades count for nothing
    hand = tuple(cards("KH AD QC QD 2S 3S 4S 5S 6S 7S 2H 3H 4H"))
    assert loose_count(hand) == 3
    game, events = start(deck_for(cards("AS KS QS JS 10S 9S 8S AH 5H 6H 7H 8H 9H"), list(hand)))
    draw_all_keep(game, events)
    bids = [EasyStrategy(seed=s).choose(view(game, 1)) for s in range(40)]
    assert set(bids) == {Bid(1, 2), Bid(1, 3), Bid(1, 4)}  # now and then one more or one fewer
    assert bids.count(Bid(1, 3)) > 20


def test_easy_wins_with_its_highest_card_and_trumps_after_making_its_bid() -> None:
    # seat 1 (easy, bid 1) holds the ace, king and 9 of hearts: over the 5 of hearts it plays the ace
    game, events = to_play("AH KH 9H 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D",
                           "5H 6H 7H 8H AD 2C 3C 4C 5C 6C 7C 8C 9C", bids=(1, 1), first=1)
    easy = EasyStrategy(seed=2)
    run(game, events, Play(0, cards("5H")[0]))
    assert easy.choose(view(game, 1)) == Play(1, cards("AH")[0])
    run(game, events, easy.choose(view(game, 1)))
    # its bid made, it leads the top of its longest suit (the 7 of diamonds), the ace takes it
    assert easy.choose(view(game, 1)) == Play(1, cards("7D")[0])
    run(game, events, easy.choose(view(game, 1)), Play(0, cards("AD")[0]), Play(0, cards("2C")[0]))
    # no club: it trumps, though the trick is a bag
    assert easy.choose(view(game, 1)) == Play(1, cards("2S")[0])


def test_every_hard_decision_is_legal_and_reproducible_from_its_seed() -> None:
    assert_legal_in_random_positions(lambda seed: bots.bot_for_level("hard", seed=seed), 40, seed=8)
    game, _ = to_play("AS KS 2H 3H 4H 5H 6H 7H 8H 9H 2C 3C 4C", "QS JS 10H JH QH KH AH 5C 6C 7C 8C 9C 10C")
    assert len({bots.bot_for_level("hard", seed=4).choose(view(game, 1)) for _ in range(3)}) == 1


def test_hard_reads_its_trick_counts_lower_than_pimc_so_never_bids_higher() -> None:
    """Section 5: with the same samples (the same seed), ``hard`` reads each sampled trick count lower
    than ``pimc`` does, so on the same hand it bids no more, and on some hands less."""
    assert sum(w * o for o, w in HARD.spread) < sum(w * o for o, w in SPREAD)
    lower = replace(HARD, spread=SPREAD)
    fewer = 0
    for seed in range(12):
        dealer = Dealer(seed=300 + seed)
        game = fold(new_game(f"b{seed}", None, dealer))
        drawers = [bots.get("basic", seed=1), bots.get("basic", seed=2)]
        while game.phase != BID:
            mover = game.movers[0]
            for event in decide(game, drawers[mover].choose(view(game, mover)), dealer):
                game.apply(event)
        seat = game.movers[0]
        hard = MonteCarloStrategy(seed=seed, settings=HARD).bid(view(game, seat))
        read_as_pimc = MonteCarloStrategy(seed=seed, settings=lower).bid(view(game, seat))
        assert 1 <= hard <= read_as_pimc or hard == read_as_pimc == 0
        fewer += hard < read_as_pimc
    assert fewer >= 1

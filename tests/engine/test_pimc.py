"""The ``pimc`` strategy: it sees only its view, every decision is legal, it is reproducible, it plays well.

RULES.md sections 3 (the draw: a player sees only their own cards), 4 (double nil and the
exchange), 5 (bids), 6 (play), 7-8 (scoring, bags).
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import combinations, permutations
from math import factorial
from typing import Callable

import pytest

from spades import bots
from spades.arena import play_game, run_arena
from spades.bots.hand_sampling import _ways, good
from spades.bots.montecarlo import HARD, MonteCarloStrategy, Settings
from spades.bots.randombot import RandomStrategy
from spades.commands import Bid, Command, Discard, Exchange, Keep, Play
from spades.dealer import Dealer
from spades.errors import RuleError
from spades.events import Event, GameStarted, HandStarted, HouseRules
from spades.game import Game, decide, fold, legal_moves, view
from spades.replay import command_for, verify_log

from .helpers import cards, deck_for, draw_all_keep, run, start, to_play


def commands_of_hand_one(seed: int) -> tuple[tuple, int, list[Command]]:  # type: ignore[type-arg]
    """The deck, the first player and every player's command of hand 1 of a pimc-vs-basic game."""
    log: list[Event] = []
    strategies = [bots.get("pimc", seed=seed), bots.get("basic", seed=seed + 1)]
    play_game(f"twin{seed}", strategies, Dealer(seed=seed), max_hands=1, on_event=log.append)
    start = next(e for e in log if isinstance(e, HandStarted))
    commands = [c for c in (command_for(e) for e in log) if c is not None]
    return start.deck, start.first_player, commands


def replay_to(deck: tuple, first: int, commands: list[Command]) -> Game:  # type: ignore[type-arg]
    game = fold([GameStarted("twin", HouseRules(), first), HandStarted(1, first, tuple(deck))])
    for command in commands:
        for event in decide(game, command, Dealer(seed=0)):
            game.apply(event)
    return game


def twin(deck: tuple, first: int, commands: list[Command], me: int, swap: set[int]) -> Game | None:  # type: ignore[type-arg]
    """The same deck and commands, except that the opponent kept the other card of their decisions ``swap``.

    Everything ``me`` sees is the same; the opponent holds different cards. ``None`` if the
    opponent's earlier plays would then be illegal (they would have had to follow suit).
    """
    opp = 1 - me
    flipped: list[Command] = []
    seen = 0
    for command in commands:
        if command.seat == opp and isinstance(command, (Keep, Discard)):
            if seen in swap:
                command = Discard(opp) if isinstance(command, Keep) else Keep(opp)
            seen += 1
        flipped.append(command)
    try:
        return replay_to(deck, first, flipped)
    except RuleError:
        return None


@pytest.mark.slow
def test_pimc_cannot_peek_same_view_different_hidden_cards_same_decision() -> None:
    """Section 3: a player sees only their own cards. Two games that differ only in the
    opponent's hidden cards give the bot the same view, and so the same decision."""
    compared = played_positions = 0
    for seed in range(1, 7):
        deck, first, commands = commands_of_hand_one(seed)
        for upto in range(len(commands)):
            game1 = replay_to(deck, first, commands[:upto])
            me = game1.to_move
            if me is None or game1.phase not in ("bid", "play"):
                continue
            if game1.phase == "play" and len(view(game1, me).playable) < 2:
                continue
            opp = 1 - me
            played = set(game1.played)
            opp_cards = [(deck[4 * k + (0 if opp == first else 2)], deck[4 * k + (1 if opp == first else 3)])
                         for k in range(13)]
            swap = {k for k, pair in enumerate(opp_cards) if not played & set(pair)}
            game2 = twin(deck, first, commands[:upto], me, set(sorted(swap)[::2]))
            if game2 is None:
                continue
            assert sorted(game1.hands[opp], key=str) != sorted(game2.hands[opp], key=str)
            view1, view2 = view(game1, me), view(game2, me)
            assert view1 == view2
            # no time cap: a search cut short by a loaded machine would differ for a reason other than the cards
            unhurried = Settings(hard_cap_s=3600.0, abort_s=3600.0)
            choice1 = MonteCarloStrategy(seed=11, settings=unhurried).choose(view1)
            choice2 = MonteCarloStrategy(seed=11, settings=unhurried).choose(view2)
            assert choice1 == choice2
            compared += 1
            played_positions += game1.phase == "play"
            if compared >= 12:
                break
        if compared >= 12:
            break
    assert compared >= 12 and played_positions >= 6


def random_positions(count: int, seed: int) -> list[Game]:
    """Games stopped at random points: random players, who declare double nil half the time (section 4)."""
    rng = random.Random(seed)
    positions: list[Game] = []
    n = 0
    while len(positions) < count:
        n += 1
        log: list[Event] = []
        strategies = [RandomStrategy(seed=n * 2 + s, dn_rate=0.5) for s in (0, 1)]
        play_game(f"pos{n}", strategies, Dealer(seed=n), max_hands=rng.randint(1, 4), on_event=log.append)
        # every exchange and bid position, and a few random others
        for cut in range(2, len(log)):
            game = fold(log[:cut])
            if game.to_move is None or game.phase == "over":
                continue
            if game.phase in ("exchange", "bid") or rng.random() < 0.03:
                positions.append(game)
    return positions[:count]


def assert_legal_in_random_positions(make: Callable[[int], bots.Strategy], count: int, seed: int) -> None:
    """Sections 3-6: whatever the position (draw, double nil offer, exchange, bid, play), the command
    of ``make(seed)`` is one the rules allow."""
    phases: set[str] = set()
    for game in random_positions(count, seed=seed):
        seat = game.to_move
        assert seat is not None
        command = make(len(game.played)).choose(view(game, seat))
        if isinstance(command, Exchange):
            assert len(command.cards) <= 3 and set(command.cards) <= set(game.hands[seat])
        else:
            assert command in legal_moves(game, seat)
        decide(game, command, Dealer(seed=1))  # raises if illegal
        phases.add(game.phase)
    assert phases == {"draw", "exchange", "bid", "play"}


@pytest.mark.slow
def test_every_pimc_decision_is_legal_in_random_positions() -> None:
    assert_legal_in_random_positions(lambda seed: MonteCarloStrategy(seed=seed), 160, seed=3)


@pytest.mark.slow
def test_pimc_games_replay_clean_including_its_double_nil_gambles() -> None:
    """Sections 3-9: whole games of pimc against random (who declares double nil) re-check against the rules."""
    for seed in range(3):
        log: list[Event] = []
        strategies = [bots.get("pimc", seed=seed), RandomStrategy(seed=seed + 9, dn_rate=0.3)]
        game = play_game(f"r{seed}", strategies, Dealer(seed=seed), max_hands=3, on_event=log.append)
        assert verify_log(log).scores == game.scores


@pytest.mark.slow
def test_pimc_is_reproducible_from_its_seed_and_process_count_does_not_matter() -> None:
    one = run_arena(["pimc", "basic"], games=2, seed=5, max_hands=2)
    again = run_arena(["pimc", "basic"], games=2, seed=5, max_hands=2, jobs=2)
    assert [(g.scores, g.sides, g.hands) for g in one.games] == [(g.scores, g.sides, g.hands) for g in again.games]
    game, _ = to_play("AS KS 2H 3H 4H 5H 6H 7H 8H 9H 2C 3C 4C", "QS JS 10H JH QH KH AH 5C 6C 7C 8C 9C 10C")
    choices = {MonteCarloStrategy(seed=4).choose(view(game, 1)) for _ in range(3)}
    assert len(choices) == 1


# -- how it plays ------------------------------------------------------------------------------------
def to_bid(first_hand: str, second_hand: str, first: int = 0) -> Game:
    """A game at the bid of hand 1 with these hands (both kept every first card), the second player to bid."""
    game, events = start(deck_for(cards(first_hand), cards(second_hand)), first)
    draw_all_keep(game, events)
    assert game.phase == "bid" and game.to_move == 1 - first
    return game


def test_pimc_makes_the_opponents_nil_fail() -> None:
    """Section 5: a failed nil costs its bidder 100. Seat 0 bid nil holding only high hearts and the
    2 of spades; pimc (seat 1) holds the 2 of hearts that forces it to win a trick."""
    game, events = to_play("AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2S",
                           "2H 3C 4C AS KS QS JS 10S 9S 8S 7S 6S 5S", bids=(0, 4), first=0)
    strategies = [bots.get("basic", seed=1), MonteCarloStrategy(seed=1)]
    while game.phase == "play":
        seat = game.to_move
        assert seat is not None
        run(game, events, strategies[seat].choose(view(game, seat)))
    scored = game.history[-1].scores
    assert scored[0].contract == "nil" and not scored[0].made and scored[1].made


def test_pimc_as_nil_bidder_ducks() -> None:
    """Section 5: the nil bidder (seat 1) follows a 9 of hearts with a heart that loses."""
    game, events = to_play("KH 10H 8H 2H 2C 3C 4C 5C 6C 7C 8C 9C 10C",
                           "AH 9H 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS", bids=(5, 0), first=1)
    run(game, events, Play(0, cards("9H")[0]))  # seat 0 is the second player and leads (section 2)
    command = MonteCarloStrategy(seed=1).choose(view(game, 1))
    assert command in (Play(1, cards("8H")[0]), Play(1, cards("2H")[0]))


def test_pimc_bids_what_a_hand_takes_and_nil_with_nothing() -> None:
    """Section 5: thirteen spades take every trick: bid 13; a hand without a trick bids nil."""
    game = to_bid("AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H", "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S")
    assert MonteCarloStrategy(seed=1).choose(view(game, 1)) == Bid(1, 13)
    game = to_bid("AS KS QS JS 10S 9S AH AD AC KH KD KC QC", "2H 3H 4H 5H 2D 3D 4D 5D 2C 3C 4C 5C 6C")
    assert MonteCarloStrategy(seed=1).choose(view(game, 1)) == Bid(1, 0)


def test_pimc_bids_high_with_a_strong_hand() -> None:
    """Section 5: the six top spades and three aces are worth at least 8 tricks."""
    game = to_bid("2S 3S 4H 5H 6H 7H 4D 5D 6D 7D 2C 3C 4C", "AS KS QS JS 10S 9S AH AD AC 2H 3H 2D 3D")
    command = MonteCarloStrategy(seed=2).choose(view(game, 1))
    assert isinstance(command, Bid) and command.tricks >= 8


@pytest.mark.parametrize("good_total", range(7))
def test_the_draw_pairs_weight_each_kept_hand_as_often_as_the_draw_deals_it(good_total: int) -> None:
    """Section 3, exhaustively on a draw of three pairs: every order of six cards, ``good_total`` of them
    good, is drawn by a player who keeps the first card of a pair exactly when it is good; each kept hand
    comes out as many times as ``_ways`` says (times the 3! orders of the pairs)."""
    is_good = [i < good_total for i in range(6)]
    dealt: dict[frozenset[int], int] = {}
    for order in permutations(range(6)):
        kept = frozenset(order[k] if is_good[order[k]] else order[k + 1] for k in range(0, 6, 2))
        dealt[kept] = dealt.get(kept, 0) + 1
    for hand in combinations(range(6), 3):
        kept_good = sum(is_good[c] for c in hand)
        assert dealt.get(frozenset(hand), 0) == factorial(3) * _ways(kept_good, good_total, pairs=3), hand


def test_hard_reads_the_opponents_hand_as_the_draw_deals_it_not_by_card_weights() -> None:
    """Section 3: the opponent keeps the good card of each pair they are offered (a spade, an ace, a king, a
    queen). ``hard``'s samples hold as many good cards as that draw, played out on random orders of the unseen
    cards, deals the opponent; weighting each card 2.7 (``pimc``) gives a card fewer. No sample holds a card
    this player has seen."""
    game, events = start(deck_for(cards("AS KS QS JS TS 9S 8S AH KH QH AD KD QD"),
                                  cards("7S 6S 5S 4S 3S 2S JH TH 9H 8H 7H 6H 5H")))
    draw_all_keep(game, events)
    me = view(game, 0)
    seen = {c.index for c in me.hand} | {c.index for c in me.discarded}
    unseen = [c for c in range(52) if c not in seen]
    rng = random.Random(5)
    dealt = 0
    for _ in range(20000):
        rng.shuffle(unseen)
        dealt += sum(good(unseen[k]) or good(unseen[k + 1]) and not good(unseen[k]) for k in range(0, 26, 2))
    expected = dealt / 20000
    seen_mask = sum(1 << c for c in seen)
    means = {}
    for pairs in (True, False):
        bot = MonteCarloStrategy(seed=3, settings=replace(HARD, pairs=pairs))
        hands = bot.samples(me, 4000)
        assert all(not h & seen_mask and bin(h).count("1") == 13 for h in hands)
        means[pairs] = sum(sum(1 for c in range(52) if h >> c & 1 and good(c)) for h in hands) / len(hands)
    assert abs(means[True] - expected) < 0.06, (means, expected)
    assert means[False] < expected - 0.7, (means, expected)

"""Forced cards and the decided end of a hand (spades.autoplay), on hand-built positions (RULES section 6)."""

from __future__ import annotations

import random

import pytest

from spades import bots
from spades.arena import play_game
from spades.autoplay import autoplay, decided_playout, decided_tricks, forced_play
from spades.cards import DECK, Card, Suit, sort_key
from spades.commands import Play
from spades.dealer import Dealer
from spades.events import AUTO_DECIDED, AUTO_FORCED, CardPlayed, HandScored, TrickWon
from spades.game import Game, fold, legal_moves
from spades.replay import ReplayError, verify_log

from .helpers import SUITED, cards, run, to_play


def position(seat0: str, seat1: str, leader: int, broken: bool = False) -> tuple[Game, list]:  # type: ignore[type-arg]
    """A game at the start of a trick, late in hand 1: ``seat0`` and ``seat1`` the cards left (equal counts)."""
    game, events = to_play(SUITED["S"], SUITED["H"], first=0)
    h0, h1 = cards(seat0), cards(seat1)
    assert len(h0) == len(h1)
    done = 13 - len(h0)
    game.hands = [sorted(h0, key=sort_key), sorted(h1, key=sort_key)]
    game.tricks_won = [done - done // 2, done // 2]
    game.leader = leader
    game.movers = (leader,)
    game.spades_broken = broken
    return game, events


def test_section_6_the_only_card_of_the_suit_led_is_forced() -> None:
    game, events = position("AH 2C 3C", "4H 5D KC", leader=0)
    assert forced_play(game) is None  # the leader may lead any of three
    run(game, events, Play(0, cards("AH")[0]))
    assert forced_play(game) == Play(1, cards("4H")[0])  # seat 1's only heart


def test_section_6_a_void_follower_is_not_forced() -> None:
    game, events = position("AH 2C", "5D KC", leader=0)
    run(game, events, Play(0, cards("AH")[0]))
    assert forced_play(game) is None and len(legal_moves(game, 1)) == 2


def test_section_6_spades_not_broken_leaves_one_card_to_lead() -> None:
    game, _ = position("AS KS 2C", "4H 5D KC", leader=0)
    assert forced_play(game) == Play(0, cards("2C")[0])
    game, _ = position("AS KS 2C", "4H 5D KC", leader=0, broken=True)
    assert forced_play(game) is None


def test_section_6_the_13th_trick_is_always_forced() -> None:
    game, events = position("2C", "AH", leader=1)
    assert forced_play(game) == Play(1, cards("AH")[0])
    run(game, events, Play(1, cards("AH")[0]))
    assert forced_play(game) == Play(0, cards("2C")[0])
    assert decided_tricks(game) is None  # only at the start of a trick


def test_a_decided_end_every_play_out_gives_the_same_tricks() -> None:
    """Section 6: seat 0's spades win every trick, whatever either player plays."""
    game, _ = position("AS KS QS", "2H 3H 4H", leader=0, broken=True)
    assert decided_tricks(game) == (3, 0)
    playout = decided_playout(game)
    assert playout is not None and len(playout) == 6
    assert playout[:2] == [Play(0, cards("AS")[0]), Play(1, cards("4H")[0])]  # first allowed card, display order


def test_an_open_end_is_not_decided() -> None:
    """Section 6: leading AH wins both tricks (the 4C is thrown on the 2H); leading 2H loses both."""
    game, _ = position("AH 2H", "3H 4C", leader=0)
    assert decided_tricks(game) is None and decided_playout(game) is None


def test_decided_with_a_choice_that_changes_only_who_wins_which_trick() -> None:
    """Section 6: leading AH or 2C, each player wins one trick of the two."""
    game, _ = position("AH 2C", "KH 3C", leader=0)
    assert decided_tricks(game) == (1, 1)


def test_decided_is_only_tried_within_the_bound() -> None:
    game, _ = position("AS KS QS JS 10S 9S 8S 7S", "2H 3H 4H 5H 6H 7H 8H 9H", leader=1, broken=True)
    assert decided_tricks(game) is None  # 8 tricks left: above DECIDED_MAX_TRICKS (7)
    assert decided_tricks(game, max_tricks=8) == (8, 0)


def test_autoplay_finishes_a_decided_hand_and_scores_it() -> None:
    game, events = position("AS KS QS", "2H 3H 4H", leader=0, broken=True)
    before = list(game.tricks_won)
    new = autoplay(game, Dealer(seed=1))
    played = [e for e in new if isinstance(e, CardPlayed)]
    assert len(played) == 6 and all(e.auto == AUTO_DECIDED for e in played)
    assert [e.seat for e in new if isinstance(e, TrickWon)] == [0, 0, 0]
    scored = next(e for e in new if isinstance(e, HandScored))
    assert scored.scores[0].tricks == before[0] + 3 and game.hand_no == 2 and game.phase == "draw"


def test_autoplay_plays_forced_cards_only_for_players_who_want_it() -> None:
    game, events = position("AH 2C 3C", "4H 5D KC", leader=0)
    run(game, events, Play(0, cards("AH")[0]))
    snapshot = (list(game.hands[1]), game.version)
    assert autoplay(game, Dealer(seed=1), forced=(True, False), finish=False) == []
    assert (list(game.hands[1]), game.version) == snapshot
    new = autoplay(game, Dealer(seed=1), forced=(True, True), finish=False)
    assert new[0] == CardPlayed(1, cards("4H")[0], AUTO_FORCED) and isinstance(new[1], TrickWon)


def _auto_game(seed: int) -> list:  # type: ignore[type-arg]
    """A whole game of basic against basic in which forced cards and decided ends play themselves."""
    log: list = []  # type: ignore[type-arg]
    play_game(f"a{seed}", [bots.get("basic", seed), bots.get("basic", seed + 1)], Dealer(seed=seed), max_hands=6,
              on_event=log.append, auto=True)
    return log


def test_replay_derives_every_autoplayed_card_again() -> None:
    log = _auto_game(3)
    kinds = {e.auto for e in log if isinstance(e, CardPlayed)}
    assert kinds == {"", AUTO_FORCED, AUTO_DECIDED}
    verify_log(log)
    # a card the player chose, passed off as forced
    i = next(i for i, e in enumerate(log) if isinstance(e, CardPlayed) and not e.auto and not only_move(log, i))
    forged = list(log)
    forged[i] = CardPlayed(log[i].seat, log[i].card, AUTO_FORCED)
    with pytest.raises(ReplayError, match="only legal card"):
        verify_log(forged)
    # a card of a decided play-out passed off as the player's own choice
    j = next(i for i, e in enumerate(log) if isinstance(e, CardPlayed) and e.auto == AUTO_DECIDED)
    forged = list(log)
    forged[j] = CardPlayed(log[j].seat, log[j].card, "")
    with pytest.raises(ReplayError):
        verify_log(forged)


def only_move(log: list, i: int) -> bool:  # type: ignore[type-arg]
    game = fold(log[:i])
    return len(legal_moves(game, log[i].seat)) == 1


def _every_play_out(hands: tuple[tuple[Card, ...], tuple[Card, ...]], leader: int, broken: bool) -> set[int]:
    """Reference for the decided-end search: the tricks seat 0 takes in each legal play-out of the rest of the
    hand, by plain enumeration of every card each player may play (RULES section 6 and D7: the follower
    wins with a higher card of the suit led or with a spade to a lead of another suit, and leads next)."""
    if not hands[0]:
        return {0}
    follower = 1 - leader
    out: set[int] = set()
    leads = list(hands[leader]) if broken else [c for c in hands[leader] if c.suit is not Suit.SPADES]
    for lead in leads or list(hands[leader]):
        follows = [c for c in hands[follower] if c.suit is lead.suit] or list(hands[follower])
        for card in follows:
            wins = card.rank > lead.rank if card.suit is lead.suit else card.suit is Suit.SPADES
            winner = follower if wins else leader
            rest = [tuple(c for c in hands[s] if c is not lead and c is not card) for s in (0, 1)]
            spades = broken or Suit.SPADES in (lead.suit, card.suit)
            out |= {(winner == 0) + t for t in _every_play_out((rest[0], rest[1]), winner, spades)}
    return out


@pytest.mark.parametrize("left", [1, 2, 3, 4, 5])
def test_section_6_the_decided_end_agrees_with_every_play_out_enumerated(left: int) -> None:
    """The search (one card of each run of equivalent cards, positions as bit masks) against the plain
    enumeration of every play-out, on random positions: decided exactly when every play-out gives seat 0 the
    same tricks, and then that number."""
    rng = random.Random(left)
    decided = 0
    for _ in range(300 if left < 5 else 60):
        deck = list(DECK)
        rng.shuffle(deck)
        h0, h1 = deck[:left], deck[left:2 * left]
        leader, broken = rng.randrange(2), rng.random() < 0.5
        game, _ = position(" ".join(c.code for c in h0), " ".join(c.code for c in h1), leader, broken)
        results = _every_play_out((tuple(game.hands[0]), tuple(game.hands[1])), leader, broken)
        got = decided_tricks(game)
        expected = None if len(results) > 1 else (min(results), left - min(results))
        assert got == expected, (h0, h1, leader, broken, results)
        decided += got is not None
    assert 0 < decided  # both kinds of position were met

"""Helpers for the engine tests: games set up at a chosen point with chosen hands."""

from __future__ import annotations

import copy
from typing import Any, Sequence

from spades.cards import DECK, Card, parse_card
from spades.commands import Bid, Command, DeclineDoubleNil, Keep
from spades.dealer import Dealer
from spades.events import Event, GameStarted, HandStarted, HouseRules
from spades.game import Game, decide, fold


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def deck_for(first_hand: Sequence[Card], second_hand: Sequence[Card]) -> tuple[Card, ...]:
    """A deck that, if both players keep every first card, gives these hands (section 3)."""
    rest = [c for c in DECK if c not in first_hand and c not in second_hand]
    assert len(first_hand) == 13 and len(second_hand) == 13 and len(rest) == 26
    deck: list[Card] = []
    for k in range(13):
        deck += [first_hand[k], rest[2 * k], second_hand[k], rest[2 * k + 1]]
    return tuple(deck)


def start(deck: Sequence[Card], first: int = 0, rules: HouseRules | None = None) -> tuple[Game, list[Event]]:
    events: list[Event] = [GameStarted("t", rules or HouseRules(), first), HandStarted(1, first, tuple(deck))]
    return fold(events), events


def run(game: Game, events: list[Event], *commands: Command, dealer: Dealer | None = None) -> list[Event]:
    """Decide and apply each command; the new events."""
    new: list[Event] = []
    for command in commands:
        got = decide(game, command, dealer or Dealer(seed=0))
        for e in got:
            game.apply(e)
        new += got
    events += new
    return new


def draw_all_keep(game: Game, events: list[Event]) -> None:
    """Both players decline double nil and keep every first card until the draw is over."""
    while game.phase == "draw":
        seat = game.movers[0]  # a simultaneous draw (D11): the first player draws all their cards first
        if game.offer_pending(seat):
            run(game, events, DeclineDoubleNil(seat))
        run(game, events, Keep(seat))


def to_play(first_hand: str, second_hand: str, bids: tuple[int, int] = (3, 3), first: int = 0,
            rules: HouseRules | None = None) -> tuple[Game, list[Event]]:
    """A game in the play phase of hand 1 with these hands; ``bids`` by seat."""
    h1, h2 = cards(first_hand), cards(second_hand)
    game, events = start(deck_for(h1, h2), first, rules)
    draw_all_keep(game, events)
    second = 1 - first
    run(game, events, Bid(second, bids[second]), Bid(first, bids[first]))
    assert game.phase == "play"
    return game, events


def snapshot(game: Game) -> dict[str, Any]:
    return copy.deepcopy(vars(game))


SUITED = {
    "S": "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S",
    "H": "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
    "D": "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
    "C": "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
}

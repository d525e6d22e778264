"""Moves the service may make for a player: a forced card, and the play-out of a decided hand.

Both keep the game exactly as the rules define it (RULES.md section 6): they only ever play
cards the rules allow, and only when the player's choice could not change anything.

* :func:`forced_play`: the player to move has exactly one card the rules allow (section 6:
  the only card of the suit led, or the last card of the hand). The 13th trick is always
  forced.
* :func:`decided_playout`: at the start of a trick, if every legal way of playing out the rest
  of the hand gives each player the same number of tricks, one such play-out (each player
  plays the first card the rules allow, in display order). The search is exact: a memoised
  walk over every legal play-out that stops at the first position from which two different
  results can be reached (any reachable position with two results means the whole rest of
  the hand has two). It is only tried when at most :data:`DECIDED_MAX_TRICKS` tricks remain,
  which bounds its cost.
* :func:`autoplay`: applies both to a game, as the service and ``chat.simulate`` do, and
  returns the events, each auto-played ``card_played`` marked with ``auto``
  (``"forced"`` / ``"decided"``) so that ``spades.replay`` can derive every one again.
"""

from __future__ import annotations

from typing import Sequence

from .cards import Card, Suit
from .commands import Play
from .dealer import Dealer
from .events import AUTO_DECIDED, AUTO_FORCED, CardPlayed, Event
from .game import PLAY, Game, decide
from .legal import playable

SPADES = Suit.SPADES
#: Auto-finish is tried only when at most this many tricks remain (a position with 7 cards a
#: hand has at most 3,432 hand pairs to look at; a decided one is found in milliseconds).
DECIDED_MAX_TRICKS = 7



def forced_play(game: Game) -> Play | None:
    """The card the player to move must play, when the rules allow them exactly one (section 6)."""
    if game.phase != PLAY or len(game.movers) != 1:
        return None
    seat = game.movers[0]
    cards = playable(game.hands[seat], game.trick, game.spades_broken)
    return Play(seat, cards[0]) if len(cards) == 1 else None


class _Undecided(Exception):
    """Two legal play-outs from one reachable position give different numbers of tricks."""


# The search works on hands as 52-bit masks (bit ``Card.index``: 13 bits a suit, spades lowest, the rank rising
# with the bit), so that a position is four small ints to hash, and it plays one card of each run of equivalent
# cards: two cards of one hand in one suit with no card of the other hand between them (nor the card led, for
# the follower) take the same tricks in every play-out, so the rest of the hand from either is the same up to
# their swap, and its results are the same. (Cards already played do not separate them.)
_SUIT = 0x1FFF
_SPADES_AT = Card(2, SPADES).index // 13
_SPADE_BITS = _SUIT << (13 * _SPADES_AT)


def _mask(cards: Sequence[Card]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c.index
    return out


def _one_of_each_run(cards: int, others: int) -> list[int]:
    """The lowest card (a one-bit mask) of each run of ``cards`` not split by a card of ``others`` nor a suit."""
    out: list[int] = []
    prev = -1
    while cards:
        low = cards & -cards
        bit = low.bit_length() - 1
        if prev < 0 or bit // 13 != prev // 13 or (others >> (prev + 1)) & ((1 << (bit - prev - 1)) - 1):
            out.append(low)
        prev = bit
        cards ^= low
    return out


def _tricks_of_seat0(h0: int, h1: int, leader: int, broken: bool, memo: dict[tuple[int, int, int, bool], int]) -> int:
    """Tricks seat 0 wins from the start of a trick if the result is the same for every legal play-out."""
    if not h0:
        return 0
    key = (h0, h1, leader, broken)
    known = memo.get(key)
    if known is not None:
        return known
    hand, other = (h0, h1) if leader == 0 else (h1, h0)
    leads = hand if broken else (hand & ~_SPADE_BITS or hand)
    result = -1
    for lead in _one_of_each_run(leads, other):
        led = (lead.bit_length() - 1) // 13
        rest = hand ^ lead
        for card in _one_of_each_run(other & (_SUIT << (13 * led)) or other, rest | lead):
            suit = (card.bit_length() - 1) // 13
            follower_wins = card > lead if suit == led else suit == _SPADES_AT
            winner = 1 - leader if follower_wins else leader
            after = (rest, other ^ card) if leader == 0 else (other ^ card, rest)
            tricks = (winner == 0) + _tricks_of_seat0(after[0], after[1], winner,
                                                      broken or led == _SPADES_AT or suit == _SPADES_AT, memo)
            if result < 0:
                result = tricks
            elif tricks != result:
                raise _Undecided
    memo[key] = result
    return result


def decided_tricks(game: Game, max_tricks: int = DECIDED_MAX_TRICKS) -> tuple[int, int] | None:
    """The tricks each seat will win in the rest of the hand, when every legal play-out gives the same.

    ``None`` when the result is still open, when it is not the start of a trick, or when more
    than ``max_tricks`` tricks remain (the search is not tried).
    """
    if game.phase != PLAY or game.trick or len(game.movers) != 1:
        return None
    left = len(game.hands[0])
    if left == 0 or left > max_tricks:
        return None
    try:
        seat0 = _tricks_of_seat0(_mask(game.hands[0]), _mask(game.hands[1]), game.movers[0], game.spades_broken, {})
    except _Undecided:
        return None
    return seat0, left - seat0


def decided_playout(game: Game, max_tricks: int = DECIDED_MAX_TRICKS) -> list[Play] | None:
    """The rest of the hand as the engine plays it when its end is decided, else ``None``.

    Each player in turn plays the first card the rules allow, in display order (any legal
    play-out gives the same tricks; this one is easy to check again).
    """
    if decided_tricks(game, max_tricks) is None:
        return None
    hands = [list(game.hands[0]), list(game.hands[1])]
    leader, broken = game.movers[0], game.spades_broken
    out: list[Play] = []
    while hands[0]:
        lead = playable(hands[leader], (), broken)[0]
        follower = 1 - leader
        card = playable(hands[follower], ((leader, lead),), broken)[0]
        out += [Play(leader, lead), Play(follower, card)]
        hands[leader].remove(lead)
        hands[follower].remove(card)
        led = lead.suit
        broken = broken or led is SPADES or card.suit is SPADES
        if (card.suit is led and card.rank > lead.rank) or (card.suit is SPADES and led is not SPADES):
            leader = follower  # the winner leads the next trick (D7)
    return out


def mark(events: Sequence[Event], kind: str) -> list[Event]:
    """``events`` with their ``card_played`` marked as played by the service (``kind``: forced or decided)."""
    return [CardPlayed(e.seat, e.card, kind) if type(e) is CardPlayed else e for e in events]


def autoplay(game: Game, dealer: Dealer | None = None, forced: Sequence[bool] = (True, True),
             finish: bool = True) -> list[Event]:
    """Play what plays itself now, applying the events to ``game``; the events, in order.

    ``forced[seat]``: that player's forced cards are played for them (``AUTOPLAY ON``).
    ``finish``: a hand whose end is decided is played out at the start of a trick (two or more
    tricks left; the last trick alone is forced cards). Stops when a player has a choice to
    make or the hand is over.
    """
    out: list[Event] = []
    hand = game.hand_no
    while game.phase == PLAY and game.hand_no == hand:
        playout = decided_playout(game) if finish and len(game.hands[0]) >= 2 and not game.trick else None
        if playout:
            for play in playout:
                for event in mark(decide(game, play, dealer), AUTO_DECIDED):
                    game.apply(event)
                    out.append(event)
            break
        command = forced_play(game)
        if command is None or not forced[command.seat]:
            break
        for event in mark(decide(game, command, dealer), AUTO_FORCED):
            game.apply(event)
            out.append(event)
    return out

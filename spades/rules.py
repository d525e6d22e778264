"""The rules as a function: :func:`decide` checks a command against a game and returns the events it causes.

The move itself and what follows from it: a trick won, a hand scored (RULES.md sections 7-8), the next hand
shuffled, the end of the game; or a :class:`spades.errors.RuleError` saying what is allowed. Commands are
dispatched on their type (this is the hot path of every move).
"""

from __future__ import annotations

from typing import Any, Callable

from . import errors
from .commands import (
    FORFEIT_REASONS,
    Bid,
    Command,
    DeclareDoubleNil,
    DeclineDoubleNil,
    Discard,
    Exchange,
    Forfeit,
    Keep,
    Play,
)
from .dealer import Dealer
from .events import (
    BidMade,
    CardPlayed,
    CardsExchanged,
    DoubleNilDeclared,
    DoubleNilDeclined,
    DrawDecided,
    Event,
    GameEnded,
    HandScored,
    HandStarted,
    TrickWon,
)
from .legal import MAX_EXCHANGE, legal_moves
from .scoring import score_player, winner_after_hand
from .state import BID, DRAW, EXCHANGE, OVER, PLAY, SPADES, Game

SEAT_NAMES = ("seat 0", "seat 1")


def _seat_name(seat: int | None) -> str:
    return SEAT_NAMES[seat] if seat in (0, 1) else "nobody"


def decide(game: Game, command: Command, dealer: Dealer | None = None) -> list[Event]:
    """The events ``command`` causes in ``game``, or a :class:`RuleError` saying what is allowed.

    ``game`` is not changed. ``dealer`` supplies the randomness the command may need (an
    exchange draw; the next hand's shuffle); it defaults to a secure one.
    """
    handler = _DECIDE.get(type(command))
    if handler is None:
        handler = next((h for cls, h in _DECIDE.items() if isinstance(command, cls)), None)
        if handler is None:
            raise errors.RuleError(f"not a command: {command!r}")
    seat = command.seat
    if seat != 0 and seat != 1:
        raise errors.RuleError(f"no such seat: {seat!r}")
    if game.phase == OVER:
        raise errors.GameOverError("the game is over")
    if isinstance(command, Forfeit):  # allowed whoever is to move
        return _decide_forfeit(game, command, dealer)
    if seat not in game.movers:
        raise _not_your_turn(game, seat)
    try:
        return handler(game, command, dealer)
    except errors.RuleError as exc:
        exc.legal = tuple(legal_moves(game, seat))  # computed only when needed: errors are rare
        raise


def _not_your_turn(game: Game, seat: int) -> errors.NotYourTurn:
    """Why ``seat`` may not move now, naming the seat that may (the other one)."""
    other = 1 - seat
    if game.phase == DRAW and game.rules.simultaneous_draw:
        if not game.dn_decided[game.first_player]:
            return errors.FirstPlayerChoosing(
                f"{_seat_name(other)} makes their double nil choice first; you may draw after that (D11)",
                [], to_move=other)
        return errors.NotYourTurn(f"you hold 13 cards; {_seat_name(other)} is still drawing", [], to_move=other)
    return errors.NotYourTurn(f"it is {_seat_name(game.to_move)}'s turn", [], to_move=game.to_move)


def _wrong_phase(game: Game, seat: int) -> errors.WrongPhase:
    what = {
        DRAW: "choose double nil or draw" if game.offer_pending(seat) else "keep or discard",
        EXCHANGE: "exchange 0 to 3 cards",
        BID: "bid 0 to 13",
        PLAY: "play a card",
    }[game.phase]
    return errors.WrongPhase(f"now is the time to {what}")


def _decide_forfeit(game: Game, command: Forfeit, dealer: Dealer | None) -> list[Event]:
    if command.reason not in FORFEIT_REASONS:
        raise errors.RuleError(f"unknown reason {command.reason!r}: resigned or timeout")
    return [GameEnded(winner=1 - command.seat, scores=(game.scores[0], game.scores[1]), reason=command.reason,
                      hands=len(game.history))]


def _decide_double_nil(game: Game, command: DeclareDoubleNil | DeclineDoubleNil, dealer: Dealer | None) -> list[Event]:
    seat = command.seat
    if game.phase == DRAW and not game.dn_decided[seat]:
        if type(command) is DeclareDoubleNil:
            return [DoubleNilDeclared(seat)]
        return [DoubleNilDeclined(seat)]
    if isinstance(command, DeclareDoubleNil) or game.phase == DRAW:
        raise errors.DoubleNilNotAllowed(
            "double nil may only be declared before your first draw decision of the hand")
    raise _wrong_phase(game, command.seat)


def _decide_keep(game: Game, command: Keep | Discard, dealer: Dealer | None) -> list[Event]:
    if game.phase != DRAW:
        raise _wrong_phase(game, command.seat)
    seat = command.seat
    if not game.dn_decided[seat]:
        raise errors.WrongPhase("first choose double nil or draw (you have not seen a card yet)")
    pos = game.draw_position(seat)
    first, second = game.deck[pos], game.deck[pos + 1]
    if type(command) is Keep:
        return [DrawDecided(seat, True, first, second)]
    return [DrawDecided(seat, False, second, first)]


def _decide_exchange(game: Game, command: Exchange, dealer: Dealer | None) -> list[Event]:
    if game.phase != EXCHANGE:
        raise _wrong_phase(game, command.seat)
    thrown = tuple(command.cards)
    hand = game.hands[command.seat]
    if len(thrown) > MAX_EXCHANGE:
        raise errors.BadExchange(f"you may exchange at most {MAX_EXCHANGE} cards")
    if len(set(thrown)) != len(thrown):
        raise errors.BadExchange("the same card was named twice")
    missing = [c for c in thrown if c not in hand]
    if missing:
        raise errors.BadExchange(f"not in your hand: {' '.join(getattr(c, 'code', str(c)) for c in missing)}")
    received = (dealer or Dealer()).draw_from(game.discards, len(thrown)) if thrown else ()
    return [CardsExchanged(seat=command.seat, thrown=thrown, received=tuple(received))]


def _decide_bid(game: Game, command: Bid, dealer: Dealer | None) -> list[Event]:
    if game.phase != BID:
        raise _wrong_phase(game, command.seat)
    tricks = command.tricks
    if type(tricks) is not int or not 0 <= tricks <= 13:
        raise errors.BidOutOfRange("a bid is a whole number from 0 (nil) to 13")
    return [BidMade(seat=command.seat, tricks=tricks)]


def _decide_play(game: Game, command: Play, dealer: Dealer | None) -> list[Event]:
    if game.phase != PLAY:
        raise _wrong_phase(game, command.seat)
    seat, card = command.seat, command.card
    hand = game.hands[seat]
    if card not in hand:
        raise errors.CardNotInHand(f"{getattr(card, 'code', card)} is not in your hand")
    trick = game.trick
    suit = card.suit
    if not trick:
        if suit is SPADES and not game.spades_broken:
            for c in hand:
                if c.suit is not SPADES:
                    raise errors.SpadesNotBroken("spades are not broken yet: lead another suit")
        return [CardPlayed(seat, card)]
    lead_seat, lead = trick[0]
    led = lead.suit
    if suit is not led:
        for c in hand:
            if c.suit is led:
                raise errors.MustFollowSuit(f"you must follow {led.word}", suit=led)
    # two cards: the follower wins with a higher card of the suit led, or with a spade on another suit
    if (suit is led and card.rank > lead.rank) or (suit is SPADES and led is not SPADES):
        winner = seat
    else:
        winner = lead_seat
    trick_no = game.tricks_won[0] + game.tricks_won[1] + 1
    played = CardPlayed(seat, card)
    won = TrickWon(trick_no, winner, (trick[0], (seat, card)))
    if trick_no < 13:
        return [played, won]
    return [played, won, *_end_of_hand(game, winner, dealer)]


def _end_of_hand(game: Game, last_winner: int, dealer: Dealer | None) -> list[Event]:
    tricks = list(game.tricks_won)
    tricks[last_winner] += 1
    score0, score1 = (
        score_player(
            bid=game.bids[s] or 0, double_nil=game.double_nil[s], tricks=tricks[s],
            score_before=game.scores[s], bags_before=game.bags[s], rules=game.rules,
        )
        for s in (0, 1)
    )
    scores = (score0, score1)
    events: list[Event] = [HandScored(hand=game.hand_no, scores=scores)]
    totals = (scores[0].game_total, scores[1].game_total)
    over = winner_after_hand(totals, game.rules)
    if over:
        events.append(GameEnded(winner=over[0], scores=totals, reason=over[1], hands=game.hand_no))
    else:
        nxt = game.second_player  # roles swap (section 2)
        deck = (dealer or Dealer()).shuffled_deck()
        events.append(HandStarted(hand=game.hand_no + 1, first_player=nxt, deck=deck))
    return events


_DECIDE: dict[type, Callable[[Game, Any, Dealer | None], list[Event]]] = {
    Play: _decide_play,
    Keep: _decide_keep,
    Discard: _decide_keep,
    DeclineDoubleNil: _decide_double_nil,
    DeclareDoubleNil: _decide_double_nil,
    Bid: _decide_bid,
    Exchange: _decide_exchange,
    Forfeit: _decide_forfeit,
}

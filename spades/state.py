"""The state of a game: :class:`Game`, changed only by applying events, and the fold that rebuilds it.

* :func:`new_game` returns the opening events of a game.
* :class:`Game` is the state; :meth:`Game.apply` is the only way it changes.
* :func:`fold` rebuilds a game from its events.

Who may move: :attr:`Game.movers` holds the seats that may give a command now (none, one, or
both during a simultaneous draw, RULES D11); :meth:`Game.may_move` asks for one seat.
:attr:`Game.to_move` is that seat when exactly one may move, else ``None``.

Section numbers refer to RULES.md. Applying is on the hot path: hands are kept as lists in
display order (cards hash and compare by identity, see ``spades.cards``) and events are
dispatched on their type.
"""

from __future__ import annotations

from bisect import insort
from typing import Any, Callable, Iterable, Sequence

from .cards import Card, Suit, sort_key
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
    GameStarted,
    HandScored,
    HandStarted,
    HouseRules,
    TrickWon,
)

DRAW, EXCHANGE, BID, PLAY, OVER = "draw", "exchange", "bid", "play", "over"
PHASES = (DRAW, EXCHANGE, BID, PLAY, OVER)
SPADES = Suit.SPADES
Seats = tuple[int, ...]  # the seats that may move (:attr:`Game.movers`)
_ONE: tuple[Seats, Seats] = ((0,), (1,))
_NOBODY: Seats = ()
_BOTH: tuple[Seats, Seats] = ((0, 1), (1, 0))  # by first player: first, second


class Game:
    """The state of one game. Build it with :func:`fold`; change it only with :meth:`apply`.

    ``hands[seat]`` holds a seat's cards in display order (``spades.cards.sorted_hand``).
    """

    def __init__(self) -> None:
        self.game_id = ""
        self.rules = HouseRules()
        self.version = 0  # number of events applied
        self.phase = ""
        self.hand_no = 0
        self.first_player = 0
        self.scores = [0, 0]
        self.bags = [0, 0]
        self.history: list[HandScored] = []
        self.winner: int | None = None
        self.end_reason: str | None = None
        self._reset_hand(0, ())

    def _reset_hand(self, first: int, deck: Sequence[Card]) -> None:
        self.first_player = first
        self.deck: tuple[Card, ...] = tuple(deck)
        self.draw_pos = 0  # cards drawn so far by both players (2 a decision)
        self.hands: list[list[Card]] = [[], []]
        self.kept: list[list[Card]] = [[], []]
        self.discarded: list[list[Card]] = [[], []]
        self.discards: list[Card] = []
        self.decisions = [0, 0]
        self.dn_decided = [False, False]  # chose double nil or not (D3); true after any draw decision
        self.double_nil = [False, False]
        self.exchanged: list[tuple[tuple[Card, ...], tuple[Card, ...]] | None] = [None, None]
        self.bids: list[int | None] = [None, None]
        self.trick: list[tuple[int, Card]] = []
        self.leader = 1 - first
        self.last_trick: TrickWon | None = None
        self.tricks_won = [0, 0]
        self.won_cards: list[list[Card]] = [[], []]
        self.played: list[Card] = []  # every card played this hand, in order (public)
        self.spades_broken = False
        self.movers: Seats = _ONE[first]  # the first player draws first (section 3)

    # -- derived -----------------------------------------------------------------------
    @property
    def to_move(self) -> int | None:
        """The seat to move when exactly one may move; ``None`` when nobody or both may (see :attr:`movers`)."""
        movers = self.movers
        return movers[0] if len(movers) == 1 else None

    def may_move(self, seat: int) -> bool:
        """True when ``seat`` may give a command now (forfeit aside)."""
        return seat in self.movers

    def draw_position(self, seat: int) -> int:
        """The index in the deck of the first card of ``seat``'s next draw decision (D11).

        The first player's k-th decision uses cards 4k-3 and 4k-2 from the top, the second
        player's 4k-1 and 4k, whatever order the decisions arrive in (with alternation too).
        """
        return 4 * self.decisions[seat] + (0 if seat == self.first_player else 2)

    def undrawn(self) -> list[Card]:
        """The cards of the draw pile nobody has drawn yet, in pile order."""
        if self.phase != DRAW:
            return []
        first, second = self.first_player, 1 - self.first_player
        taken = {4 * k + i for k in range(self.decisions[first]) for i in (0, 1)}
        taken |= {4 * k + i for k in range(self.decisions[second]) for i in (2, 3)}
        return [c for i, c in enumerate(self.deck) if i not in taken]

    @property
    def second_player(self) -> int:
        return 1 - self.first_player

    @property
    def trick_no(self) -> int:
        """The number (1-13) of the trick being played."""
        return self.tricks_won[0] + self.tricks_won[1] + 1

    def bid_order(self) -> list[int]:
        """Seats still to bid, second player first (section 5), skipping double nil bidders."""
        return [s for s in (self.second_player, self.first_player) if not self.double_nil[s] and self.bids[s] is None]

    def exchange_order(self) -> list[int]:
        """Double nil bidders still to exchange, in bidding order (D4)."""
        return [s for s in (self.second_player, self.first_player) if self.double_nil[s] and self.exchanged[s] is None]

    def offer_pending(self, seat: int) -> bool:
        """True when ``seat`` is at their first draw decision and has not yet chosen DN or DRAW (D3)."""
        return self.phase == DRAW and seat in self.movers and not self.dn_decided[seat]

    # -- applying events ---------------------------------------------------------------
    def apply(self, event: Event) -> None:
        """Change the state by one event. Events are trusted here; :func:`decide` checks commands."""
        _APPLY[type(event)](self, event)
        self.version += 1

    def _game_started(self, e: GameStarted) -> None:
        self.game_id = e.game_id
        self.rules = e.rules
        self.first_player = e.first_player

    def _hand_started(self, e: HandStarted) -> None:
        self.hand_no = e.hand
        self._reset_hand(e.first_player, e.deck)
        self.phase = DRAW

    def _dn_declared(self, e: DoubleNilDeclared) -> None:
        self.dn_decided[e.seat] = True
        self.double_nil[e.seat] = True
        if e.seat == self.first_player and self.rules.simultaneous_draw:
            self.movers = _BOTH[e.seat]  # the second player may start once the first has chosen (D11)

    def _dn_declined(self, e: DoubleNilDeclined) -> None:
        self.dn_decided[e.seat] = True
        if e.seat == self.first_player and self.rules.simultaneous_draw:
            self.movers = _BOTH[e.seat]

    def _draw_decided(self, e: DrawDecided) -> None:
        seat = e.seat
        insort(self.hands[seat], e.kept, key=sort_key)
        self.kept[seat].append(e.kept)
        self.discarded[seat].append(e.discarded)
        self.discards.append(e.discarded)
        self.dn_decided[seat] = True
        self.decisions[seat] += 1
        self.draw_pos += 2
        if self.draw_pos >= 52:
            self._after_draw()
        elif not self.rules.simultaneous_draw:
            self.movers = _ONE[1 - seat]
        elif self.decisions[seat] == 13:  # D11: this player holds 13 cards, the other still draws
            self.movers = _ONE[1 - seat]
        # else (D11): the movers stay as they are: both, or this player alone if the other is done

    def _after_draw(self) -> None:
        if self.rules.simultaneous_draw:  # the discard pile in pile order, as alternation leaves it (D11)
            thrown = set(self.discards)
            self.discards = [c for c in self.deck if c in thrown]
        order = self.exchange_order()
        if order:
            self.phase = EXCHANGE
            self.movers = _ONE[order[0]]
        else:
            self._start_bidding()

    def _start_bidding(self) -> None:
        order = self.bid_order()
        if order:
            self.phase = BID
            self.movers = _ONE[order[0]]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.leader = self.second_player
        self.movers = _ONE[self.leader]

    def _cards_exchanged(self, e: CardsExchanged) -> None:
        hand = self.hands[e.seat]
        for card in e.thrown:
            hand.remove(card)
        for card in e.received:
            insort(hand, card, key=sort_key)
            self.discards.remove(card)
        self.discards.extend(e.thrown)  # after the draw: nobody draws back their own cards (D5)
        self.exchanged[e.seat] = (e.thrown, e.received)
        order = self.exchange_order()
        if order:
            self.movers = _ONE[order[0]]
        else:
            self._start_bidding()

    def _bid_made(self, e: BidMade) -> None:
        self.bids[e.seat] = e.tricks
        order = self.bid_order()
        if order:
            self.movers = _ONE[order[0]]
        else:
            self._start_play()

    def _card_played(self, e: CardPlayed, _one: tuple[Seats, Seats] = _ONE, _nobody: Seats = _NOBODY) -> None:
        # (the defaults bind the module's constants locally: this runs for half of all events)
        card = e.card
        self.hands[e.seat].remove(card)
        trick = self.trick
        # spades are broken by a spade played on another suit, or by a spade led
        # (legal only once broken, or when the leader holds nothing but spades) (section 6)
        if card.suit is SPADES and (not trick or trick[0][1].suit is not SPADES):
            self.spades_broken = True
        trick.append((e.seat, card))
        self.played.append(card)
        self.movers = _one[1 - e.seat] if len(trick) < 2 else _nobody

    def _trick_won(self, e: TrickWon, _one: tuple[Seats, Seats] = _ONE, _nobody: Seats = _NOBODY) -> None:
        self.tricks_won[e.seat] += 1
        self.won_cards[e.seat].extend([c for _, c in e.cards])
        self.trick = []
        self.last_trick = e
        self.leader = e.seat
        self.movers = _one[e.seat] if e.trick < 13 else _nobody

    def _hand_scored(self, e: HandScored) -> None:
        self.history.append(e)
        for seat in (0, 1):
            self.scores[seat] = e.scores[seat].game_total
            self.bags[seat] = e.scores[seat].bags_carried
        self.movers = _NOBODY

    def _game_ended(self, e: GameEnded) -> None:
        self.phase = OVER
        self.winner = e.winner
        self.end_reason = e.reason
        self.movers = _NOBODY


_APPLY: dict[type, Callable[[Game, Any], None]] = {
    GameStarted: Game._game_started,
    HandStarted: Game._hand_started,
    DoubleNilDeclared: Game._dn_declared,
    DoubleNilDeclined: Game._dn_declined,
    DrawDecided: Game._draw_decided,
    CardsExchanged: Game._cards_exchanged,
    BidMade: Game._bid_made,
    CardPlayed: Game._card_played,
    TrickWon: Game._trick_won,
    HandScored: Game._hand_scored,
    GameEnded: Game._game_ended,
}


def fold(events: Iterable[Event], game: Game | None = None) -> Game:
    """The state after ``events`` (applied on top of ``game`` if given)."""
    game = game or Game()
    apply = _APPLY
    n = 0
    for event in events:
        apply[type(event)](game, event)
        n += 1
    game.version += n
    return game


def new_game(game_id: str, rules: HouseRules | None = None, dealer: Dealer | None = None) -> list[Event]:
    """The opening events of a game: who is first player (D1), and the first hand's shuffle (D10)."""
    dealer = dealer or Dealer()
    first = dealer.first_player()
    return [
        GameStarted(game_id=game_id, rules=rules or HouseRules(), first_player=first),
        HandStarted(hand=1, first_player=first, deck=dealer.shuffled_deck()),
    ]

"""The game: its state as a fold of events, deciding commands, legal moves and player views.

* :func:`new_game` returns the opening events of a game.
* :class:`Game` is the state; :meth:`Game.apply` is the only way it changes.
* :func:`fold` rebuilds a game from its events.
* :func:`decide` checks a command against a game and returns the events it causes
  (the move itself and what follows from it: a trick won, a hand scored, the next
  hand shuffled, the end of the game), or raises a :class:`spades.errors.RuleError`.
* :func:`legal_moves` lists what a seat may do now; :func:`view` is all a seat may know.

Who may move: :attr:`Game.movers` holds the seats that may give a command now (none, one, or
both during a simultaneous draw, RULES D11); :meth:`Game.may_move` asks for one seat.
:attr:`Game.to_move` is that seat when exactly one may move, else ``None``.

Section numbers refer to RULES.md.

The hot path (decide, apply, view) is written for speed: hands are kept as lists in
display order (cards hash and compare by identity, see ``spades.cards``), commands are
dispatched on their type, and a view's legal moves are only built when asked for.
"""

from __future__ import annotations

from bisect import insort
from functools import cached_property
from itertools import combinations
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from . import errors
from .cards import Card, Suit, sort_key
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
    GameStarted,
    HandScored,
    HandStarted,
    HouseRules,
    TrickWon,
)
from .scoring import score_player, winner_after_hand

DRAW, EXCHANGE, BID, PLAY, OVER = "draw", "exchange", "bid", "play", "over"
PHASES = (DRAW, EXCHANGE, BID, PLAY, OVER)
SEAT_NAMES = ("seat 0", "seat 1")
MAX_EXCHANGE = 3
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


# -- legal moves ---------------------------------------------------------------------------
def _playable(hand: Sequence[Card], trick: Sequence[tuple[int, Card]], spades_broken: bool) -> list[Card]:
    """The cards of ``hand`` (in display order) that may be played to ``trick`` (section 6)."""
    if trick:
        led = trick[0][1].suit
        return [c for c in hand if c.suit is led] or list(hand)
    if spades_broken:
        return list(hand)
    return [c for c in hand if c.suit is not SPADES] or list(hand)


def _legal(phase: str, seat: int, may_move: bool, offer: bool, hand: Sequence[Card],
           trick: Sequence[tuple[int, Card]], spades_broken: bool) -> list[Command]:
    if phase == OVER or not may_move:
        return []
    if phase == DRAW:
        if offer:
            return [DeclareDoubleNil(seat), DeclineDoubleNil(seat)]
        return [Keep(seat), Discard(seat)]
    if phase == EXCHANGE:
        return [Exchange(seat, combo) for n in range(MAX_EXCHANGE + 1) for combo in combinations(hand, n)]
    if phase == BID:
        return [Bid(seat, n) for n in range(14)]
    return [Play(seat, card) for card in _playable(hand, trick, spades_broken)]


def playable_cards(game: Game, seat: int) -> list[Card]:
    """The cards ``seat`` may play to the current trick, in display order (section 6)."""
    if game.phase != PLAY or seat not in game.movers:
        return []
    return _playable(game.hands[seat], game.trick, game.spades_broken)


def legal_moves(game: Game, seat: int) -> list[Command]:
    """Every command ``seat`` may give now (empty when they may not move now).

    Forfeit is always allowed too while the game is on, and is not listed. In the
    exchange phase this lists all 378 ways to throw 0 to 3 of 13 cards.
    """
    return _legal(game.phase, seat, seat in game.movers, game.offer_pending(seat), game.hands[seat], game.trick,
                  game.spades_broken)


# -- deciding commands ---------------------------------------------------------------------
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


def trick_winner(cards: Sequence[tuple[int, Card]]) -> int:
    """The seat that wins a trick: the highest spade, else the highest card of the suit led (section 6)."""
    best_seat, best = cards[0]
    for seat, card in cards[1:]:
        if card.suit is best.suit:
            if card.rank > best.rank:
                best_seat, best = seat, card
        elif card.suit is SPADES:
            best_seat, best = seat, card
    return best_seat


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


# -- what a player may know ----------------------------------------------------------------
class _ViewFields(NamedTuple):
    game_id: str
    seat: int
    hand_no: int
    phase: str
    first_player: int
    to_move: int | None  # the one seat that may move, None when nobody or both may (see ``movers``)
    hand: tuple[Card, ...]  # in display order
    double_nil_offer: bool  # at their first draw decision, to choose double nil or not (D3)
    offered: Card | None  # the card on top of the draw pile, when deciding whether to keep it
    kept: tuple[Card, ...]  # own draw decisions this hand
    discarded: tuple[Card, ...]
    exchange: tuple[tuple[Card, ...], tuple[Card, ...]] | None  # own (thrown, received)
    decisions: tuple[int, int]
    opponent_cards: int
    trick: tuple[tuple[int, Card], ...]
    played: tuple[Card, ...]  # every card played this hand so far, in order (public)
    leader: int
    last_trick: TrickWon | None
    tricks_won: tuple[int, int]
    bids: tuple[int | None, int | None]
    double_nil: tuple[bool, bool]
    scores: tuple[int, int]
    bags: tuple[int, int]
    spades_broken: bool
    last_hand: HandScored | None
    winner: int | None
    end_reason: str | None
    rules: HouseRules
    hands_played: int
    movers: Seats  # the seats that may move now (both during a simultaneous draw, D11)


class PlayerView(_ViewFields):
    """All that the player at ``seat`` may know now, and nothing else (an immutable record).

    ``legal`` (what they may do now) and ``playable`` (the cards they may play now) are
    derived from the view itself, when first asked for. Build views with :func:`view`.
    """

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def my_turn(self) -> bool:
        """True when this player may move now (perhaps with the opponent, in a simultaneous draw)."""
        return self.seat in self.movers

    @cached_property
    def legal(self) -> tuple[Command, ...]:
        """Every command this player may give now (as :func:`legal_moves`)."""
        return tuple(_legal(self.phase, self.seat, self.seat in self.movers, self.double_nil_offer, self.hand,
                            self.trick, self.spades_broken))

    @property
    def playable(self) -> list[Card]:
        """The cards this player may play now, in display order (empty unless it is their turn to play)."""
        if self.phase != PLAY or self.seat not in self.movers:
            return []
        return _playable(self.hand, self.trick, self.spades_broken)

    def __repr__(self) -> str:
        return "PlayerView(" + ", ".join(f"{k}={v!r}" for k, v in zip(self._fields, self)) + ")"


_tuple_new = tuple.__new__


def view(game: Game, seat: int) -> PlayerView:
    """What the player at ``seat`` may know: their own cards and decisions, public play, scores."""
    phase = game.phase
    movers = game.movers
    mine = seat in movers
    offer = phase == DRAW and mine and not game.dn_decided[seat]
    offered = game.deck[game.draw_position(seat)] if phase == DRAW and mine and not offer else None
    history = game.history
    return _tuple_new(PlayerView, (
        game.game_id,
        seat,
        game.hand_no,
        phase,
        game.first_player,
        movers[0] if len(movers) == 1 else None,
        tuple(game.hands[seat]),
        offer,
        offered,
        tuple(game.kept[seat]),
        tuple(game.discarded[seat]),
        game.exchanged[seat],
        tuple(game.decisions),
        len(game.hands[1 - seat]),
        tuple(game.trick),
        tuple(game.played),
        game.leader,
        game.last_trick,
        tuple(game.tricks_won),
        tuple(game.bids),
        tuple(game.double_nil),
        tuple(game.scores),
        tuple(game.bags),
        game.spades_broken,
        history[-1] if history else None,
        game.winner,
        game.end_reason,
        game.rules,
        len(history),
        movers,
    ))

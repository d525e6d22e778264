"""Answers given ahead (RULES D12): a player's plan for the hand, and the moves it makes when the game reaches them.

A :class:`Plan` belongs to one seat for one hand (``hand``); it holds what the player chose ahead:

* **follows**: per suit, the card to play when the opponent leads that suit, or a rule: :data:`LOW` (the lowest
  card of the suit led; void in it, the lowest card that is not a spade, else the lowest spade), :data:`WIN` (the
  lowest card that wins the trick: a higher card of the suit led, or, void in it, the lowest spade; none, as
  ``LOW``), :data:`HIGH` (the highest card of the suit led; void in it, the highest card that is not a spade, else
  the highest spade). A follow is for the next trick the player follows in (whichever suit is led then, the
  others are spent with it), or ``always``: for every trick of the hand;
* **leads**: the cards to lead, in order, the next times the player has the lead;
* **bid**: the bid to make when their turn to bid comes, whatever the opponent bid, and ``bid_if``: a bid by a
  range of the opponent's bid (the first range that holds wins over ``bid``);
* **swap**: the exchange after a double nil (D4): the cards to throw, or ``swap_high``: the n highest cards.

:func:`next_move` is the move a plan makes now (or none), the plan after it, and the entry it had to drop (the
card is gone, the follow would break the rules, spades are not broken): the caller asks the player as usual.
:func:`play_ahead` applies plans as far as they reach, as the service does after every move, each planned move
marked ``auto="plan"`` (:data:`spades.events.AUTO_PLAN`) and decided by the engine exactly as if the player had
sent it then. :func:`check` refuses a plan that could not apply as written (a card not held, a follow that the
rules forbid now, a lead of unbroken spades). A plan is hidden from the opponent: nothing here reaches a
:class:`spades.game.PlayerView`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from .cards import BY_CODE, Card, Suit
from .commands import Bid, Command, Exchange, Play
from .errors import RuleError
from .events import AUTO_PLAN, BidMade, CardPlayed, CardsExchanged, Event, HandScored, HandStarted
from .game import BID, EXCHANGE, MAX_EXCHANGE, PLAY, Game

LOW, WIN, HIGH = "LOW", "WIN", "HIGH"
RULES = (LOW, WIN, HIGH)
SPADES = Suit.SPADES
#: Why an entry was dropped (the text a player reads is ``chat``'s): the card is no longer in the hand, the rules
#: require another suit, spades are not broken, a bid or an exchange the rules refuse.
GONE, FOLLOW, UNBROKEN, REFUSED = "gone", "follow", "spades", "refused"
#: At most this many planned moves in one chain (a hand has 26 cards, two bids and two exchanges).
CHAIN_LIMIT = 40


@dataclass(frozen=True, slots=True)
class Follow:
    """What to play when the opponent leads ``suit``: a card, or one of :data:`RULES`."""

    suit: Suit
    play: Card | str
    always: bool = False

    @property
    def text(self) -> str:
        play = self.play.code if isinstance(self.play, Card) else self.play
        return f"{self.suit.letter} {play}"


@dataclass(frozen=True, slots=True)
class Plan:
    """One seat's answers given ahead for hand ``hand`` (see the module docstring)."""

    hand: int
    follows: tuple[Follow, ...] = ()
    leads: tuple[Card, ...] = ()
    bid: int | None = None
    bid_if: tuple[tuple[int, int, int], ...] = ()  # (lowest, highest opponent's bid, this bid)
    swap: tuple[Card, ...] | None = None
    swap_high: int = 0

    @property
    def empty(self) -> bool:
        return not (self.follows or self.leads or self.bid is not None or self.bid_if or self.swap is not None
                    or self.swap_high)

    def follow(self, suit: Suit) -> Follow | None:
        return next((f for f in self.follows if f.suit is suit), None)

    def merged(self, new: "Plan") -> "Plan":
        """This plan with ``new``'s entries in place of the same kind (a suit's follow, the leads, the bid, the
        exchange); a plan of another hand is replaced whole."""
        if new.hand != self.hand:
            return new
        suits = {f.suit for f in new.follows}
        return Plan(
            self.hand,
            tuple(f for f in self.follows if f.suit not in suits) + new.follows,
            new.leads or self.leads,
            new.bid if new.bid is not None or new.bid_if else self.bid,
            new.bid_if if new.bid is not None or new.bid_if else self.bid_if,
            new.swap if new.swap is not None or new.swap_high else self.swap,
            new.swap_high if new.swap is not None or new.swap_high else self.swap_high,
        )

    # -- storage ---------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hand": self.hand}
        if self.follows:
            out["follows"] = [[f.suit.letter, f.play.code if isinstance(f.play, Card) else f.play, int(f.always)]
                              for f in self.follows]
        if self.leads:
            out["leads"] = [c.code for c in self.leads]
        if self.bid is not None:
            out["bid"] = self.bid
        if self.bid_if:
            out["bid_if"] = [list(r) for r in self.bid_if]
        if self.swap is not None:
            out["swap"] = [c.code for c in self.swap]
        if self.swap_high:
            out["swap_high"] = self.swap_high
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Plan":
        return cls(
            int(data["hand"]),
            tuple(Follow(Suit(s), BY_CODE[p] if p in BY_CODE else str(p), bool(a)) for s, p, a in data.get("follows", ())),
            tuple(BY_CODE[c] for c in data.get("leads", ())),
            data.get("bid"),
            tuple((int(a), int(b), int(c)) for a, b, c in data.get("bid_if", ())),
            tuple(BY_CODE[c] for c in data["swap"]) if "swap" in data else None,
            int(data.get("swap_high", 0)),
        )

    @classmethod
    def loads(cls, text: str | None) -> "Plan | None":
        """The plan stored as ``text`` (:meth:`dumps`), or None for none (or an unreadable one)."""
        if not text:
            return None
        try:
            return cls.from_dict(json.loads(text))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True, slots=True)
class Dropped:
    """A plan entry that could not apply when its moment came (``entry``: as the player would write it, ``card``:
    the card it named, if one), and why (:data:`GONE`, :data:`FOLLOW`, :data:`UNBROKEN`, :data:`REFUSED`)."""

    entry: str
    reason: str
    card: Card | None = None


# -- the move a plan makes ---------------------------------------------------------------------------------
def _by_rank(cards: Sequence[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: c.rank)


def resolve(rule: str, hand: Sequence[Card], trick: Sequence[tuple[int, Card]]) -> Card:
    """The card ``rule`` (:data:`LOW`, :data:`WIN`, :data:`HIGH`) plays from ``hand`` on the card led in ``trick``."""
    led_card = trick[0][1]
    led = led_card.suit
    same = _by_rank([c for c in hand if c.suit is led])
    others = _by_rank([c for c in hand if c.suit is not SPADES]) or _by_rank(list(hand))
    if same:
        if rule == HIGH:
            return same[-1]
        if rule == WIN:
            return next((c for c in same if c.rank > led_card.rank), same[0])
        return same[0]
    if rule == WIN and led is not SPADES:
        spades = _by_rank([c for c in hand if c.suit is SPADES])
        if spades:
            return spades[0]
    return others[-1] if rule == HIGH else others[0]


def _highest(hand: Sequence[Card], n: int) -> tuple[Card, ...]:
    """The ``n`` highest cards of ``hand`` (spades first among equal ranks: they win most)."""
    return tuple(sorted(hand, key=lambda c: (c.rank, c.suit is SPADES), reverse=True)[:n])


def next_move(game: Game, seat: int, plan: Plan | None) -> tuple[Command | None, Plan | None, Dropped | None]:
    """The move ``plan`` makes for ``seat`` now (None: it does not cover the decision asked now, or the seat is not
    the one to move), the plan after it (its entry spent), and the entry it dropped instead of a move."""
    if plan is None or plan.hand != game.hand_no or game.movers != (seat,):
        return None, plan, None
    phase = game.phase
    hand = game.hands[seat]
    if phase == BID:
        theirs = game.bids[1 - seat]
        bid = next((b for lo, hi, b in plan.bid_if if theirs is not None and lo <= theirs <= hi), plan.bid)
        if bid is None:
            return None, plan, None
        return Bid(seat, bid), replace(plan, bid=None, bid_if=()), None
    if phase == EXCHANGE:
        if plan.swap is None and not plan.swap_high:
            return None, plan, None
        after = replace(plan, swap=None, swap_high=0)
        cards = plan.swap if plan.swap is not None else _highest(hand, min(plan.swap_high, MAX_EXCHANGE))
        missing = [c for c in cards if c not in hand]
        if missing:
            return None, after, Dropped("SWAP " + " ".join(c.code for c in cards), GONE, missing[0])
        return Exchange(seat, tuple(cards)), after, None
    if phase != PLAY:
        return None, plan, None
    trick = game.trick
    if not trick:
        if not plan.leads:
            return None, plan, None
        card, after = plan.leads[0], replace(plan, leads=plan.leads[1:])
        if card not in hand:
            return None, after, Dropped(f"LEAD {card.code}", GONE, card)
        if card.suit is SPADES and not game.spades_broken and any(c.suit is not SPADES for c in hand):
            return None, after, Dropped(f"LEAD {card.code}", UNBROKEN, card)
        return Play(seat, card), after, None
    led = trick[0][1].suit
    entry = plan.follow(led)
    if entry is None:
        return None, plan, None
    once = replace(plan, follows=tuple(f for f in plan.follows if f is not entry))
    if isinstance(entry.play, Card):
        card, spent = entry.play, once  # a card plays once, always or not
        if card not in hand:
            return None, spent, Dropped(f"IF {entry.text}", GONE, card)
        if card.suit is not led and any(c.suit is led for c in hand):
            return None, spent, Dropped(f"IF {entry.text}", FOLLOW, card)
        return Play(seat, card), spent, None
    return Play(seat, resolve(entry.play, hand, trick)), plan if entry.always else once, None


def after_events(plan: Plan | None, seat: int, events: Sequence[Event]) -> Plan | None:
    """The plan of ``seat`` after ``events``: cleared at the end of its hand; the follows for the next trick
    spent once the seat followed in one; entries naming a card the seat played (by hand or by plan) gone."""
    if plan is None:
        return None
    for e in events:
        if isinstance(e, (HandScored, HandStarted)):
            return None
        if isinstance(e, CardPlayed) and e.seat == seat:
            card = e.card
            follows = tuple(f for f in plan.follows if f.play is not card)
            leads = tuple(c for c in plan.leads if c is not card)
            if follows != plan.follows or leads != plan.leads:
                plan = replace(plan, follows=follows, leads=leads)
        elif isinstance(e, BidMade) and e.seat == seat:
            plan = replace(plan, bid=None, bid_if=())
        elif isinstance(e, CardsExchanged) and e.seat == seat:
            plan = replace(plan, swap=None, swap_high=0)
    return plan if not plan.empty else None


def spend_follows(plan: Plan | None, game_before: tuple[tuple[int, Card], ...], seat: int,
                  events: Sequence[Event]) -> Plan | None:
    """``plan`` with its next-trick follows spent if ``seat`` followed (played second) in ``events``, the trick
    under way before them being ``game_before``."""
    if plan is None or not any(not f.always for f in plan.follows):
        return plan
    trick_len = len(game_before)
    for e in events:
        if isinstance(e, CardPlayed):
            if trick_len == 1 and e.seat == seat:
                kept = tuple(f for f in plan.follows if f.always)
                plan = replace(plan, follows=kept)
                return plan if not plan.empty else None
            trick_len = 1 if trick_len == 0 else 0
    return plan


def mark_planned(events: Sequence[Event]) -> list[Event]:
    """``events`` with the player's move among them (the first card played, bid or exchange) marked as planned."""
    out = list(events)
    for i, e in enumerate(out):
        if isinstance(e, (CardPlayed, BidMade, CardsExchanged)):
            out[i] = replace(e, auto=AUTO_PLAN)
            break
    return out


@dataclass
class Ahead:
    """What :func:`play_ahead` did: the events (planned moves and what followed them), each seat's plan after,
    and the entries each seat had dropped."""

    events: list[Event] = field(default_factory=list)
    plans: list[Plan | None] = field(default_factory=lambda: [None, None])
    dropped: list[list[Dropped]] = field(default_factory=lambda: [[], []])


def track(plans: Sequence[Plan | None], trick_before: tuple[tuple[int, Card], ...],
          events: Sequence[Event]) -> list[Plan | None]:
    """Both seats' plans after ``events`` were applied (any move, planned or sent): :func:`spend_follows`, then
    :func:`after_events`."""
    return [after_events(spend_follows(plans[s], trick_before, s, events), s, events) for s in (0, 1)]


def play_ahead(game: Game, plans: Sequence[Plan | None], decide_fold: Callable[[Game, Command], list[Event]],
               follow_on: Callable[[Game], list[Event]] = lambda g: []) -> Ahead:
    """Apply the seats' plans to ``game`` as far as they reach (``game`` is folded on), as the service does after
    each move: while the one seat to move has a plan entry for the decision asked, decide it
    (``decide_fold``: ``spades.game.decide`` with the game's dealer, folded on ``game``), then what plays itself
    after it (``follow_on``: autoplay, the service's own draws; folded too). Stops at :data:`CHAIN_LIMIT` moves,
    when no plan covers the decision, or when the game is over."""
    out = Ahead(plans=list(plans))
    for _ in range(CHAIN_LIMIT):
        if len(game.movers) != 1:
            break
        seat = game.movers[0]
        command, plan, dropped = next_move(game, seat, out.plans[seat])
        out.plans[seat] = plan if plan is not None and not plan.empty else None
        if dropped is not None:
            out.dropped[seat].append(dropped)
        if command is None:
            break  # nothing planned for this decision, or an entry dropped: the player is asked as usual
        trick = tuple(game.trick)
        try:
            new = mark_planned(decide_fold(game, command))
        except RuleError:  # (next_move checks what it can; the engine has the last word)
            out.dropped[seat].append(Dropped(_entry_text(command), REFUSED, getattr(command, "card", None)))
            break
        new += follow_on(game)
        out.events += new
        out.plans = track(out.plans, trick, new)
    return out


def _entry_text(command: Command) -> str:
    if isinstance(command, Play):
        return command.card.code
    if isinstance(command, Bid):
        return f"BID {command.tricks}"
    if isinstance(command, Exchange):
        return "SWAP " + " ".join(c.code for c in command.cards)
    return type(command).__name__


# -- checking a plan when it is given ----------------------------------------------------------------------
class PlanError(ValueError):
    """A plan that could not apply as written: ``reason`` (:data:`GONE`, :data:`FOLLOW`, :data:`UNBROKEN`,
    ``"over"``: the hand or the game is over; ``"bid"``: the bid is made or out of range; ``"swap"``: no double nil
    or more than three cards), ``card`` the card at fault."""

    def __init__(self, reason: str, card: Card | None = None, entry: str = "") -> None:
        super().__init__(f"{reason}: {entry or (card.code if card else '')}")
        self.reason = reason
        self.card = card
        self.entry = entry


def check(game: Game, seat: int, plan: Plan) -> None:
    """Raise :class:`PlanError` if ``plan`` could not apply as written in ``game`` for ``seat`` now: a card not in
    the hand, a follow of another suit while holding the suit led, a spade lead while spades are not broken and
    the hand holds another suit, a bid out of range or already made, an exchange without a double nil."""
    if game.phase == "over" or plan.hand != game.hand_no:
        raise PlanError("over")
    hand = game.hands[seat]
    for f in plan.follows:
        if isinstance(f.play, Card):
            if f.play not in hand:
                raise PlanError(GONE, f.play, f"IF {f.text}")
            if f.play.suit is not f.suit and any(c.suit is f.suit for c in hand):
                raise PlanError(FOLLOW, f.play, f"IF {f.text}")
    for card in plan.leads:
        if card not in hand:
            raise PlanError(GONE, card, f"LEAD {card.code}")
    if len(set(plan.leads)) != len(plan.leads):
        raise PlanError(GONE, plan.leads[0], "LEAD")
    if plan.leads and plan.leads[0].suit is SPADES and not game.spades_broken \
            and any(c.suit is not SPADES for c in hand):
        raise PlanError(UNBROKEN, plan.leads[0], f"LEAD {plan.leads[0].code}")
    if plan.bid is not None or plan.bid_if:
        if game.phase not in ("draw", EXCHANGE, BID) or game.bids[seat] is not None or game.double_nil[seat]:
            raise PlanError("bid")
        if any(not 0 <= b <= 13 for b in [plan.bid or 0] + [b for _, _, b in plan.bid_if]):
            raise PlanError("bid")
    if plan.swap is not None or plan.swap_high:
        if not game.double_nil[seat] or game.exchanged[seat] is not None or game.phase not in ("draw", EXCHANGE):
            raise PlanError("swap")
        for card in plan.swap or ():
            if card not in hand:
                raise PlanError(GONE, card, f"SWAP {card.code}")
        if len(plan.swap or ()) > MAX_EXCHANGE or plan.swap_high > MAX_EXCHANGE:
            raise PlanError("swap")

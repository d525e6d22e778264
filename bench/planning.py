"""A player who gives answers ahead (RULES D12) as the ``normal`` bot would choose them: the "with plans" players
of ``bench/cost.py`` and ``bench/pace.py``.

At each look (after every answer, once they owe nothing more: a player answers what is asked first) the player
works out what ``normal`` (``spades.bots.get("normal")``) would do at their next decisions, from their own view
only, and sends the part of it that is the same whatever the opponent does meanwhile:

* **bid**: once their hand is known (their last draw decision) and their turn to bid has not come: ``BID n``,
  ``normal``'s bid (it depends on the hand alone, so no ranges are needed);
* **follows**: for each suit, every unseen card of that suit the opponent could lead at the player's next follow
  (after every card the opponent may play before it, and before play starts, with the opponent's bid nil or not:
  the only thing of the opponent's bid ``normal`` looks at), and what ``normal`` would play on it. One card for
  all: that card; all the lowest, all the lowest that wins, or all the highest: that rule
  (``LOW``/``WIN``/``HIGH``); else the suit is left out (the player will be asked);
* **leads**: the card ``normal`` would lead the next time the player leads, if it is the same on every way the
  game can get there within the trick under way and the next; else the card ``normal`` would lead if it led
  now (the player's best guess: the one entry here that is not the same on every way); then the leads after
  it, as long as the player keeps the lead whatever the opponent plays (cashing sure winners) and ``normal``
  would lead the same card. With ``guess=False`` (``bench/cost.py --strict-leads``) no lead is guessed: the
  planned moves are then ``normal``'s at their moment (0.4 % differ over ``bench/cost.py 3``'s games, against
  10.5 % with the guess, every one a guessed lead), and the hand waits for the player more often. (Guessing every
  lead after the first as well, each as if led now, was tried: fewer days, but one planned move in five was not
  ``normal``'s: a strategy, not the mechanism; not kept.)

Every follow is given **ALWAYS** (for every trick of the hand, until the player changes it; a card plays once).
Why: a follow for the next trick only is spent by one trick, and a player who looks once a day would then hold up
every trick after it; ``ALWAYS`` lets the opponent play a whole hand out in one sitting. It is the player's
choice, and its price is that between two looks the plan answers as ``normal`` would have at the look, not as it
would at the moment (``normal`` ducks once its bid is made): ``bench/cost.py`` counts how often a planned move
differs from what ``normal`` would have played then (the follows: hardly ever, since a player re-plans at each
look and a rule is given only where it is ``normal``'s answer whatever the opponent leads). A player re-plans at every look: when what they want
differs from the plan the service holds, they send what changed (``ALWAYS``/``LEAD``/``BID``), or, when
a suit they held a follow for is now better left out, ``PLAN OFF`` first and then the whole plan. Plans are
written in the player's language, as the service writes them back (``chat.ahead.describe``).
"""

from __future__ import annotations

from typing import Iterable

from chat.ahead import describe
from chat.simulate import Transcript
from spades import bots
from spades.cards import DECK, Card, Suit
from spades.commands import Bid, Play
from spades.events import BidMade, CardPlayed
from spades.game import BID, DRAW, EXCHANGE, PLAY, PlayerView, fold, view
from spades.plans import RULES, Follow, Plan, resolve

SPADES = Suit.SPADES
#: The most leads planned at once, and the most states looked at for one decision (a bound on the work).
MAX_LEADS = 3
MAX_STATES = 2000


def _beats(card: Card, led: Card) -> bool:
    return (card.suit is led.suit and card.rank > led.rank) or (card.suit is SPADES and led.suit is not SPADES)


def unseen(v: PlayerView) -> list[Card]:
    """The cards the player cannot see: not in their hand, not their discards, not played, not exchanged."""
    seen = set(v.hand) | set(v.discarded) | set(v.played)
    if v.exchange:
        seen.update(v.exchange[0])
    return [c for c in DECK if c not in seen]


def play_card(v: PlayerView, who: int, card: Card) -> PlayerView:
    """``v`` after ``who`` played ``card`` (the trick won at its second card), as the player would see it."""
    trick = v.trick + ((who, card),)
    broken = v.spades_broken or (card.suit is SPADES and (not v.trick or v.trick[0][1].suit is not SPADES))
    hand = tuple(c for c in v.hand if c != card) if who == v.seat else v.hand
    opp_cards = v.opponent_cards - (who != v.seat)
    if len(trick) < 2:
        return v._replace(trick=trick, played=v.played + (card,), hand=hand, opponent_cards=opp_cards,
                          spades_broken=broken, movers=(1 - who,), to_move=1 - who)
    (first, led), (second, answer) = trick
    winner = second if _beats(answer, led) else first
    won = (v.tricks_won[0] + (winner == 0), v.tricks_won[1] + (winner == 1))
    movers = (winner,) if hand else ()
    return v._replace(trick=(), played=v.played + (card,), hand=hand, opponent_cards=opp_cards,
                      spades_broken=broken, tricks_won=won, leader=winner, movers=movers,
                      to_move=movers[0] if movers else None)


def opponent_may_play(v: PlayerView) -> list[Card]:
    """The unseen cards the opponent may play now (a spade lead only once spades are broken)."""
    cards = unseen(v)
    if not v.trick and not v.spades_broken:
        cards = [c for c in cards if c.suit is not SPADES] or cards
    return cards


class PlanningPlayer:
    """A :data:`chat.simulate.Planner`: the plan messages of a player who plans as ``normal`` would play."""

    def __init__(self, seed: int | None = None, guess: bool = True, lang: str = "en") -> None:
        self.bot = bots.get("normal", seed)
        self.lang = lang  # the player writes their plan in their language's words (``chat.ahead.describe``)
        self.guess = guess  # when the next lead depends on the opponent: guess it (normal's lead now), or give none

    # -- what normal would do ---------------------------------------------------------------------------------
    def card(self, v: PlayerView) -> Card:
        command = self.bot.choose(v)
        assert isinstance(command, Play)
        return command.card

    def decisions(self, v: PlayerView, tricks: int) -> Iterable[PlayerView]:
        """Every state at which the player decides next, over every card the opponent may play first, and after
        each follow the lead it may give them; at most ``tricks`` tricks begun by the opponent after ``v`` (the
        player's own follows are ``normal``'s)."""
        seat = v.seat
        stack = [(v, 0)]
        while stack:
            state, begun = stack.pop()
            if not state.movers:
                continue
            if state.movers == (seat,):
                yield state
                continue
            if not state.trick:
                if begun >= tricks:
                    continue
                begun += 1
            for c in opponent_may_play(state):
                after = play_card(state, 1 - seat, c)
                if after.movers == (seat,) and after.trick:  # the player follows: as normal would, and on
                    yield after
                    stack.append((play_card(after, seat, self.card(after)), begun))
                else:
                    stack.append((after, begun))

    # -- the plan ---------------------------------------------------------------------------------------------
    def bid(self, v: PlayerView) -> int:
        command = self.bot.choose(v._replace(phase=BID, movers=(v.seat,), to_move=v.seat, double_nil_offer=False,
                                             offered=None))
        assert isinstance(command, Bid)
        return command.tricks

    def bases(self, v: PlayerView, bid: int | None) -> list[PlayerView]:
        """The states play starts from (before it starts: the first trick, the opponent's bid nil or not)."""
        if v.phase == PLAY:
            return [v]
        seat, opp = v.seat, 1 - v.seat
        leader = 1 - v.first_player
        theirs = [v.bids[opp]] if v.bids[opp] is not None or v.double_nil[opp] else [0, 1]
        out = []
        for b in theirs:
            bids = (bid, b) if seat == 0 else (b, bid)
            out.append(v._replace(phase=PLAY, bids=bids, trick=(), played=(), tricks_won=(0, 0), leader=leader,
                                  movers=(leader,), to_move=leader, opponent_cards=13, spades_broken=False,
                                  double_nil_offer=False, offered=None))
        return out

    def follows(self, states: list[PlayerView]) -> tuple[Follow, ...]:
        """Per suit led, one card or one rule that is ``normal``'s answer in every state (see the docstring)."""
        out = []
        for suit in Suit:
            answers = [(s, self.card(s)) for s in states if s.trick and s.trick[0][1].suit is suit]
            if not answers:
                continue
            cards = {c for _, c in answers}
            if len(cards) == 1:
                out.append(Follow(suit, cards.pop(), True))
                continue
            rule = next((r for r in RULES if all(resolve(r, s.hand, s.trick) == c for s, c in answers)), None)
            if rule is not None:
                out.append(Follow(suit, rule, True))
        return tuple(out)

    def leads(self, states: list[PlayerView]) -> tuple[Card, ...]:
        """The leads ``normal`` would make in order, as long as they are the same in every state (docstring)."""
        out: list[Card] = []
        while states and len(out) < MAX_LEADS:
            cards = {self.card(s) for s in states}
            if len(cards) != 1:
                break
            card = cards.pop()
            out.append(card)
            after: list[PlayerView] = []
            for s in states:
                led = play_card(s, s.seat, card)
                for c in opponent_may_play(led):
                    state = play_card(led, 1 - s.seat, c)
                    if not state.movers:
                        continue
                    if state.movers != (s.seat,):  # the opponent may take the lead: no further leads planned
                        return tuple(out)
                    after.append(state)
                if len(after) > MAX_STATES:
                    return tuple(out)
            states = after
        return tuple(out)

    def leads_now(self, v: PlayerView) -> tuple[Card, ...]:
        """The lead ``normal`` would make if it led now, and the leads after it as :meth:`leads` finds them (while
        the player keeps the lead whatever the opponent plays): the fallback when the next lead depends on what the
        opponent does before it."""
        return self.leads([v._replace(trick=(), movers=(v.seat,), to_move=v.seat)])

    def wanted(self, v: PlayerView) -> Plan | None:
        """The plan the player wants now (None: nothing to plan)."""
        if v.phase not in (DRAW, EXCHANGE, BID, PLAY) or v.my_turn or v.double_nil[v.seat]:
            return None
        bid = v.bids[v.seat]
        planned_bid = None
        if v.phase != PLAY:
            if len(v.hand) != 13:
                return None
            if bid is None:
                bid = planned_bid = self.bid(v)
        follow_states: list[PlayerView] = []
        lead_states: list[PlayerView] = []
        for base in self.bases(v, bid):
            if base.movers == (v.seat,):  # the player leads the first trick: then what comes after their lead
                lead_states.append(base)
                base = play_card(base, v.seat, self.card(base))
            for state in self.decisions(base, 1):
                (follow_states if state.trick else lead_states).append(state)
                if len(follow_states) + len(lead_states) > MAX_STATES:
                    break
        leads = self.leads(lead_states)
        if not leads and lead_states and v.phase == PLAY and self.guess:  # the leads normal makes now
            leads = self.leads_now(v)
        plan = _allowed(v, Plan(v.hand_no, self.follows(follow_states), leads, planned_bid))
        return None if plan.empty else plan

    def __call__(self, v: PlayerView, held: Plan | None) -> str | None:
        want = self.wanted(v)
        if want is None:
            return None
        if held is None or held.hand != want.hand:
            return describe(want, self.lang)
        if _covers_less(held, want):
            return "PLAN OFF"
        change = _changed(held, want)
        return describe(change, self.lang) if not change.empty else None


def _changed(held: Plan, want: Plan) -> Plan:
    """The entries of ``want`` that ``held`` does not have as they are."""
    return Plan(want.hand, tuple(f for f in want.follows if f not in held.follows),
                want.leads if want.leads != held.leads else (),
                want.bid if want.bid != held.bid else None)


def _covers_less(held: Plan, want: Plan) -> bool:
    """Whether ``held`` has an entry ``want`` leaves out (a suit's follow, leads, a bid): only ``PLAN OFF`` clears it."""
    suits = {f.suit for f in want.follows}
    return (any(f.suit not in suits for f in held.follows) or (bool(held.leads) and not want.leads)
            or (held.bid is not None and want.bid is None))


def _allowed(v: PlayerView, plan: Plan) -> Plan:
    """``plan`` without what the service would refuse now (``spades.plans.check``): a follow with a card of another
    suit while the hand holds the suit, a card not held, leads starting with a spade while spades are not broken."""
    follows = tuple(f for f in plan.follows if not isinstance(f.play, Card)
                    or (f.play in v.hand and (f.play.suit is f.suit or all(c.suit is not f.suit for c in v.hand))))
    leads = plan.leads
    if leads and leads[0].suit is SPADES and not v.spades_broken and any(c.suit is not SPADES for c in v.hand):
        leads = ()
    return Plan(plan.hand, follows, leads, plan.bid)


def unlike_normal(t: Transcript) -> int:
    """How many of the moves plans made in ``t`` are not what ``normal`` would have played at that moment (the
    price of answering ahead, see the module docstring)."""
    planned = {p.index: p.seat for p in t.planned}
    bot = bots.get("normal", 0)
    game = fold(t.events[:1])
    differ = 0
    for i, event in enumerate(t.events[1:], 1):
        if i in planned:
            command = bot.choose(view(game, planned[i]))
            if isinstance(event, CardPlayed):
                differ += command != Play(event.seat, event.card)
            elif isinstance(event, BidMade):
                differ += command != Bid(event.seat, event.tricks)
        game.apply(event)
    return differ

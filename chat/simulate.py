"""Play whole games through the conversation layer, as the service does: parse -> engine -> render.

Used by the conversation and secrecy tests and by ``bench/segments.py``; it is also the
reference for the service's message flow:

1. after every decided command, for each seat, :func:`chat.message_for` with the redacted
   events since the last message *sent* to that seat (a seat that gets no message keeps
   its cursor, so the news reaches it in its next prompt);
2. a player whose standing setting is "no DN question" (``DN OFF``) is answered ``DRAW``
   at once by the service and gets the card prompt instead of the offer;
3. a refused reply gets :func:`chat.explain_error` and nothing else happens;
4. in a simultaneous draw (RULES D11) both players may owe a move: a player who still owes the
   move they were prompted for gets nothing new when the opponent moves (their news waits for
   their next message), each reply is answered at once with that player's next prompt, and a
   player who finishes drawing first is told the game waits for the opponent (the ``waiting``
   prompt). Which of the two replies next is drawn from the game's random generator;
5. with ``autoplay[seat]`` a player's forced cards are played for them, and with ``finish`` a
   hand whose end is decided is played out at the start of a trick (``spades.autoplay``), both
   right after the move that led to them; the player learns of it in their next message;
6. with ``merge_summary`` (a simultaneous draw only) the end-of-hand summary of the next hand's
   second player is not sent on its own: it opens their double nil question, which comes as
   soon as the first player has made their double nil choice (D11). The first player gets the
   summary with their own question at once, as before; the end of the game is always sent.

7. with ``planners`` (answers given ahead, RULES D12), after each answer a player may send plan messages
   (``planners[seat]``, asked again after each one until it has nothing more to send). The service parses each
   (``plan``, or a ``bid`` when the player's turn to bid has not come), keeps it as the seat's
   :class:`spades.plans.Plan` of the hand in play (:meth:`~spades.plans.Plan.merged` into what the seat gave
   before; ``PLAN OFF`` clears it) after :func:`spades.plans.check`, and answers with the plan as it now stands
   in one line (a :class:`Sent` of kind ``"plan"``, :func:`chat.ahead.plan_message`; a refused plan gets its
   ``plan_error`` answer and the plan is unchanged). After every move applied (answered, planned or played
   for the player) and after each plan given, the plans are tracked (:func:`spades.plans.track`) and applied as
   far as they reach (:func:`spades.plans.play_ahead`, with the same autoplay as item 5); the planned moves are
   events marked ``auto="plan"``, listed in :attr:`Transcript.planned`, and the messages then go as after any
   move. A player whose plan covers a decision is not prompted for it.

The defaults (alternating draw, no autoplay, no plans) are the service's behaviour before issue 11;
``bench/pace.py`` compares them with the new ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from spades.autoplay import autoplay as autoplay_events
from spades.commands import Command, DeclineDoubleNil
from spades.dealer import Dealer
from spades.errors import RuleError
from spades.events import AUTO_PLAN, BidMade, CardPlayed, CardsExchanged, Event, HouseRules, redact
from spades.game import BID, Game, PlayerView, decide, fold, new_game, view
from spades.plans import Plan, PlanError, check, play_ahead, track

from .ahead import plan_message
from .intent import Intent
from .messages import explain_error, message_for, prompt
from .parse import parse
from .render import Rendered

Chooser = Callable[[PlayerView, Rendered, random.Random], str]
#: What a player sends after answering (RULES D12): given their view and their plan as the service holds it (the
#: player knows what they sent and what it played), the next plan message, or None for none.
Planner = Callable[[PlayerView, Plan | None], str | None]
#: At most this many plan messages after one answer (a player clears a plan and gives a new one: two).
PLAN_MESSAGES = 3


@dataclass
class Sent:
    """One message the simulated service sent."""

    seat: int
    kind: str  # "turn" (message_for), "error" or "plan" (the echo of a plan message, RULES D12)
    rendered: Rendered
    view: PlayerView
    hand_no: int
    reply: str | None = None  # what the player answered to it, if it was their turn


@dataclass(frozen=True)
class Reply:
    """One message a simulated player sent: ``after`` messages of the service had been sent before it. ``plan``:
    a plan message, sent with the answer before it (the same sitting, the same minute)."""

    seat: int
    text: str
    after: int
    plan: bool = False


@dataclass(frozen=True)
class Planned:
    """A move a plan made (RULES D12): ``seat``'s event ``events[index]``, applied while the service handled reply
    ``trigger`` (an index of :attr:`Transcript.replies`; -1: before any reply), so at that reply's moment."""

    seat: int
    index: int
    trigger: int


@dataclass
class Transcript:
    messages: list[Sent] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)  # what the players sent, in order with ``messages``
    events: list[Event] = field(default_factory=list)
    game: Game | None = None
    hands: int = 0
    planned: list[Planned] = field(default_factory=list)  # the moves plans made, in order (no Reply for them)


def random_chooser(view: PlayerView, msg: Rendered, rng: random.Random) -> str:
    """A random offered reply; double nil only now and then, as a person would."""
    replies = list(msg.replies)
    if "DN" in replies and rng.random() > 0.05:
        replies.remove("DN")
    return rng.choice(replies)


def _move_seat(event: Event) -> int | None:
    """The seat whose move ``event`` is, if it is a move a plan can make."""
    return event.seat if isinstance(event, (CardPlayed, BidMade, CardsExchanged)) else None


def _plan_given(intent: Intent, game: Game, seat: int, held: Plan | None) -> Plan | None:
    """The seat's plan after the plan message ``intent`` (its entries merged into ``held``, or cleared); raises
    :class:`spades.plans.PlanError` for a plan that could not apply, LookupError for a message that is no plan."""
    if intent.kind == "plan" and intent.flag is False:
        return None
    if intent.kind == "plan" and intent.plan is None:
        return held  # PLAN: show it
    if intent.kind == "plan" and intent.plan is not None:
        new = replace(intent.plan, hand=game.hand_no)
    elif intent.kind == "bid" and intent.number is not None and not (game.phase == BID and game.movers == (seat,)):
        new = Plan(game.hand_no, bid=intent.number)  # BID 4 before the turn to bid: a planned bid
    else:
        raise LookupError(intent.kind)
    plan = held.merged(new) if held is not None else new
    check(game, seat, plan)
    return plan


def play_game(seed: int, langs: Sequence[str] = ("en", "en"), names: Sequence[str] = ("Ann", "Bob"),
              channel: str = "sms", chooser: Chooser = random_chooser, max_hands: int | None = None,
              ask_dn: Sequence[bool] = (True, True), error_rate: float = 0.0,
              bad_replies: Sequence[str] = ("ZZ", "11H", "BID 14", "K", "AS", "SWAP 2C 3C 4C 5C"),
              labels: Sequence[str] = ("", ""), simultaneous_draw: bool = False,
              autoplay: Sequence[bool] = (False, False), finish: bool = False,
              merge_summary: bool = False, planners: Sequence[Planner | None] | None = None) -> Transcript:
    """Play one game (or its first ``max_hands`` hands) between two simulated players; with ``planners``, each
    seat's plan messages after its answers (item 7 of the module docstring)."""
    rng = random.Random(seed)
    dealer = Dealer(seed=seed)
    log: list[Event] = list(new_game(f"g{seed}", HouseRules(simultaneous_draw=simultaneous_draw), dealer=dealer))
    game = fold(log)
    cursor = [0, 0]
    out = Transcript(events=log)
    last_turn: list[Sent | None] = [None, None]

    def deliver(actor: int | None = None, movers_before: tuple[int, ...] = ()) -> None:
        for seat in (0, 1):
            v = view(game, seat)
            if v.double_nil_offer and not ask_dn[seat]:
                continue  # the service answers DRAW for this player before saying anything
            if seat != actor and seat in movers_before and v.my_turn:
                continue  # still owes the move they were prompted for: nothing new to ask
            if (merge_summary and simultaneous_draw and v.phase == "draw" and not v.my_turn
                    and seat != v.first_player and v.decisions == (0, 0)):
                continue  # the summary waits for this player's double nil question, moments away
            news = [d for d in (redact(e, seat) for e in log[cursor[seat]:]) if d is not None]
            msg = message_for(v, langs[seat], channel, news, names[1 - seat], labels[seat])
            if msg is None and simultaneous_draw and seat == actor and v.phase == "draw" and v.movers:
                msg = prompt(v, langs[seat], channel, news, names[1 - seat], labels[seat])  # waits for the other
            if msg is not None:
                sent = Sent(seat, "turn", msg, v, game.hand_no)
                out.messages.append(sent)
                cursor[seat] = len(log)
                last_turn[seat] = sent

    def apply(events: list[Event]) -> None:
        trick = tuple(game.trick)
        log.extend(events)
        for e in events:
            game.apply(e)
        auto = autoplay_events(game, dealer, autoplay, finish)
        log.extend(auto)
        if planners is not None:
            plans[:] = track(plans, trick, events + auto)
            ahead()

    plans: list[Plan | None] = [None, None]

    def decide_fold(g: Game, command: Command) -> list[Event]:
        events = decide(g, command, dealer)
        for e in events:
            g.apply(e)
        return events

    def ahead() -> bool:
        """Apply the plans as far as they reach (item 7); whether any move was made."""
        done = play_ahead(game, plans, decide_fold, lambda g: autoplay_events(g, dealer, autoplay, finish))
        plans[:] = done.plans
        for e in done.events:
            mover = _move_seat(e)
            if mover is not None and getattr(e, "auto", "") == AUTO_PLAN:
                out.planned.append(Planned(mover, len(log), len(out.replies) - 1))
            log.append(e)
        return bool(done.events)

    def give_plans(seat: int) -> None:
        """The plan messages ``seat`` sends after their answer, each answered with the echo (item 7)."""
        planner = planners[seat] if planners is not None else None
        for _ in range(PLAN_MESSAGES if planner is not None else 0):
            assert planner is not None
            if game.phase == "over":
                return
            v = view(game, seat)
            text = planner(v, plans[seat])
            if text is None:
                return
            out.replies.append(Reply(seat, text, len(out.messages), plan=True))
            intent = parse(text, langs[seat])
            try:
                plans[seat] = _plan_given(intent, game, seat, plans[seat])
            except (LookupError, PlanError) as exc:
                error = exc if isinstance(exc, PlanError) else (intent.arg or text)[:12]
                out.messages.append(Sent(seat, "error", plan_message(plans[seat], error, langs[seat], channel,
                                                                     names[1 - seat], labels[seat]), v, game.hand_no))
                return
            echo = plan_message(plans[seat], None, langs[seat], channel, names[1 - seat], labels[seat])
            out.messages.append(Sent(seat, "plan", echo, v, game.hand_no))
            movers = game.movers
            if ahead():
                deliver(seat, movers)

    deliver()
    while game.phase != "over":
        if max_hands is not None and game.hand_no > max_hands:
            break
        movers = game.movers
        seat = movers[0] if len(movers) == 1 else movers[rng.randrange(len(movers))]
        v = view(game, seat)
        if v.double_nil_offer and not ask_dn[seat]:
            apply(decide(game, DeclineDoubleNil(seat), dealer))
            deliver(seat, movers)
            continue
        last = last_turn[seat]
        if last is None or not last.view.my_turn:
            raise RuntimeError(f"seat {seat} may move but was not prompted")
        prompt_msg = last
        if error_rate and rng.random() < error_rate:
            text = rng.choice(list(bad_replies))
        else:
            text = chooser(v, prompt_msg.rendered, rng)
        prompt_msg.reply = text
        out.replies.append(Reply(seat, text, len(out.messages)))
        intent = parse(text, langs[seat])
        try:
            if intent.is_unknown:
                raise LookupError
            cmd = intent.command(seat, game.phase)
            assert cmd is not None
            events = decide(game, cmd, dealer)
        except LookupError:
            err = explain_error(intent, v, langs[seat], channel, names[1 - seat], labels[seat])
            out.messages.append(Sent(seat, "error", err, v, game.hand_no))
            last_turn[seat] = Sent(seat, "turn", err, v, game.hand_no)
            continue
        except RuleError as exc:
            err = explain_error(exc, v, langs[seat], channel, names[1 - seat], labels[seat])
            out.messages.append(Sent(seat, "error", err, v, game.hand_no))
            last_turn[seat] = Sent(seat, "turn", err, v, game.hand_no)
            continue
        if planners is not None and intent.plan is not None and intent.kind == "double_nil":
            plans[seat] = replace(intent.plan, hand=game.hand_no)  # DN HIGH: the exchange given with it
        apply(events)
        deliver(seat, movers)
        give_plans(seat)
    out.game = game
    out.hands = game.hand_no if game.phase != "over" else len(game.history)
    return out

"""Answers given ahead in a game (RULES D12): each seat's plan, kept in the game's meta, applied with every move.

A seat's plan (``spades.plans.Plan``) is the meta field ``plan<seat>`` (its JSON; empty: none), read with the
game by every move at no extra cost, and ``pv`` counts its changes: every append says the ``pv`` it decided
against, so a plan given while a move was being decided is a conflict and the move is decided again with it
(``Store.append(plans_version=)``). :func:`chain` runs after each move, in the same append: the plans are
tracked through the move, then applied as far as they reach (``spades.plans.play_ahead``), each planned move
marked ``auto="plan"``; what changed is written to the meta and to the game's plan stream (given, changed,
cleared, an entry played or dropped and why), which no player is shown.

A player gives a plan with ``PLAN``/``IF``/``ALWAYS``/``LEAD`` (``chat.parse``), a bid before their turn to bid
(``BID 4`` in the draw), an exchange before their exchange (``SWAP AS KH`` after their double nil in the draw),
or ``DN HIGH``: :func:`given` turns what they sent into a :class:`PlanGiven` (checked against the game:
``spades.plans.check``), which :func:`service.games.apply.apply` writes like a move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from chat import Intent
from spades.commands import Command, DeclareDoubleNil
from spades.events import Event
from spades.game import BID, DRAW, EXCHANGE, Game
from spades.plans import Ahead, Dropped, Plan, PlanError, check, play_ahead, track

from ..records import GameMeta

PV = "pv"


def field_of(seat: int) -> str:
    return f"plan{seat}"


def plans_of(meta: GameMeta) -> list[Plan | None]:
    """Both seats' plans as the meta holds them (None: none)."""
    return [Plan.loads(meta.get(field_of(0))), Plan.loads(meta.get(field_of(1)))]


@dataclass(frozen=True)
class PlanGiven:
    """What a player's message does to their plan: ``plan`` is the seat's plan after it (None: cleared), ``shown``
    asks only to see it; ``command``: a move sent with it (``DN HIGH``: the double nil)."""

    seat: int
    plan: Plan | None
    command: Command | None = None
    what: str = "given"


@dataclass
class Chained:
    """What :func:`chain` did to a game: the planned events, the meta fields to write, the plan stream's new
    entries, and per seat the entries dropped (told in their next prompt, ``chat``'s ``plan_dropped``)."""

    events: list[Event] = field(default_factory=list)
    updates: dict[str, str] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)
    notes: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def given(said: Intent, game: Game, seat: int, meta: GameMeta,
          whole: bool = False) -> PlanGiven | PlanError | None:
    """The :class:`PlanGiven` of ``said``, a :class:`PlanError` when it could not apply as written (the plan is
    unchanged), or None when ``said`` is no plan (a move to decide now). ``whole``: ``said`` is the whole plan (the
    page's board), not entries to put in place of the same kind."""
    now = plans_of(meta)[seat]
    kind = said.kind
    entries: Plan | None = None
    command: Command | None = None
    if kind == "plan":
        if said.plan is None:
            if said.flag is False:
                return PlanGiven(seat, None, what="cleared")
            return PlanGiven(seat, now, what="shown")
        entries = said.plan
    elif kind == "bid" and said.number is not None and _bid_ahead(game, seat):
        entries = Plan(0, bid=said.number)
    elif kind == "exchange" and game.phase == DRAW and game.double_nil[seat]:
        entries = Plan(0, swap=tuple(said.cards))
    elif kind == "double_nil" and said.plan is not None:
        entries, command = said.plan, DeclareDoubleNil(seat)
    if entries is None:
        return None
    new = Plan(game.hand_no, entries.follows, entries.leads, entries.bid, entries.bid_if, entries.swap,
               entries.swap_high)
    merged = now.merged(new) if now is not None and not whole else new
    try:
        check(game, seat, new)
    except PlanError as exc:
        if not (command is not None and exc.reason == "swap"):  # DN HIGH: checked once the double nil is made
            return exc
    return PlanGiven(seat, merged, command)


def _bid_ahead(game: Game, seat: int) -> bool:
    """Whether a bid from ``seat`` now is one given ahead: its turn to bid has not come in this hand."""
    if game.bids[seat] is not None or game.double_nil[seat]:
        return False
    if game.phase in (DRAW, EXCHANGE):
        return True
    return game.phase == BID and game.movers != (seat,)


def chain(game: Game, meta: GameMeta, stored: Sequence[Plan | None], given: PlanGiven | None,
          trick: tuple[Any, ...], events: Sequence[Event], decide_fold: Callable[[Game, Command], list[Event]],
          follow_on: Callable[[Game], list[Event]]) -> Chained:
    """The plans as the meta holds them (``stored``: :func:`plans_of`), with the one ``given`` by the move's message
    if any, tracked through ``events`` (the move just decided, ``trick`` the trick under way before it), then applied
    as far as they reach on ``game`` (folded on). Any change to a plan, or a plan given, bumps ``pv``."""
    before = list(stored)
    out = Chained()
    if given is not None:
        before[given.seat] = given.plan
        out.log.append(log_entry(given))
    ahead: Ahead = play_ahead(game, track(before, trick, events), decide_fold, follow_on)
    out.events = list(ahead.events)
    for seat in (0, 1):
        after = ahead.plans[seat]
        if after != stored[seat]:
            out.updates[field_of(seat)] = after.dumps() if after is not None else ""
        for dropped in ahead.dropped[seat]:
            out.notes.setdefault(seat, []).append(note(seat, dropped))
            out.log.append({"seat": seat, "what": "dropped", "entry": dropped.entry, "why": dropped.reason})
    for seat in (0, 1):  # teach it once a game, where a plan would have saved this wait: a follow asked
        if game.phase == "play" and game.movers == (seat,) and len(game.trick) == 1 and ahead.plans[seat] is None \
                and not meta.of_seat("tip", seat) and not out.notes.get(seat):
            out.notes.setdefault(seat, []).append({"type": "plan_tip", "seat": seat,
                                                   "suit": game.trick[0][1].suit.letter})
            out.updates[f"tip{seat}"] = "1"
    played = [e for e in ahead.events if getattr(e, "auto", "") == "plan"]
    for e in played:
        out.log.append({"seat": getattr(e, "seat", None), "what": "played", "event": e.type})
    if out.log or any(k.startswith("plan") for k in out.updates):
        out.updates[PV] = str(int(meta.get(PV) or 0) + 1)
    return out


def note(seat: int, dropped: Dropped) -> dict[str, Any]:
    """The news a dropped entry makes for its owner (read by ``chat.messages``: "Your plan could not play ...")."""
    return {"type": "plan_dropped", "seat": seat, "entry": dropped.entry, "reason": dropped.reason,
            "card": dropped.card.code if dropped.card is not None else None}


def log_entry(change: PlanGiven) -> dict[str, Any]:
    return {"seat": change.seat, "what": change.what, "plan": change.plan.to_dict() if change.plan else None}


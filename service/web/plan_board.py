"""The planning board of a seat's game page (answers given ahead, RULES D12): ``POST /g/<token>/plan``.

A plain form (it works without JavaScript: 303 back to the page), refused like a move (403, nothing recorded)
without the page's form token or from another site. ``part`` says which part of the plan it sets: ``follows``
(``f_S``, ``f_H``, ``f_D``, ``f_C``: a card, ``LOW``, ``WIN``, ``HIGH`` or empty for "ask me"; ``always``),
``leads`` (``lead``, up to three, in order), ``bid``, or ``clear``. The page's plan is the whole plan: the form's part
replaces that part, the others are kept, and the plan is written as a player would text it (``chat.ahead.describe``)
and recorded as a message from the page (:func:`service.web.take_inbound`, its id an HMAC of the page token, the
plan and the game's version: the same form sent twice is one change), which the worker applies as any plan
(``service.games.ahead``: checked, kept hidden from the opponent, applied at once where it covers the turn). A
plan that could not apply as chosen is refused on the page and nothing is recorded.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, request

from chat.ahead import describe
from spades.cards import BY_CODE, Suit
from spades.plans import RULES, Follow, Plan, PlanError, check

from ..games import ahead
from ..store import UNREACHABLE as STORE_UNREACHABLE
from .game import _back, _sign, _svc, posted_form, record_from_page, storage_down

bp = Blueprint("plan_board", __name__)
for _error in STORE_UNREACHABLE:  # Redis does not answer: the page's "try again", never a bare 500 (as a move)
    bp.register_error_handler(_error, storage_down)


def plan_from_form(form: Any, now: Plan | None, hand_no: int) -> Plan | None:
    """The seat's whole plan after the form: its part (``part``) replaced, the rest of ``now`` kept."""
    base = now if now is not None and now.hand == hand_no else Plan(hand_no)
    part = form.get("part", "")
    if part == "clear":
        return None
    if part == "follows":
        always = form.get("always") == "1"
        follows = []
        for suit in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS):
            value = str(form.get(f"f_{suit.letter}", "")).strip().upper()[:4]  # a card code (10H) or LOW, WIN, HIGH
            if not value:
                continue
            play = value if value in RULES else BY_CODE.get(value)
            if play is None:
                raise PlanError("syntax", entry=value)
            follows.append(Follow(suit, play, always))
        base = replace(base, follows=tuple(follows))
    elif part == "leads":
        codes = [str(c).strip().upper()[:3] for c in form.getlist("lead") if str(c).strip()][:13]
        cards = [BY_CODE.get(c) for c in codes]
        if any(c is None for c in cards):
            raise PlanError("syntax")
        base = replace(base, leads=tuple(c for c in cards if c is not None))
    elif part == "bid":
        value = str(form.get("bid", "")).strip()
        if value and (not value.isdigit() or int(value) > 13):
            raise PlanError("bid")
        base = replace(base, bid=int(value) if value else None, bid_if=())
    else:
        raise PlanError("syntax")
    return None if base.empty else base


@bp.post("/g/<token>/plan")
def plan(token: str) -> Response:
    svc = _svc()
    checked = posted_form(svc.store, svc.players, svc.games, token)
    if isinstance(checked, Response):
        return checked
    game_id, seat, meta, game = checked
    try:
        new = plan_from_form(request.form, ahead.plans_of(meta)[seat], game.hand_no)
        if new is not None:
            check(game, seat, new)
    except PlanError:
        return _back(token, "plan_refused", "plan")
    body = "PLAN " + describe(new, "en") if new is not None else "PLAN OFF"
    message_id = f"page:{_sign(svc.store, 'plan', token, str(game.version), meta.get(ahead.PV, '0'), body)}"
    outcome = record_from_page(svc.config, svc.store, token, game_id, seat, meta.seats[seat], message_id, body,
                               "plan")
    return _back(token, "planned" if outcome in ("", "stale") else outcome, "plan")

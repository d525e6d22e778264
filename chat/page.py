"""A seat's private game page (``/g/<token>``, issue 14 "Beyond"): what that player may see, as HTML.

:func:`page_context` builds the template's context from the seat's :class:`spades.game.PlayerView` and the
game's events as that seat may know them (:func:`spades.events.redact`): their hand now, the current trick,
the tricks of this hand (who led each), the bids, the score sheet (a row a hand), every trick of the finished
hands (:func:`chat.last.hands_of`), and the question the game
asks them now with its legal answers (:func:`question`; :func:`question_key` names it, so a move from the
page answers the question it showed, or is refused as stale). Nothing else reaches the
template, so the page cannot show a card the other player holds. :func:`render_page` renders
``templates/web/game.html.j2`` in the player's language (the catalogues of :mod:`chat.render`).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from spades.cards import SUIT_ORDER
from spades.commands import Bid
from spades.game import MAX_EXCHANGE, PlayerView
from spades.plans import Plan

from .ahead import describe
from .last import hands_of
from .messages import hand_groups
from .names import display_name, short_address
from .questions import question_key
from .render import environment, unforget


def _card(code: str) -> dict[str, str]:
    return {"code": code, "rank": code[:-1], "suit": code[-1]}  # its colours: the page's CSS, by suit


def shown_name(name: str) -> str:
    """A player's name as a page shows it: a chosen name whole, an address shortened as the SMS shows it
    (``+1..0001``: a page never shows a whole address)."""
    return short_address(name) or display_name(name, "email")


def question(v: PlayerView) -> dict[str, Any]:
    """The question the game asks the player now and its legal answers (the page's buttons): ``kind`` is ``dn``
    (double nil or draw), ``draw`` (keep or discard ``offered``), ``exchange`` (up to ``max`` of ``cards``),
    ``bid`` (``bids``: 0 is nil), ``play`` (``cards`` that may be played), or ``wait`` (nothing to answer)."""
    out: dict[str, Any] = {"kind": "wait", "key": question_key(v)}
    if v.phase == "over" or not v.my_turn:
        return out
    if v.phase == "draw" and v.double_nil_offer:
        out["kind"] = "dn"
    elif v.phase == "draw" and v.offered is not None:
        out.update(kind="draw", offered=_card(v.offered.code))
    elif v.phase == "exchange":
        out.update(kind="exchange", cards=[_card(c.code) for c in v.hand], max=MAX_EXCHANGE)
    elif v.phase == "bid":
        out.update(kind="bid", bids=[c.tricks for c in v.legal if isinstance(c, Bid)])
    elif v.phase == "play":
        out.update(kind="play", cards=[_card(c.code) for c in v.playable])
    return out


def page_context(v: PlayerView, events: Iterable[Mapping[str, Any] | None], me: str, opp: str) -> dict[str, Any]:
    """The page's context for the player at ``v.seat``. ``events``: the game's events redacted for that seat
    (dicts of :func:`spades.events.redact`, None for what the seat may not know); ``me``, ``opp``: the names (an
    opponent without a chosen name as the SMS shows them, ``+1..0001``: the page never shows a whole address)."""
    seat, other = v.seat, 1 - v.seat
    events = list(events)
    tricks: list[dict[str, Any]] = []
    sheet: list[dict[str, Any]] = []
    planned: list[str] = []  # what the seat's plan played this hand (RULES D12): its own events say so
    for e in events:
        if e is None:
            continue
        if e["type"] == "hand_started":
            tricks, planned = [], []
        elif e.get("auto") == "plan" and e.get("seat") == seat:
            planned.append(e["card"] if e["type"] == "card_played" else
                           f"{e['tricks']}" if e["type"] == "bid_made" else " ".join(e.get("thrown", ())))
        elif e["type"] == "trick_won":
            cards = {int(s): c for s, c in e["cards"]}
            tricks.append({"n": e["trick"], "mine": e["seat"] == seat, "led_by_me": int(e["cards"][0][0]) == seat,
                           "me": _card(cards[seat]), "opp": _card(cards[other]), "plan": cards[seat] in planned})
        elif e["type"] == "hand_scored":
            sheet.append({"hand": e["hand"], "me": e["scores"][seat], "opp": e["scores"][other]})
            # (a finished hand's tricks stay to be read: the page's past hands, chat.last.hands_of)
    ask = question(v)
    return {
        "me": me, "opp": shown_name(opp), "hand_no": v.hand_no, "phase": v.phase,
        "my_turn": v.my_turn, "over": v.phase == "over", "won": v.winner == seat if v.winner is not None else None,
        "target": v.rules.target, "hand": [dict(g, cards=[_card(c) for c in g["codes"]]) for g in hand_groups(v.hand)],
        "kept": len(v.kept), "opponent_cards": v.opponent_cards,
        "bids": {"me": v.bids[seat], "opp": v.bids[other], "me_dn": v.double_nil[seat], "opp_dn": v.double_nil[other]},
        "won_tricks": {"me": v.tricks_won[seat], "opp": v.tricks_won[other]},
        "trick": [{"mine": s == seat, "card": _card(c.code)} for s, c in v.trick],
        "tricks": tricks, "sheet": sheet, "ask": ask, "planned": planned,
        # every trick of the finished hands (issue 46); once the game is over, of the hand a resignation cut short too
        "past": [h for h in hands_of(events, seat) if h["over"] or v.phase == "over"],
        "scores": {"me": v.scores[seat], "opp": v.scores[other]}, "bags": {"me": v.bags[seat], "opp": v.bags[other]},
    }


def email_link(lang: str, url: str, text: str, html: str) -> tuple[str, str]:
    """An email's plain text and HTML with the link of the player's page of the game added (before the
    footer: ``templates/email/_page_link.txt.j2`` and ``.html.j2``)."""
    env = environment(lang)
    line = env.get_template("email/_page_link.txt.j2").render(url=url).strip()
    para = env.get_template("email/_page_link.html.j2").render(url=url).strip()
    head, sep, foot = text.rpartition("\n-- \n")
    text = f"{head}\n\n{line}\n{sep}{foot}" if sep else f"{text.rstrip()}\n\n{line}\n"
    if html:
        at = html.rfind('<p style="color: #666')
        at = at if at >= 0 else html.rfind("</body>")
        html = html[:at] + para + "\n" + html[at:] if at >= 0 else html + para
    return text, html


def plan_board(v: PlayerView, plan: Plan | None, lang: str) -> dict[str, Any]:
    """The page's planning board (answers given ahead, RULES D12) for the player at ``v.seat`` with ``plan`` (their
    own, never the opponent's): the plan in one line (``text``), and what may be planned now: ``follows`` (a row a
    suit with the cards of the hand in it and the choice made: a card code, ``LOW``/``WIN``/``HIGH`` or ``""``),
    ``always``, ``leads`` (the hand's cards and the leads chosen), ``bid`` (the bid chosen, when the player's turn to
    bid has not come; None when it may not be planned)."""
    out: dict[str, Any] = {"text": describe(plan, lang), "follows": [], "always": False, "leads": None, "bid": None,
                           "bid_open": False}
    if v.phase in ("over", "draw") or not v.hand:
        out["bid_open"] = v.phase == "draw" and v.bids[v.seat] is None and not v.double_nil[v.seat]
        out["bid"] = plan.bid if plan is not None else None
        return out
    chosen = {f.suit.letter: (f.play.code if not isinstance(f.play, str) else f.play) for f in plan.follows} \
        if plan is not None else {}
    for suit in SUIT_ORDER:
        out["follows"].append({"suit": suit.letter, "cards": [_card(c.code) for c in v.hand if c.suit is suit],
                               "chosen": chosen.get(suit.letter, "")})
    out["always"] = plan is not None and any(f.always for f in plan.follows)
    out["leads"] = {"cards": [_card(c.code) for c in v.hand],
                    "chosen": [c.code for c in plan.leads] if plan is not None else []}
    out["bid_open"] = v.bids[v.seat] is None and not v.double_nil[v.seat] and not (v.phase == "bid" and v.my_turn)
    out["bid"] = plan.bid if plan is not None else None
    return out


#: what the web adds to a :func:`page_context` (``service.web.game``): without it the page shows no form
WEB_PARTS: dict[str, Any] = {"version": 0, "move_url": "", "poll_url": "", "script_url": "", "csrf": "",
                             "poll_every": 3, "flash": "", "plan_url": "", "board": None, "colours_url": "", "four": False}


def render_page(lang: str, context: Mapping[str, Any]) -> str:
    """``templates/web/game.html.j2`` in ``lang`` with a :func:`page_context` (and the web's :data:`WEB_PARTS`)."""
    return environment(lang).get_template("web/game.html.j2").render(**{**WEB_PARTS, **unforget(context, lang)})


def render_busy(lang: str, moved: bool) -> str:
    """``templates/web/busy.html.j2`` in ``lang``: the page shown while the game cannot be read (``moved``: a move was
    sent, and nothing was played)."""
    return environment(lang).get_template("web/busy.html.j2").render(moved=moved)


def render_expired(lang: str) -> str:
    """``templates/web/expired.html.j2`` in ``lang``: the page of a game over for a while (its link expired)."""
    return environment(lang).get_template("web/expired.html.j2").render()

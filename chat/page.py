"""A seat's private game page (``/g/<token>``, issue 14 "Beyond"): what that player may see, as HTML.

:func:`page_context` builds the template's context from the seat's :class:`spades.game.PlayerView` and the
game's events as that seat may know them (:func:`spades.events.redact`): their hand now, the current trick,
the tricks of this hand, the bids, and the score sheet hand by hand with the bags. Nothing else reaches the
template, so the page cannot show a card the other player holds. :func:`render_page` renders
``templates/web/game.html.j2`` in the player's language (the catalogues of :mod:`chat.render`).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from spades.game import PlayerView

from .messages import hand_groups
from .names import display_name, short_address
from .render import environment

SUIT_COLOR = {"S": "#000", "C": "#000", "H": "#c00", "D": "#c00"}


def _card(code: str) -> dict[str, str]:
    return {"code": code, "suit": code[-1], "color": SUIT_COLOR[code[-1]]}


def page_context(v: PlayerView, events: Iterable[Mapping[str, Any] | None], me: str, opp: str) -> dict[str, Any]:
    """The page's context for the player at ``v.seat``. ``events``: the game's events redacted for that seat
    (dicts of :func:`spades.events.redact`, None for what the seat may not know); ``me``, ``opp``: the names (an
    opponent without a chosen name as the SMS shows them, ``+1..0001``: the page never shows a whole address)."""
    seat, other = v.seat, 1 - v.seat
    tricks: list[dict[str, Any]] = []
    sheet: list[dict[str, Any]] = []
    for e in events:
        if e is None:
            continue
        if e["type"] == "hand_started":
            tricks = []
        elif e["type"] == "trick_won":
            cards = {int(s): c for s, c in e["cards"]}
            tricks.append({"n": e["trick"], "mine": e["seat"] == seat, "led_by_me": int(e["cards"][0][0]) == seat,
                           "me": _card(cards[seat]), "opp": _card(cards[other])})
        elif e["type"] == "hand_scored":
            sheet.append({"hand": e["hand"], "me": e["scores"][seat], "opp": e["scores"][other]})
    return {
        "me": me, "opp": short_address(opp) or display_name(opp, "email"), "hand_no": v.hand_no, "phase": v.phase,
        "my_turn": v.my_turn, "over": v.phase == "over", "won": v.winner == seat if v.winner is not None else None,
        "target": v.rules.target, "hand": [dict(g, cards=[_card(c) for c in g["codes"]]) for g in hand_groups(v.hand)],
        "kept": len(v.kept), "opponent_cards": v.opponent_cards,
        "bids": {"me": v.bids[seat], "opp": v.bids[other], "me_dn": v.double_nil[seat], "opp_dn": v.double_nil[other]},
        "won_tricks": {"me": v.tricks_won[seat], "opp": v.tricks_won[other]},
        "trick": [{"mine": s == seat, "card": _card(c.code)} for s, c in v.trick],
        "tricks": tricks, "sheet": sheet,
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


def render_page(lang: str, context: Mapping[str, Any]) -> str:
    """``templates/web/game.html.j2`` in ``lang`` with a :func:`page_context`."""
    return environment(lang).get_template("web/game.html.j2").render(**context)


def render_expired(lang: str) -> str:
    """``templates/web/expired.html.j2`` in ``lang``: the page of a game over for a while (its link expired)."""
    return environment(lang).get_template("web/expired.html.j2").render()

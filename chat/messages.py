"""Messages about a game: the turn prompt, the news a waiting player needs, and errors explained.

Everything here reads a :class:`spades.game.PlayerView` (all the player may
know) and the redacted events since the last message sent to that player, and
renders a template. Nothing here can name a card the player has not seen:
the view and :func:`spades.events.redact` have already removed them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from spades.cards import SUIT_ORDER, Card, Suit
from spades.commands import Bid, DeclareDoubleNil, Exchange, Play
from spades.errors import CardSyntaxError, MustFollowSuit, NotYourTurn, RuleError
from spades.events import AUTO_DECIDED, AUTO_FORCED, AUTO_PLAN
from spades.game import PlayerView

from .address_words import ADDRESS_ECHO
from .gsm import to_gsm7
from .intent import Intent
from .names import display_name
from .questions import question_key
from .render import TEXT_CHANNELS, Rendered, finish_text, gettext, render

_RANK = {14: "A", 13: "K", 12: "Q", 11: "J"}

#: Template of each turn situation.
TURN_TEMPLATES = ("dn_offer", "draw", "exchange", "bid", "play")


def swap_hint(cards: Iterable[Card], n: int = 3) -> list[str]:
    """The cards a double nil bidder most wants to throw (RULES 4, D5): the ones most likely to win a trick.

    Spades first (they trump), then the highest cards of the other suits; at most ``n``, shown in
    the order of the hand (spades, hearts, clubs, diamonds, high to low).
    """
    cards = list(cards)
    danger = sorted(cards, key=lambda c: (c.rank + (3 if c.suit is Suit.SPADES else 0), c.suit is Suit.SPADES),
                    reverse=True)[:n]
    order = [c for g in hand_groups(cards) for c in g["codes"]]
    return sorted((c.code for c in danger), key=order.index)


def hand_groups(cards: Iterable[Card]) -> list[dict[str, Any]]:
    """A hand grouped by suit (spades, hearts, clubs, diamonds), high cards first; empty suits left out.

    Each group: ``{"suit": "S", "ranks": ["A", "K", "10", "4"], "codes": ["AS", ...]}``.
    """
    cards = list(cards)
    groups = []
    for suit in SUIT_ORDER:
        ranks = sorted((c for c in cards if c.suit is suit), key=lambda c: -c.rank)
        if ranks:
            groups.append({"suit": suit.value, "ranks": [c.rank_code for c in ranks], "codes": [c.code for c in ranks]})
    return groups


def _bid_info(view: PlayerView, seat: int) -> dict[str, Any]:
    return {"bid": view.bids[seat], "dn": view.double_nil[seat], "tricks": view.tricks_won[seat],
            "score": view.scores[seat], "bags": view.bags[seat]}


def _score_line(score: Any) -> dict[str, Any]:
    d = score if isinstance(score, dict) else score.to_dict()
    return {"contract": d["contract"], "bid": d["bid"], "tricks": d["tricks"], "made": d["made"],
            "base": d["hand_total"] - d["sandbag_penalty"], "points": d["hand_total"],
            "penalty": d["sandbag_penalty"], "total": d["game_total"], "bags": d["bags"],
            "bags_carried": d["bags_carried"]}


def _news(view: PlayerView, events: Sequence[dict[str, Any]] | None) -> dict[str, Any]:
    """What happened since the player's last message that a prompt should tell them.

    ``tricks``: every trick completed since then (issue 23 case 3: none goes untold), oldest first, each
    ``{"won", "mine", "theirs", "forced"}`` (``forced``: the player's card was played for them); the tricks of a
    decided end are told by ``decided`` (how many) instead. ``last_trick`` is the newest of them.
    ``forced``: the player's cards played for them that no trick told (a trick still under way).
    ``planned`` (cards), ``planned_bid``, ``planned_swap``: what their plan played since (RULES D12);
    ``plan_dropped``: the entries of their plan that could not apply (``card``, ``reason``: ``spades.plans``);
    ``plan_tip``: the suit led, when the prompt teaches plans (once a game, at a follow a plan would have answered).
    """
    me, opp = view.seat, view.opponent
    news: dict[str, Any] = {"hand_result": None, "last_trick": None, "opp_dn": False, "opp_swapped": None,
                            "got": None, "tossed": None, "decided_tricks": [], "opp_bid_news": False, "intro": False,
                            "intro_first": None, "forced": [], "decided": 0, "tricks": [], "trick_runs": [],
                            "planned": [], "planned_bid": None, "planned_swap": None, "plan_dropped": [],
                            "plan_tip": None}
    tricks: list[dict[str, Any]] = []  # each: its winner's seat, its (seat, card code) pairs
    auto: dict[str, str] = {}  # card code -> how it was played for someone (forced, decided)
    if events is None:  # a resend (HAND): what the view itself holds
        if view.phase == "play" and view.last_trick is not None:
            tricks.append({"seat": view.last_trick.seat, "cards": [(s, c.code) for s, c in view.last_trick.cards]})
    else:
        for e in events:
            t = e.get("type")
            if t == "game_started":
                news["intro"] = True  # the player's first message of the game (issue 14 case 8)
            elif t == "hand_started" and news["intro"] and news["intro_first"] is None:
                news["intro_first"] = "me" if e.get("first_player") == me else "opp"
            elif t == "trick_won":
                tricks.append({"seat": e["seat"], "cards": [(int(s), c) for s, c in e["cards"]]})
            elif t == "hand_scored":
                news["hand_result"] = {"hand": e["hand"], "me": _score_line(e["scores"][me]),
                                       "opp": _score_line(e["scores"][opp])}
            elif t == "double_nil_declared" and e["seat"] == opp:
                news["opp_dn"] = True
            elif t == "cards_exchanged" and e["seat"] == opp:
                news["opp_swapped"] = e.get("count", 0)
            elif t == "bid_made" and e["seat"] == opp:
                news["opp_bid_news"] = True
            elif t == "draw_decided" and e["seat"] == me:
                news["got"] = None if e.get("kept_first", True) else e.get("kept")
                # RULES D2: keeping the first card, they saw the second as they discarded it (issue 14 case 3)
                news["tossed"] = e.get("discarded") if e.get("kept_first") else None
            elif e.get("auto") == AUTO_PLAN and e.get("seat") == me:  # their own move, given ahead (RULES D12)
                if t == "card_played":
                    news["planned"].append(e["card"])
                elif t == "bid_made":
                    news["planned_bid"] = e["tricks"]
                elif t == "cards_exchanged":
                    news["planned_swap"] = e.get("thrown", [])
            elif t == "plan_tip" and e.get("seat") == me:  # once a game: how a plan would have answered this
                news["plan_tip"] = e.get("suit")
            elif t == "plan_dropped" and e.get("seat") == me:  # an entry of their plan that could not apply
                news["plan_dropped"].append({"card": e.get("card") or e.get("entry"), "reason": e.get("reason")})
            elif t == "card_played" and e.get("auto") in (AUTO_FORCED, AUTO_DECIDED):
                auto[e["card"]] = e["auto"]
                if e["auto"] == AUTO_FORCED and e["seat"] == me:
                    news["forced"].append(e["card"])  # played for them: their only legal card
                elif e["auto"] == AUTO_DECIDED:
                    news["decided"] += 1  # two cards a trick: halved below
    news["decided"] //= 2
    for trick in tricks:
        mine = next(c for s, c in trick["cards"] if s == me)
        theirs = next(c for s, c in trick["cards"] if s == opp)
        if mine in news["forced"]:  # the trick line names it (an SMS segment matters more than the word)
            news["forced"].remove(mine)
        if auto.get(mine) == AUTO_DECIDED or auto.get(theirs) == AUTO_DECIDED:  # "Last N tricks decided", its cards
            news["decided_tricks"].append({"mine": mine, "theirs": theirs})   # named (issue 45 case 9)
            continue
        news["tricks"].append({"won": trick["seat"] == me, "mine": mine, "theirs": theirs,
                               "forced": auto.get(mine) == AUTO_FORCED})
    news["last_trick"] = news["tricks"][-1] if news["tricks"] else None
    runs: list[dict[str, Any]] = []  # tricks in a row won by the same player: one sentence
    for trick in news["tricks"]:
        if runs and runs[-1]["won"] == trick["won"]:
            runs[-1]["tricks"].append(trick)
        else:
            runs.append({"won": trick["won"], "tricks": [trick]})
    news["trick_runs"] = runs
    if news["decided"]:
        news["forced"] = []  # played in the decided end, which the hand's result tells
    if view.phase not in ("draw",) and news["got"] is not None and view.phase != "draw":
        news["got"] = None  # the hand is shown in full from now on
    return news


def play_replies(view: PlayerView) -> dict[str, Any]:
    """How the play prompt states the cards allowed: ``any``, ``no_spades`` (lead anything but a spade) or ``list``."""
    cards = [m.card for m in view.legal if isinstance(m, Play)]
    hand = list(view.hand)
    if set(cards) == set(hand) and len(hand) > 1:
        mode = "any"
    elif set(cards) == {c for c in hand if c.suit is not Suit.SPADES} and not view.trick and len(cards) > 3:
        mode = "no_spades"
    else:
        mode = "list"
    return {"mode": mode, "cards": [c.code for c in cards]}


def replies_for(view: PlayerView, lang: str) -> tuple[str, ...]:
    """Every reply the prompt offers, as literal texts (each parses to exactly one legal command)."""
    if not view.legal:
        return ()
    first = view.legal[0]
    if isinstance(first, DeclareDoubleNil) or view.double_nil_offer:
        return ("DN", gettext(lang, "DRAW"))
    if view.phase == "draw":
        return ("K", "D")
    if isinstance(first, Exchange):
        swap, none = gettext(lang, "SWAP"), gettext(lang, "NONE")
        return tuple(f"{swap} {' '.join(c.code for c in m.cards)}" if m.cards else f"{swap} {none}"
                     for m in view.legal if isinstance(m, Exchange))
    if isinstance(first, Bid):
        return tuple(str(m.tricks) for m in view.legal if isinstance(m, Bid))
    return tuple(m.card.code for m in view.legal if isinstance(m, Play))


def situation(view: PlayerView) -> str:
    """The template of ``view``'s prompt: a turn template, ``waiting`` or ``game_over``."""
    if view.phase == "over":
        return "game_over"
    if not view.my_turn:
        return "waiting"
    if view.double_nil_offer:
        return "dn_offer"
    return {"draw": "draw", "exchange": "exchange", "bid": "bid", "play": "play"}[view.phase]


def context(view: PlayerView, events: Sequence[dict[str, Any]] | None, opponent_name: str, game_label: str,
            channel: str) -> dict[str, Any]:
    """The variables every game template gets (see templates/README.md)."""
    me, opp = view.seat, view.opponent
    lead = None
    if view.trick and view.trick[0][0] == opp:
        lead = view.trick[0][1].code
    ctx: dict[str, Any] = {
        "label": (game_label.strip() + " ") if game_label and game_label.strip() else "",
        "opp": display_name(opponent_name, channel),
        "hand_no": view.hand_no,
        "phase": view.phase,
        "hand": hand_groups(view.hand),
        "cards_in_hand": len(view.hand),
        "offered": view.offered.code if view.offered else None,
        "draw_no": view.decisions[me] + 1,
        "me": _bid_info(view, me),
        "them": _bid_info(view, opp),
        "lead": lead,
        "trick_no": view.tricks_won[0] + view.tricks_won[1] + 1,
        "spades_broken": view.spades_broken,
        "target": view.rules.target,
        "winner": None if view.winner is None else ("me" if view.winner == me else "opp"),
        "end_reason": view.end_reason,
        "hands_played": view.hands_played,
        "to_move": "me" if view.my_turn else ("opp" if view.movers else None),
        "play": play_replies(view) if view.phase == "play" and view.my_turn else None,
        "dn_offer": view.double_nil_offer,
        "swap_hint": swap_hint(view.hand) if view.phase == "exchange" else [],
    }
    ctx.update(_news(view, events))
    if ctx["winner"] is not None and ctx["hand_result"] is None and view.last_hand is not None and events is None:
        ctx["hand_result"] = {"hand": view.last_hand.hand, "me": _score_line(view.last_hand.scores[me]),
                              "opp": _score_line(view.last_hand.scores[opp])}
    return ctx


def prompt(view: PlayerView, lang: str, channel: str, events: Sequence[dict[str, Any]] | None = None,
           opponent_name: str = "", game_label: str = "", level: str | None = None,
           h2h: Mapping[str, int] | None = None) -> Rendered:
    """The message for the player of ``view``: their turn prompt, or where the game stands while they wait.

    ``events``: the redacted events (``spades.events.redact(e, view.seat)``) since the last message
    sent to this player, so the prompt tells what happened meanwhile (the opponent's card or
    decision, the last trick, the hand's result). ``None`` means a resend (``HAND``): the prompt
    tells what the view holds. ``game_label`` (e.g. ``"#2"``) prefixes the message when the
    player has several games. ``level``: the computer's level when it is the opponent (``spades.bots.LEVELS``),
    which the game's first message names; ``h2h``: the head-to-head record between the two players (``me``,
    ``them``: their finished games won), which it tells too. The returned :attr:`Rendered.replies` are the replies
    offered.
    """
    name = situation(view)
    ctx = context(view, events, opponent_name, game_label, channel)
    replies = replies_for(view, lang) if view.my_turn else ()
    if channel in TEXT_CHANNELS:  # as the text writes them (an SMS: Greek in GSM capitals)
        replies = tuple(finish_text(r, lang, channel) for r in replies)
    rendered = _render_news(name, lang, channel, replies=replies, level=level, h2h=h2h, **ctx)
    return replace(rendered, ask=question_key(view)) if replies else rendered


def _render_news(name: str, lang: str, channel: str, **ctx: Any) -> Rendered:
    """:func:`render`, the cards of a decided end's tricks named (issue 45 case 9) unless, by SMS, naming them
    would cost a segment more (the game page and the email name them always)."""
    full = render(name, lang, channel, **ctx)
    if channel != "sms" or not ctx.get("decided_tricks"):
        return full
    short = render(name, lang, channel, **dict(ctx, decided_tricks=[]))
    return full if full.segments <= short.segments else short


_NEWS_FOR_WAITING = ("hand_scored", "game_ended")


def notice(view: PlayerView, lang: str, channel: str, events: Sequence[dict[str, Any]],
           opponent_name: str = "", game_label: str = "", level: str | None = None,
           h2h: Mapping[str, int] | None = None) -> Rendered | None:
    """The message for a player who is *not* to move, or None when the events tell them nothing new.

    New to a waiting player: the end of a hand (its score) and the end of the game (with the last tricks and the
    last hand's score, issue 23 case 1). Everything else (the opponent's card, the trick's result) reaches them in
    their next prompt. ``level``: see :func:`prompt` (the end of the game says how to play the computer again);
    ``h2h``: the head-to-head record with this game counted, which the end of the game tells.
    """
    types = {e.get("type") for e in events}
    if view.phase == "over" and "game_ended" in types:
        ctx = context(view, events, opponent_name, game_label, channel)
        return _render_news("game_over", lang, channel, level=level, h2h=h2h, **ctx)
    if "hand_scored" in types:
        ctx = context(view, events, opponent_name, game_label, channel)
        return _render_news("hand_over", lang, channel, **ctx)
    return None


def message_for(view: PlayerView, lang: str, channel: str, events: Sequence[dict[str, Any]],
                opponent_name: str = "", game_label: str = "", level: str | None = None,
                h2h: Mapping[str, int] | None = None) -> Rendered | None:
    """What to send the player of ``view`` after a move: the prompt if they are to move, else the
    :func:`notice` (or None). Call it for both players after every decided command. ``level``, ``h2h``: see
    :func:`prompt`."""
    if view.phase != "over" and view.my_turn:
        return prompt(view, lang, channel, events, opponent_name, game_label, level, h2h)
    return notice(view, lang, channel, events, opponent_name, game_label, level, h2h)


def _suit_key(suit: Suit | None) -> str | None:
    return suit.letter if suit is not None else None


def explain_error(error: RuleError | CardSyntaxError | Intent, view: PlayerView | None, lang: str, channel: str,
                  opponent_name: str = "", game_label: str = "") -> Rendered:
    """One reply saying why a message was refused and what may be sent now.

    ``error``: a rule error raised by ``spades.game.decide``, a :class:`CardSyntaxError`, or an
    ``unknown`` :class:`Intent` from :func:`chat.parse`. ``view``: the player's view of the game
    the message was for (None when there is no game). E.g. ``"You must follow hearts: QH 9H 4H"``.
    """
    if isinstance(error, Intent):
        code = "unknown_" + (error.reason or "not_understood")
        detail = error.arg or ""
    elif isinstance(error, CardSyntaxError):
        code, detail = "unknown_bad_card", error.text
    else:
        code, detail = error.code, ""
    ctx: dict[str, Any]
    if view is not None:
        ctx = context(view, [], opponent_name, game_label, channel)
    else:
        ctx = {"label": (game_label.strip() + " ") if game_label else "", "opp": display_name(opponent_name, channel),
               "phase": None, "to_move": None, "play": None, "hand": [], "dn_offer": False, "lead": None}
    ctx["code"] = code
    cut = ADDRESS_ECHO if code in ("unknown_bad_address", "unknown_bad_link") else 20  # an address: every digit
    ctx["detail"] = to_gsm7(detail)[:cut] if channel == "sms" else detail[:40]
    ctx["suit"] = _suit_key(error.suit) if isinstance(error, MustFollowSuit) else None
    ctx["their_turn"] = isinstance(error, NotYourTurn) or (view is not None and bool(view.movers)
                                                           and not view.my_turn)
    ctx["show_hand"] = bool(ctx["play"] and ctx["play"]["mode"] != "list") or (ctx["phase"] in ("exchange", "bid"))
    replies = replies_for(view, lang) if view is not None and view.my_turn else ()
    if channel in TEXT_CHANNELS:
        replies = tuple(finish_text(r, lang, channel) for r in replies)
    rendered = render("error", lang, channel, replies=replies, **ctx)
    return replace(rendered, ask=question_key(view)) if replies and view is not None else rendered

"""A player's plan (answers given ahead, RULES D12) in words: :func:`describe` writes it back in one line, with the
words the parser reads in the player's language (``chat.command_words``), and :func:`plan_message` is the answer to a
plan given, shown or refused (templates ``plan_set`` and ``plan_error``)."""

from __future__ import annotations

from typing import Any

from spades.cards import Card, Suit
from spades.plans import Follow, Plan, PlanError

from .command_words import WORDS
from .render import Rendered, render

#: The example the answers give, as a plan (written in the player's words by :func:`describe`).
EXAMPLE = Plan(0, follows=(Follow(Suit.HEARTS, Card(4, Suit.HEARTS)), Follow(Suit.SPADES, "LOW")),
               leads=(Card(14, Suit.SPADES), Card(13, Suit.SPADES)), bid=4)


def word(kind: str, lang: str) -> str:
    """The parser's first word for ``kind`` in ``lang`` (else the English one)."""
    return (WORDS.get(lang, {}).get(kind) or WORDS["en"][kind])[0]


def _play(play: Card | str, lang: str) -> str:
    return play.code if isinstance(play, Card) else word(play.lower(), lang)


def describe(plan: Plan | None, lang: str) -> str:
    """``plan`` in one line, as the player would write it (``IF H 4H S LOW, ALWAYS D LOW, LEAD AS KS, BID 4``);
    empty for none."""
    if plan is None or plan.empty:
        return ""
    parts: list[str] = []
    for always in (False, True):
        follows = [f for f in plan.follows if f.always == always]
        if follows:
            parts.append(word("always" if always else "if", lang) + " "
                         + " ".join(f"{f.suit.letter} {_play(f.play, lang)}" for f in follows))
    if plan.leads:
        parts.append(word("lead", lang) + " " + " ".join(c.code for c in plan.leads))
    bid = word("bid", lang)
    if plan.bid_if:
        ranges = " ".join(f"{lo}-{hi} {b}" if hi < 13 else f"{lo}+ {b}" for lo, hi, b in plan.bid_if)
        parts.append(f"{bid} {ranges}" + (f" {plan.bid}" if plan.bid is not None else ""))
    elif plan.bid is not None:
        parts.append(f"{bid} {plan.bid}")
    if plan.swap is not None:
        parts.append(word("exchange", lang) + " " + (" ".join(c.code for c in plan.swap) or word("none", lang)))
    elif plan.swap_high:
        parts.append(word("exchange", lang) + " " + word("high", lang))
    return ", ".join(parts)


def plan_message(plan: Plan | None, error: PlanError | str | None, lang: str, channel: str, opponent: str,
                 label: str = "") -> Rendered:
    """The answer to a plan: ``plan`` as it now stands, or why the plan was not changed (``error``: a
    :class:`spades.plans.PlanError`, or the word the parser did not understand)."""
    ctx: dict[str, Any] = {"label": (label.strip() + " ") if label.strip() else "", "opp": opponent,
           "example": describe(EXAMPLE, lang)}
    if error is None:
        return render("plan_set", lang, channel, plan=describe(plan, lang), **ctx)
    if isinstance(error, PlanError):
        card = error.card.code if error.card is not None else ""
        suit = error.entry.split()[1] if error.reason == "follow" and len(error.entry.split()) > 1 else ""
        return render("plan_error", lang, channel, why=error.reason, card=card, suit=suit, word="", **ctx)
    return render("plan_error", lang, channel, why="syntax", card="", suit="", word=error, **ctx)

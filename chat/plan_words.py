"""The syntax of a plan, answers given ahead (RULES D12): ``IF H 4H S LOW``, ``ALWAYS D LOW``, ``LEAD AS KS``,
``BID 0-3 5 4+ 3``, ``SWAP AS KH`` / ``SWAP HIGH``, in the player's language, read into a :class:`spades.plans.Plan`.
"""

from __future__ import annotations

import re

from spades.cards import Card
from spades.plans import HIGH, LOW, WIN, Follow, Plan

from .card_words import read_card, read_suit
from .command_words import TABLES, match_phrase
from .intent import Intent, Say

#: The words of a plan (RULES D12) that open a part of it, and the rules a follow may name.
_PLAN_PARTS = ("if", "always", "lead", "bid", "exchange")
_PLAN_RULES = {"low": LOW, "win": WIN, "high": HIGH}
RANGE = re.compile(r"^(\d{1,2})(?:-(\d{1,2})|(\+))?$")


def plan_intent(tokens: list[str], lang: str, say: Say) -> Intent:
    """The plan ``tokens`` give (they begin with IF, ALWAYS, LEAD or BID, or their words in ``lang``): see
    :class:`Intent`. Every part may follow another in one message: ``IF H 4H S AS LEAD KD QC``."""
    table = TABLES[lang]
    follows: list[Follow] = []
    leads: list[Card] = []
    bid: int | None = None
    bid_if: list[tuple[int, int, int]] = []
    swap: list[Card] | None = None
    swap_high = 0
    part = ""
    i = 0
    while i < len(tokens):
        kind, rest = match_phrase(tokens[i:], table)
        if kind in _PLAN_PARTS:
            part = kind or ""
            i = len(tokens) - len(rest)
            continue
        tok = tokens[i]
        if part in ("if", "always"):
            suit = read_suit(tok, lang)
            if suit is None or i + 1 >= len(tokens):
                return say("unknown", reason="bad_plan", arg=tok[:12])
            rule = _PLAN_RULES.get(table.get(tokens[i + 1], ""))
            play: Card | str | None = rule
            used = 2
            if play is None:
                play = read_card(tokens[i + 1], lang)
                if play is None and i + 2 < len(tokens):
                    play, used = read_card(tokens[i + 1] + tokens[i + 2], lang), 3
            if play is None:
                return say("unknown", reason="bad_plan", arg=tokens[i + 1][:12])
            follows = [f for f in follows if f.suit is not suit] + [Follow(suit, play, part == "always")]
            i += used
        elif part == "lead":
            card = read_card(tok, lang)
            used = 1
            if card is None and i + 1 < len(tokens):
                card, used = read_card(tok + tokens[i + 1], lang), 2
            if card is None:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            leads.append(card)
            i += used
        elif part == "exchange":  # SWAP AS KH, SWAP HIGH: the exchange after a double nil
            if table.get(tok) == "high":
                swap_high, i = 3, i + 1
                continue
            if table.get(tok) == "none" or tok == "0":
                swap, i = [], i + 1
                continue
            card = read_card(tok, lang)
            if card is None:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            swap = (swap or []) + [card]
            i += 1
        elif part == "bid":
            m = RANGE.match(tok)
            if m is None:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            if m.group(2) is None and m.group(3) is None:  # a plain number: whatever the opponent bids
                bid = int(tok)
                i += 1
                continue
            low = int(m.group(1))
            high = 13 if m.group(3) else int(m.group(2))
            if i + 1 >= len(tokens) or not tokens[i + 1].isdigit() or low > high:
                return say("unknown", reason="bad_plan", arg=tok[:12])
            bid_if.append((low, high, int(tokens[i + 1])))
            i += 2
        else:
            return say("unknown", reason="bad_plan", arg=tok[:12])
    if not (follows or leads or bid is not None or bid_if or swap is not None or swap_high):
        return say("unknown", reason="bad_plan", arg=" ".join(tokens)[:12])
    return say("plan", plan=Plan(0, tuple(follows), tuple(leads), bid, tuple(bid_if),
                                 tuple(swap) if swap is not None else None, swap_high))

"""Secrecy on the game page's past hands (issue 46): in whole games played through the conversation layer, the page of
each seat, rendered at the start of every hand and at the game's end, shows in each finished hand's section exactly
the cards of that hand's tricks (public once played) and no other: never a card the opponent drew and discarded,
swapped or still holds. A game resigned in the middle of a hand shows that hand's tricks too."""

from __future__ import annotations

import re

import pytest

from chat.page import page_context, render_page
from spades.commands import Forfeit
from spades.events import redact, to_dict
from spades.game import decide, fold, view
from tests.chat.test_chat_conversation import games

GLYPH = {"\u2660": "S", "\u2665": "H", "\u2663": "C", "\u2666": "D"}
CARD = re.compile(r'<span class="card"[^>]*>([0-9JQKA]+)([\u2660\u2665\u2663\u2666])</span>')


def tricks_by_hand(events: list) -> dict[int, set[str]]:  # type: ignore[type-arg]
    out: dict[int, set[str]] = {}
    hand = 0
    for e in events:
        d = to_dict(e)
        if d["type"] == "hand_started":
            hand = d["hand"]
        elif d["type"] == "trick_won":
            out.setdefault(hand, set()).update(str(c) for _s, c in d["cards"])
    return out


@pytest.mark.parametrize("lang", ["en", "el"])
def test_the_past_hands_show_only_the_cards_of_their_tricks(lang: str) -> None:
    checked = 0
    for t in games(lang):
        ends = [i for i, e in enumerate(t.events) if to_dict(e)["type"] == "hand_started"][1:] + [len(t.events)]
        for cut in ends:
            events = t.events[:cut]
            played = tricks_by_hand(events)
            game = fold(events)
            for seat in (0, 1):
                page = render_page(lang, page_context(view(game, seat), [redact(e, seat) for e in events], "A", "B"))
                past = page.split('<section id="past-hands"')[1].split("</section>")[0]
                for section in past.split('<details class="past-hand">')[1:]:
                    hand = int(re.search(r"(\d+)", section.split("</summary>")[0]).group(1))  # type: ignore[union-attr]
                    shown = {rank + GLYPH[glyph] for rank, glyph in CARD.findall(section)}
                    assert shown == played[hand], (lang, seat, hand, shown ^ played[hand])
                    checked += 1
    assert checked > 20, checked


def test_a_game_resigned_mid_hand_shows_that_hands_tricks() -> None:
    t = next(iter(games("en")))
    cut = [i for i, e in enumerate(t.events) if to_dict(e)["type"] == "trick_won"][16]  # hand 2, trick 3 or so
    events = t.events[:cut + 1]
    game = fold(events)
    events = events + decide(game, Forfeit(game.movers[0]))
    over = fold(events)
    assert over.phase == "over"
    played = tricks_by_hand(events)
    page = render_page("en", page_context(view(over, 0), [redact(e, 0) for e in events], "A", "B"))
    past = page.split('<section id="past-hands"')[1].split("</section>")[0]
    sections = past.split('<details class="past-hand">')[1:]
    assert len(sections) == len(played) == 2
    shown = {rank + GLYPH[glyph] for rank, glyph in CARD.findall(sections[0])}  # newest first: the hand cut short
    assert shown == played[2] and 0 < len(shown) < 26, shown

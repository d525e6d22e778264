"""Conversations with a simultaneous draw (RULES D11), forced cards and decided hands playing themselves.

The same checks as the alternating conversations (replies offered, secrecy, GSM-7 budget) over
``chat.simulate`` games with the new options, and what the players are told.
"""

from __future__ import annotations

import pytest

from chat.gsm import is_gsm7, segments
from chat.languages import LANGUAGES
from chat.messages import situation
from chat.parse import parse
from chat.simulate import Transcript, play_game, random_chooser
from spades.cards import DECK
from spades.events import AUTO_DECIDED, AUTO_FORCED, CardPlayed, DoubleNilDeclined, DrawDecided, HandStarted
from spades.replay import verify_log
from tests.chat.test_chat_conversation import LONG, _was_played, bot_chooser, named_cards

NEW = {"simultaneous_draw": True, "autoplay": (True, True), "finish": True, "merge_summary": True}
GAMES: dict[str, list[Transcript]] = {}


def games(lang: str) -> list[Transcript]:
    if lang not in GAMES:
        GAMES[lang] = [
            play_game(21, langs=(lang, lang), names=LONG, chooser=bot_chooser(21), labels=("#12", "#3"), **NEW),
            play_game(22, langs=(lang, lang), names=LONG, chooser=random_chooser, max_hands=2, error_rate=0.15,
                      **NEW),
        ]
    return GAMES[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_d11_replies_offered_are_the_legal_moves_and_every_sms_fits(lang: str) -> None:
    checked = 0
    for t in games(lang):
        verify_log(t.events)  # both draws, every autoplayed card derived again
        for m in t.messages:
            assert is_gsm7(m.rendered.text) and segments(m.rendered.text) <= 2, m.rendered.text
            v = m.view
            if not v.my_turn or v.phase == "over":
                continue
            assert {parse(r, lang).command(m.seat, v.phase) for r in m.rendered.replies} == set(v.legal)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("lang", LANGUAGES)
def test_d11_secrecy_no_unseen_card_is_named(lang: str) -> None:
    for t in games(lang):
        for m in t.messages:
            v = m.view
            seen = set(v.hand) | set(v.kept) | set(v.discarded) | {c for _, c in v.trick}
            seen |= {v.offered} if v.offered else set()
            if v.exchange:
                seen |= set(v.exchange[0]) | set(v.exchange[1])
            if v.last_trick:
                seen |= {c for _, c in v.last_trick.cards}
            secret = set(DECK) - seen if v.phase in ("draw", "play", "bid", "exchange") else set()
            leaked = named_cards(m.rendered.text) & secret
            assert not leaked or all(_was_played(t, c, m) for c in leaked), (m.rendered.text, leaked)


def test_d11_both_players_draw_at_their_own_pace_and_the_first_to_finish_is_told_to_wait() -> None:
    t = games("en")[0]
    hands = [i for i, e in enumerate(t.events) if isinstance(e, HandStarted)]
    out_of_turn = 0
    for start, end in zip(hands, hands[1:]):
        draws = [e.seat for e in t.events[start:end] if isinstance(e, (DrawDecided, DoubleNilDeclined))]
        out_of_turn += any(a == b for a, b in zip(draws, draws[1:]))  # a player moved twice in a row
    assert out_of_turn >= len(hands) - 2
    waiting = [m for m in t.messages if m.view.phase == "draw" and situation(m.view) == "waiting"
               and len(m.view.hand) == 13]
    assert waiting and all("to move" in m.rendered.text and m.rendered.replies == () for m in waiting)
    for m in waiting:  # nothing more reaches that player until the draw is over
        later = [n for n in t.messages[t.messages.index(m) + 1:] if n.seat == m.seat]
        assert not later or later[0].view.phase != "draw"


def test_forced_cards_and_decided_hands_are_told() -> None:
    t = games("en")[0]
    auto = {e.auto for e in t.events if isinstance(e, CardPlayed)}
    assert {AUTO_FORCED, AUTO_DECIDED} <= auto
    texts = [m.rendered.text for m in t.messages]
    assert any("(played for you)" in x or "Played for you: " in x for x in texts)
    assert any("tricks decided." in x for x in texts)
    # a forced card is never prompted for: every play prompt offers at least two cards, or leads
    for m in t.messages:
        if m.view.phase == "play" and m.view.my_turn and m.view.trick:
            assert len(m.rendered.replies) >= 2, m.rendered.text

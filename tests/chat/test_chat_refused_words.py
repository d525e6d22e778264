"""Words people send that were refused (issue 23 case 10): each is understood, or answered with what is allowed.

Before: ``discard it``, ``bid four``, ``i bid 4``, ``4 tricks``, ``5 of hearts``, ``k 👍`` and ``👍`` got
``Sorry, I did not understand.``; ``garde`` or ``joue 6h`` in an English game too, with no hint of ``LANG FR``.
"""

from __future__ import annotations

import pytest

from chat import explain_error
from chat.command_words import HELP_WORDS, OPT_IN_WORDS, OPT_OUT_WORDS
from chat.gsm import is_gsm7, segments
from chat.parse import parse
from chat.render import finish_sms
from spades.cards import Card
from spades.dealer import Dealer
from spades.events import HouseRules
from spades.game import fold, new_game, view
from tests.chat.goldens import check_golden

C = Card.from_code


@pytest.mark.parametrize("text, lang, kind, extra", [
    ("discard it", "en", "discard", {}), ("Discard it.", "en", "discard", {}), ("toss it", "en", "discard", {}),
    ("keep it", "en", "keep", {}),
    ("bid four", "en", "bid", {"number": 4}), ("four", "en", "bid", {"number": 4}), ("BID THIRTEEN", "en", "bid", {"number": 13}),
    ("i bid 4", "en", "bid", {"number": 4}), ("I'll bid 3", "en", "bid", {"number": 3}), ("my bid is 5", "en", "bid", {"number": 5}),
    ("4 tricks", "en", "bid", {"number": 4}), ("bid 4 tricks", "en", "bid", {"number": 4}), ("1 trick", "en", "bid", {"number": 1}),
    ("5 of hearts", "en", "play", {"card": C("5H")}), ("10 of spades", "en", "play", {"card": C("10S")}),
    ("Q of clubs", "en", "play", {"card": C("QC")}), ("play 5 of hearts", "en", "play", {"card": C("5H")}),
    ("k 👍", "en", "keep", {}), ("D 👍", "en", "discard", {}), ("👍", "en", "yes", {}), ("👍🏽", "en", "yes", {}),
    ("ok 👍", "en", "yes", {}),
    ("annonce quatre", "fr", "bid", {"number": 4}), ("quatre plis", "fr", "bid", {"number": 4}),
    ("j'annonce 4", "fr", "bid", {"number": 4}), ("5 de coeur", "fr", "play", {"card": C("5H")}),
    ("meld fire", "nb", "bid", {"number": 4}), ("4 stikk", "nb", "bid", {"number": 4}), ("jeg melder 4", "nb", "bid", {"number": 4}),
    ("tawar empat", "id", "bid", {"number": 4}), ("4 trik", "id", "bid", {"number": 4}), ("saya tawar 4", "id", "bid", {"number": 4}),
    ("δηλώνω τέσσερα", "el", "bid", {"number": 4}), ("4 μπάζες", "el", "bid", {"number": 4}),
    ("kast den", "nb", "discard", {}), ("jette-la", "fr", "discard", {}),
])
def test_words_that_were_refused_are_understood(text, lang, kind, extra) -> None:  # type: ignore[no-untyped-def]
    intent = parse(text, lang)
    assert intent.kind == kind, (text, intent)
    for key, value in extra.items():
        assert getattr(intent, key) == value, (text, intent)


@pytest.mark.parametrize("text, lang, other", [
    ("garde", "en", "FR"), ("joue 6h", "en", "FR"), ("behold", "en", "NB"), ("buang", "fr", "ID"),
    ("κρατώ", "en", "EL"), ("ANNONCE 4", "nb", "FR"),
])
def test_another_languages_words_get_a_hint_of_lang(text, lang, other) -> None:  # type: ignore[no-untyped-def]
    intent = parse(text, lang)
    assert intent.kind == "unknown" and intent.reason == "other_lang" and intent.arg == other, intent
    dealer = Dealer(seed=3)
    game = fold(new_game("g", HouseRules(simultaneous_draw=False), dealer=dealer))
    seat = game.movers[0]
    reply = explain_error(intent, view(game, seat), lang, "sms").text
    assert f" {other} " in reply and "did not understand" not in reply, reply
    if lang == "en":
        assert f"LANG {other}" in reply
    assert "DN" in reply  # what may be sent now: the double nil question's replies


def test_a_lone_emoji_that_is_not_a_yes_is_answered_with_what_is_allowed() -> None:
    dealer = Dealer(seed=3)
    game = fold(new_game("g", HouseRules(simultaneous_draw=False), dealer=dealer))
    seat = game.movers[0]
    intent = parse("🙈", "en")
    assert intent.is_unknown
    assert "DN or DRAW" in explain_error(intent, view(game, seat), "en", "sms").text


@pytest.mark.parametrize("lang", ["en", "fr", "nb", "id", "el"])
def test_no_carrier_word_gets_another_meaning(lang) -> None:  # type: ignore[no-untyped-def]
    for word in OPT_OUT_WORDS:
        for text in (word, f"{word} 👍", f"{word} four", f"{word} 4 tricks"):
            assert parse(text, lang).kind == "stop", (text, lang)
    for word in OPT_IN_WORDS:
        assert parse(f"{word} 👍", lang).kind == "start"
    for word in HELP_WORDS:
        assert parse(f"{word} 4 tricks", lang).kind == "help"
        assert parse(f"{word} of hearts", lang).kind == "help"


@pytest.mark.parametrize("lang", ["en", "fr", "nb", "id", "el"])
def test_golden_answers_to_the_refused_words(lang) -> None:  # type: ignore[no-untyped-def]
    """What each of the issue's words gets in a game's draw (the parsed intent, or the reply when refused)."""
    dealer = Dealer(seed=3)
    game = fold(new_game("g", HouseRules(simultaneous_draw=False), dealer=dealer))
    v = view(game, game.movers[0])
    lines = []
    for text in ("discard it", "bid four", "i bid 4", "4 tricks", "5 of hearts", "k 👍", "👍", "garde", "joue 6h",
                 "behold", "🙈"):
        intent = parse(text, lang)
        said = explain_error(intent, v, lang, "sms").text if intent.is_unknown else \
            f"{intent.kind} {intent.number if intent.number is not None else intent.card or ''}".strip()
        lines.append(f"{text} -> {said}")
    check_golden(lang, "issue23/refused_words", "\n".join(lines) + "\n")


@pytest.mark.parametrize("text, lang, kind, extra", [
    ("REVANCHE FACILE", "fr", "rematch", {"arg": "easier"}), ("revanche difficile", "fr", "rematch", {"arg": "harder"}),
    ("OMKAMP LETT", "nb", "rematch", {"arg": "easier"}), ("OMKAMP VANSKELIG", "nb", "rematch", {"arg": "harder"}),
    ("MAIN LAGI MUDAH", "id", "rematch", {"arg": "easier"}), ("ΡΕΒΑΝΣ ΕΥΚΟΛΟ", "el", "rematch", {"arg": "easier"}),
    ("ρεβάνς δύσκολο", "el", "rematch", {"arg": "harder"}),
    ("JEDA 3", "id", "pause", {"number": 3}), ("ΠΑΥΣΗ 3", "el", "pause", {"number": 3}),
    ("LIEN ana@example.com", "fr", "link", {"arg": "ana@example.com"}),
    ("LIER ana@example.com", "fr", "link", {"arg": "ana@example.com"}),
    ("KOBLE ana@example.com", "nb", "link", {"arg": "ana@example.com"}),
    ("TAUTKAN ana@example.com", "id", "link", {"arg": "ana@example.com"}),
    ("TAUTAN ana@example.com", "id", "link", {"arg": "ana@example.com"}),
    ("ΣΥΝΔΕΣΗ ana@example.com", "el", "link", {"arg": "ana@example.com"}),
    ("ΑΝΤΑΛΛΑΓΗ 2C 7D", "el", "exchange", {"cards": (C("2C"), C("7D"))}),
    ("PAGE", "fr", "web", {}), ("LIEN", "fr", "web", {}),
])
def test_near_misses_of_the_translated_texts_are_understood(text, lang, kind, extra) -> None:  # type: ignore[no-untyped-def]
    """The words a reader of the translations sends after reading them (review round 3 X4): REMATCH and a level,
    the local PAUSE, LINK in the local word the texts use, the page's word for a swap in Greek."""
    intent = parse(text, lang)
    assert intent.kind == kind, (text, intent)
    for key, value in extra.items():
        assert getattr(intent, key) == value, (text, intent)


@pytest.mark.parametrize("text, lang, pause, resume", [
    ("VACATION 5", "en", "PAUSE 5", "RESUME"), ("vacances 10", "fr", "PAUSE 10", "REPRENDRE"),
    ("ferie", "nb", "PAUSE 7", "FORTSETT"), ("Libur 3", "id", "JEDA 3", "LANJUT"),
    ("διακοπές 4", "el", "4", "ΣΥΝΕΧΕΙΑ"), ("holiday 2", "fr", "PAUSE 2", "REPRENDRE"),
])
def test_vacation_is_answered_with_pause_and_resume(text, lang, pause, resume) -> None:  # type: ignore[no-untyped-def]
    """``VACATION <days>`` is not a command (docs/commands.md, "Why no VACATION"): the reply names ``PAUSE <days>``
    (7 when no number came) and ``RESUME`` in the player's language, in one SMS segment, and nothing is paused."""
    intent = parse(text, lang)
    assert intent.kind == "unknown" and intent.reason == "vacation", intent
    game = fold(new_game("g", HouseRules(simultaneous_draw=False), dealer=Dealer(seed=3)))
    reply = explain_error(intent, view(game, 1 - game.movers[0]), lang, "sms").text
    assert pause in reply and finish_sms(resume, lang) in reply and "did not understand" not in reply, reply
    assert segments(reply) == 1 and is_gsm7(reply), reply

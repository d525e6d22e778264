"""A forgotten player's seat (``slowspades players forget``) is named "a forgotten player" in the reader's language,
on every channel and on the game page: never its id, never cut to an SMS name's 12 characters."""

from __future__ import annotations

import pytest

from chat.languages import LANGUAGES
from chat.names import FORGOTTEN, display_name, is_forgotten
from chat.render import render, unforget

SEAT = FORGOTTEN + "0123456789abcdef"
#: each works as a name in a name's slots: capitalised, and in Greek a neuter, the same after a preposition
#: (``με Διαγραμμένο μέλος``, ``Au tour de Joueur effacé``; review round 3 X2)
WORDS = {"en": "a forgotten player", "fr": "Joueur effacé", "nb": "Slettet spiller",
         "id": "Pemain anonim", "el": "Διαγραμμένο μέλος"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_forgotten_player_is_named_in_every_language(lang: str) -> None:
    assert display_name(SEAT, "sms") == display_name(SEAT, "email") == FORGOTTEN and is_forgotten(SEAT)
    context = unforget({"opp": display_name(SEAT, "sms"), "games": [{"opp": FORGOTTEN}, {"opp": "Ana"}]}, lang)
    assert context["opp"] == WORDS[lang] == context["games"][0]["opp"] and context["games"][1]["opp"] == "Ana"
    email = render("declined", lang, "email", opp=FORGOTTEN)
    assert WORDS[lang] in email.text and FORGOTTEN not in email.text + email.subject + email.html
    assert FORGOTTEN not in render("declined", lang, "sms", opp=FORGOTTEN).text


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_a_forgotten_player_reads_as_a_name(lang: str) -> None:
    text = render("declined", lang, "email", opp=FORGOTTEN).text
    assert WORDS[lang][0].isupper() and WORDS[lang] in text
    assert " de un " not in text and "ένας" not in text

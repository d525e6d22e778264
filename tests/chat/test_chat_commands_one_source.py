"""The rules page and HELP from one list of what to send (issue 23 case 6).

Before: the rules page said ``The players take turns until each has 13 cards.`` (the draw is simultaneous), had
nothing on ALT, cards played for the player or AUTOPLAY, listed only BAGS and FLOOR as house rules, and its "What to
send" lacked WEB, NAME and LANG. After: "What to send" is built from :data:`chat.commands.GROUPS`; these tests fail
when the parser, HELP, the house rules or the page drift from it.
"""

from __future__ import annotations

import dataclasses
import html
import re

import pytest

from chat import parse, render
from chat.commands import COMMANDS, HOUSE_RULES, written
from chat.intent import ENGINE_KINDS, META_KINDS
from chat.languages import LANGUAGES
from service.web.rules import page
from spades.events import HouseRules
from tests.chat.goldens import check_golden


def test_every_kind_the_parser_knows_is_a_command_to_send() -> None:
    assert (ENGINE_KINDS | META_KINDS) - {c.kind for c in COMMANDS} == set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_command_as_written_is_read_as_it(lang) -> None:  # type: ignore[no-untyped-def]
    for c in COMMANDS:
        assert parse(written(c, lang), lang).kind == c.kind, (written(c, lang), parse(written(c, lang), lang))


def test_every_house_rule_is_a_word_of_new_and_on_the_page() -> None:
    assert {f.name for f in dataclasses.fields(HouseRules)} == {field for field, _w in HOUSE_RULES}
    rules = {"BAGS": "failed_nil_bags", "FLOOR": "floor", "TO": "target", "ALT": "simultaneous_draw"}
    for field, w in HOUSE_RULES:
        said = parse(f"NEW +4791234567 {w} 300" if w == "TO" else f"NEW +4791234567 {w}", "en")
        assert said.kind == "new" and getattr(said.rules, rules[w]) != getattr(HouseRules(), field), (w, said)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rules_page_names_every_command_house_rule_and_the_simultaneous_draw(lang) -> None:  # type: ignore[no-untyped-def]
    text = html.unescape(page(lang))
    for c in COMMANDS:
        assert f"<code>{written(c, lang)}</code>" in text, written(c, lang)
    for _field, w in HOUSE_RULES:
        assert f"<code>{w}" in text, w
    assert "take turns" not in text  # the draw is simultaneous (RULES D11)
    if lang == "en":
        assert "at the same time" in text and "played for you" in text and "AUTOPLAY OFF" in text
        body = re.sub(r"<[^>]+>", " ", text[text.index("<h1>"):])
        check_golden(lang, "issue23/rules_page", " ".join(body.split()) + "\n")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_names_exactly_the_commands_marked_for_it(lang) -> None:  # type: ignore[no-untyped-def]
    help_text = render("help", lang, "sms").text
    said = set()
    for phrase in re.split(r"[,.;:()]| or | ou | eller | atau | ή | H ", help_text):
        intent = parse(phrase.strip(), lang)
        said.add(intent.arg.lower() if intent.reason == "missing_arg" and intent.arg else intent.kind)
    wanted = {c.kind for c in COMMANDS if c.help}
    assert wanted - said == set(), (wanted - said, help_text)  # each command HELP should name, it names

"""The catalogues against the templates (issue 14 case 12): `pybabel extract` with chat/babel.cfg reaches every
template (the lifecycle's and the rules page's included, so `pybabel update` never drops their entries), every msgid
a template uses is translated in every catalogue with all its plural forms, and the words the translations tell
players to send are words the parser accepts."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from chat import parse, render
from chat.languages import LANGUAGES
from chat.render import LOCALE_DIR, ROOT, TEMPLATES_DIR, finish_sms, gettext

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]


@lru_cache(maxsize=None)
def extracted() -> dict[object, set[str]]:
    """msgid (a str, or a (singular, plural) tuple) -> the files using it, as `pybabel extract -F chat/babel.cfg` sees."""
    with (ROOT / "chat" / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    out: dict[object, set[str]] = {}
    for filename, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords={"_": None, "gettext": None, "ngettext": (1, 2)}):
        if str(filename).startswith(("chat/", "templates/")):
            out.setdefault(message, set()).add(str(filename))
    return out


@lru_cache(maxsize=None)
def catalogue(lang: str):
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f)


def test_extraction_reaches_every_template():
    seen = {f for files in extracted().values() for f in files}
    templates = {str(p.relative_to(ROOT)) for p in TEMPLATES_DIR.rglob("*.j2")}
    with_text = {t for t in templates if "_(" in (ROOT / t).read_text(encoding="utf-8")
                 or "ngettext(" in (ROOT / t).read_text(encoding="utf-8")}
    assert with_text - seen == set()  # e.g. templates/lifecycle/** before issue 14
    assert any(t.startswith("templates/lifecycle/") for t in seen) and "templates/web/rules.html.j2" in seen


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_msgid_a_template_uses_is_translated(lang):
    cat = catalogue(lang)
    missing, untranslated, fuzzy = [], [], []
    for msgid, files in extracted().items():
        key = msgid[0] if isinstance(msgid, tuple) else msgid
        m = cat.get(key)
        if m is None:
            missing.append((msgid, sorted(files)[0]))
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if isinstance(msgid, tuple) != isinstance(m.id, tuple) or not all(strings) or \
                (isinstance(msgid, tuple) and len(strings) != cat.num_plurals):
            untranslated.append(msgid)
        if m.fuzzy:
            fuzzy.append(msgid)
    assert not missing and not untranslated and not fuzzy, (missing, untranslated, fuzzy)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_translation_keeps_the_placeholders_of_its_msgid(lang):
    ph = re.compile(r"%\((\w+)\)s")
    for m in catalogue(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        wanted = set(ph.findall(ids[-1])) | ({"num"} & set(ph.findall(ids[0])))
        for s in strings:
            assert set(ph.findall(s)) <= set(ph.findall(" ".join(ids))) and (set(ph.findall(s)) >= wanted - {"num"}), \
                (m.id, s)


# the words a message tells players to send must parse (translations.md: a bare NOUVELLE, NY, BARU, ΝΕΟ did not)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_one_word_for_new_and_every_new_a_message_suggests_parses(lang):
    texts = [render("help", lang, "sms").text, render("welcome", lang, "sms").text]
    for name in ("games", "invite_expired", "no_invitation", "invite_refused"):
        texts.append(render(name, lang, "sms", family="lifecycle", games=[], opp="Ana", reason="self", text="12").text)
    local = finish_sms(gettext(lang, "NEW"), lang)  # NEO in Greek capitals
    for text in texts:
        found = re.findall(rf"\b{local} (\S+)", text)
        assert found, text
        if lang != "en":
            assert not re.search(r"\bNEW\b", text), text  # one word for "new" per language
        for arg in (a.rstrip(".,") for a in found):
            assert arg == "BOT" or arg.startswith("+") or "@" in arg or arg in ("email", "e-mail", "e-post", "EMAIL"), \
                (text, arg)  # never a bare NEW followed by prose
            example = "BOT" if arg == "BOT" else ("+4791234567" if arg.startswith("+") else "ana@example.com")
            assert parse(f"{local} {example}", lang).kind == "new", (text, example)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_command_words_the_catalogue_names_parse(lang):
    kinds = {"NEW": "new", "RULES": "rules", "HAND": "hand", "SCORE": "score", "GAMES": "games", "HELP": "help",
             "RESIGN": "resign", "DRAW": "draw"}
    for msgid, kind in kinds.items():
        word = gettext(lang, msgid)
        assert parse(word, lang).kind == kind, (lang, msgid, word)
    assert parse(gettext(lang, "NEW"), lang).arg == ""  # a bare NEW: a link for a friend (issue 43)
    assert parse(gettext(lang, "NAME") + " Ana", lang).kind == "name"
    assert parse(gettext(lang, "AUTO") + " ON", lang).kind == "auto"
    assert parse(gettext(lang, "REMIND") + " ON", lang).kind == "remind"


def test_catalogues_are_compiled_from_their_po():
    for lang in TRANSLATED:
        po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
        mo = Path(str(po)[:-3] + ".mo")
        assert mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime - 1


def test_french_plurals_say_the_same_in_the_millions_slot_and_the_ordinary_one() -> None:
    """French has three plural forms, and ``msgstr[1]`` is read only for whole millions: every ordinary plural
    (2, 3, 13...) is ``msgstr[2]``. A plural written in the wrong slot showed players a sentence the rules page never
    used (``Plis restants joués d'office : 3.``; review round 3 F1), so the two slots say the same."""
    with open(LOCALE_DIR / "fr" / "LC_MESSAGES" / "messages.po", "rb") as f:
        catalog = read_po(f, locale="fr")
    assert catalog.num_plurals == 3
    differ = [m.id for m in catalog if m.pluralizable and isinstance(m.string, tuple) and m.string[1] != m.string[2]]
    assert not differ, differ
    from chat.render import translations

    assert translations("fr").ngettext("Last trick decided.", "Last %(num)s tricks decided.", 3) \
        == "%(num)s derniers plis joués d'office."

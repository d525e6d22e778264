"""Every word a message tells a player to send is a word the parser understands, in that message's language
(issue 28): the command phrases of every catalogue entry (the msgids themselves for English) and the commands the
rules page shows.

A command phrase is a run of words in capitals (``NOUVELLE +33612345678 BAGS``, ``DN ON``, ``K``), with the
command words the templates pass in (``%(new)s`` is the language's NEW, as the template that uses the msgid binds
it), the numbers, card codes, addresses and ``+number`` it carries, and, after a command word that needs one, its
argument (``NOM Ana``, ``NEW email``, where ``+number`` and ``email`` stand for a number and an address). Capitals
that are not something to send (SMS, the suit legend, the list of languages) are listed in ``NOT_SENT``.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

import pytest
from babel.messages.pofile import read_po

from chat.commands import rules_page_context
from chat.languages import LANGUAGES
from chat.parse import parse
from chat.render import LOCALE_DIR, ROOT, TEMPLATES_DIR, environment, gettext

#: Runs of capitals that do not ask a player to send anything.
NOT_SENT = frozenset({"SMS", "EN FR NB ID EL", "HP"})  # HP: Indonesian for a mobile phone
#: Entries that name a command as the subject of a sentence ("NEW needs who you play: NEW +47..."): msgid -> the command.
NAMED = {"%(new)s needs who you play: %(new)s +4791234567 (a phone, with its country code), %(new)s ana@example.com or "
         "%(new)s BOT (the computer).": "NEW"}
#: What a word standing for an argument is replaced with before it is parsed.
PHONE, ADDRESS = "+4791234567", "ana@example.com"
ADDRESS_WORDS = frozenset({"email", "e-mail", "e-post", "e-mail-adresse"})
#: Examples for the placeholders a command phrase may carry (the others end a phrase).
EXAMPLES = {"name": "Ana", "num": "2", "n": "2", "count": "2", "code": "FR", "digits": "482913", "kind": "EMAIL",
            "addr": "ana@example.com", "suit": "H"}

_CALL = re.compile(r"\b(?:n?gettext|_)\(\s*\"((?:[^\"\\]|\\.)*)\"")
_BOUND = re.compile(r"(\w+)=(?:_\(\s*)?\"([A-Z][A-Z ]*)\"\)?(?:\s+if\s.*?\selse\s+_\(\s*\"([A-Z][A-Z ]*)\"\))?")
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_ARGUMENT = re.compile(r"%\((\w+)\)s\w*")


@lru_cache(maxsize=None)
def _command_msgids() -> frozenset[str]:
    return frozenset(w for bound in bindings().values() for words in bound.values() for w in words)


def _call_text(text: str, start: int) -> str:
    """The text of the call whose ``(`` opens at ``start``, up to its matching ``)`` (strings skipped)."""
    depth, i, quote = 0, start, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
        i += 1
    return text[start:]


@lru_cache(maxsize=None)
def bindings() -> dict[str, dict[str, tuple[str, ...]]]:
    """msgid -> {placeholder: the command msgids the templates pass for it} (``new=_("NEW")``, ``bags="BAGS"``)."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    files = list(TEMPLATES_DIR.rglob("*.j2")) + list((ROOT / "chat").glob("*.py"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        for m in _CALL.finditer(text):
            call = _call_text(text, text.index("(", m.start()))
            bound = out.setdefault(m.group(1).replace('\\"', '"'), {})
            for key, first, other in _BOUND.findall(call[m.end() - m.start():]):
                bound[key] = tuple(sorted(set(bound.get(key, ())) | {first} | ({other} if other else set())))
    return out


@lru_cache(maxsize=None)
def entries(lang: str) -> list[tuple[str, str]]:
    """(msgid, one translated string) for every entry of ``lang``'s catalogue; for English, the msgids."""
    with (LOCALE_DIR / ("fr" if lang == "en" else lang) / "LC_MESSAGES" / "messages.po").open("rb") as f:
        cat = read_po(f)
    out = []
    for m in cat:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = ids if lang == "en" else (m.string if isinstance(m.string, tuple) else (m.string,))
        out += [(ids[0], s) for s in strings]
    return out


def _variants(msgid: str, text: str, lang: str) -> list[str]:
    """``text`` with its bound placeholders replaced by the command words, once per alternative the templates pass."""
    texts = [text]
    for key, words in bindings().get(msgid, {}).items():
        texts = [t.replace(f"%({key})s", gettext(lang, w) if w.isupper() and w != "BAGS" and w != "FLOOR" else w)
                 for t in texts for w in words]
    return texts


def _is_capitals(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _argument(word: str) -> str:
    """A word carried by a command phrase, as a player would send it (``+number`` -> a number)."""
    m = _ARGUMENT.fullmatch(word)
    if m:
        return EXAMPLES[m.group(1)] + word[m.end(1) + 2:]
    if word.startswith("+") and any(c.isalpha() for c in word):
        return PHONE
    if word.lower() in ADDRESS_WORDS:
        return ADDRESS
    if word == "#N":
        return "#3"
    return word


def _wants_more(said: Any) -> bool:
    """A command that takes an argument next: one missing it, or ``NEW`` alone (a link, issue 43; ``NEW email``
    names its argument)."""
    return said.reason == "missing_arg" or (said.kind == "new" and not said.arg)


def phrases(text: str, lang: str) -> list[tuple[str, str]]:
    """The command phrases of ``text``: (as written, as a player would send it)."""
    out: list[tuple[str, str]] = []
    current: list[str] = []

    def close() -> None:
        if current:
            written = " ".join(current)
            if written not in NOT_SENT:
                out.append((written, " ".join(_argument(w) for w in current)))
            current.clear()

    for raw in text.split():
        opens = raw.startswith(("(", "«", '"'))
        word = raw.lstrip("(«\"")
        ends = re.search(r"[,;:!?).»\"]+$", word)  # a trailing dot ends a sentence (and no address)
        word = word[:ends.start()] if ends else word
        if opens:
            close()
        ph = _ARGUMENT.fullmatch(word)  # a placeholder, or one with more after it (NAME %(name)s2)
        carried = (re.fullmatch(r"#?\d+|\+\d{6,}|\S+@\S+\.\w+|\+[^\W\d_]\w*", word) is not None
                   or (ph is not None and ph.group(1) in EXAMPLES)
                   or word in ("S", "H", "D", "C"))  # a suit a plan names (IF H 4H S LOW, RULES D12)
        # a lone capital the parser does not read is a word of the sentence (English I, A), not a command (K, D)
        letter = len([c for c in word if c.isalpha()]) == 1 and word.isalpha() and parse(word, lang).is_unknown
        if word and _is_capitals(word) and not ph and not letter:
            current.append(word)
        elif current and carried:
            current.append(word)
        elif current and word and _wants_more(parse(" ".join(_argument(w) for w in current), lang)) and (
                word[:1].isupper() or word.lower() in ADDRESS_WORDS
                or not parse(" ".join(_argument(w) for w in current + [word]), lang).is_unknown):
            current.append(word)  # NOM Ana, TZ Europe/Oslo, NEW email, AUTOPLAY aktif: the argument a command needs
            close()
        else:
            close()
        if ends:
            close()
    close()
    return out


def _refused(said: str, lang: str) -> bool:
    """True if the parser does not understand ``said``: neither a command, nor a flag (``ON``, ``PÅ``: after REMIND),
    nor a house rule (``BAGS``: after NEW). A command word without the argument it needs (a bare ``NOM``) is not
    understood: the parser answers that something is missing. (A bare ``NOUVELLE`` is understood since issue 43: a
    link for a friend.)"""
    intent = parse(said, lang)
    if not intent.is_unknown:
        return False
    if intent.reason == "missing_arg":
        return True
    if parse(f"REMIND {said}", lang).kind == "remind":
        return False
    after_new = parse(f"{gettext(lang, 'NEW')} BOT {said}", lang)
    return not (after_new.kind == "new" and after_new.rules != parse(f"{gettext(lang, 'NEW')} BOT", lang).rules)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_command_a_catalogue_entry_names_parses(lang):
    refused = []
    for msgid, text in entries(lang):
        if msgid in _command_msgids():
            continue  # NEW, NAME...: the words the other entries are given
        for variant in _variants(msgid, text, lang):
            found = phrases(variant, lang)
            if msgid in NAMED:  # the command is the subject of the sentence, not something to send as it stands
                found = [(w, s) for w, s in found if s != gettext(lang, NAMED[msgid])]
            refused += [(written, parse(said, lang).reason, text) for written, said in found if _refused(said, lang)]
    assert not refused, "\n".join(map(str, refused))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_command_the_rules_page_shows_parses(lang):
    page = environment(lang).get_template("web/rules.html.j2").render(lang=lang, target=500, languages=[],
                                                                            **rules_page_context(lang))
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", page)]
    assert len(codes) >= 12, codes
    refused = [(c, parse(c, lang).reason) for c in codes if _refused(c, lang)]
    assert not refused, refused


def test_the_phrases_found_are_the_ones_a_reader_sees():
    """The extraction itself: what it takes as something to send, and what it leaves."""
    assert phrases("MAIN, SCORE, LIEN, NOUVELLE +numéro ou NOUVELLE BOT. STOP pour arrêter.", "fr") == [
        ("MAIN", "MAIN"), ("SCORE", "SCORE"), ("LIEN", "LIEN"), ("NOUVELLE +numéro", "NOUVELLE +4791234567"),
        ("NOUVELLE BOT", "NOUVELLE BOT"), ("STOP", "STOP")]
    assert phrases("e.g. NAME Ana. Try TZ Europe/Oslo, or NEW email.", "en") == [
        ("NAME Ana", "NAME Ana"), ("TZ Europe/Oslo", "TZ Europe/Oslo"), ("NEW email", "NEW ana@example.com")]
    assert phrases("Cards: QH, 10S (S H C D). SMS. I am A", "en") == [("QH", "QH"), ("10S", "10S"), ("D", "D")]
    assert phrases("Kartu: AMBIL kartu", "id") == [("AMBIL", "AMBIL")]
    assert _refused("NOM", "fr") and not _refused("NOM Ana", "fr") and not _refused("NOUVELLE", "fr")  # a link, issue 43
    assert not _refused("PÅ", "nb") and not _refused("BAGS", "id")
    assert bindings()["Add ON or OFF, e.g. %(cmd)s ON."]["cmd"] == ("AUTO", "REMIND")  # and "AUTOPLAY", a literal


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_draw_prompt_uses_a_draw_word_only_for_its_command(lang):
    """"K keeps QH, D discards it and takes the next": a word of the K clause the parser reads as a draw command
    (keep, discard, draw) is read as keep, one of the D clause as discard (Indonesian "D buang lalu ambil kartu..."
    took the next card with AMBIL, which the parser reads as KEEP)."""
    prompt = gettext(lang, "K keeps %(card)s, D discards it and takes the next.", card="QH")
    clauses = dict((c.split()[0], c.split()[1:]) for c in prompt.split(", "))
    assert set(clauses) == {"K", "D"}, prompt
    for letter, kind in (("K", "keep"), ("D", "discard")):
        misread = [w for w in clauses[letter] if parse(w, lang).kind in ("keep", "discard", "draw")
                   and parse(w, lang).kind != kind]
        assert not misread, (prompt, letter, misread)


def test_the_rules_page_shows_each_languages_own_words() -> None:
    """The rules page's "What to send" writes what the messages say (review round 3 X5): the local help word,
    Norwegian PÅ/AV, each language's TZ example, the Greek words of the SMS and page buttons."""
    from chat.commands import rules_page_context

    def shown(lang: str) -> list[str]:
        return [w for _title, words in rules_page_context(lang)["commands"] for w in words]  # type: ignore[attr-defined]

    assert {"AIDE", "PAGE", "FUSEAU Europe/Paris"} <= set(shown("fr"))
    assert {"HJELP", "MINN AV", "AUTO PÅ", "DN AV", "AUTOSPILL AV"} <= set(shown("nb"))
    assert {"BANTUAN", "JEDA 3", "ZONA Asia/Jakarta"} <= set(shown("id"))
    assert {"ΒΟΗΘΕΙΑ", "ΤΡΑΒΑ", "ΚΡΑΤΑ", "ΠΕΤΑ", "ΠΑΡΑΙΤΗΣΗ", "ΠΑΥΣΗ 3", "ΖΩΝΗ Europe/Athens"} <= set(shown("el"))
    assert "HELP" in shown("en") and "LINK ana@example.com" in shown("el")

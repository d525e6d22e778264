"""NEW, LINK, UNLINK and VIA: the addresses a player types (a phone number over several words, ``whatsapp:+<number>``,
an email address), and what else NEW reads: the computer and its level, the house rules (RULES section 10).
"""

from __future__ import annotations

import re

from spades.events import DEFAULT_FLOOR, HouseRules

from .card_words import NUMBER
from .command_words import EASY, HARD, NORMAL, TABLES
from .intent import Intent, Say
from .normalize import normalize

#: The house-rule words after NEW, in every language, normalised as the words they are compared with (a Greek word
#: written as typed would never match: normalising turns its look-alike capitals into Latin ones).
_BAGS = frozenset(normalize(w) for w in ("BAGS", "NILBAGS", "NIL BAGS", "SACS", "POSER", "KANTONG", "ΣΑΚΟΥΛΕΣ"))
_FLOOR = frozenset(normalize(w) for w in ("FLOOR", "PLANCHER", "GULV", "BATAS", "ΟΡΙΟ"))
_ALTERNATE = frozenset(normalize(w) for w in ("ALT", "ALTERNATE", "ALTERNER", "VEKSLE", "GILIR"))
_TARGET = frozenset(normalize(w) for w in ("TO", "TARGET", "A", "JUSTE", "TIL", "SAMPAI", "ΕΩΣ"))
_PHONE = re.compile(r"^\+?[\d().\-]+$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _take_address(words: list[str], i: int) -> tuple[str, int, bool] | None:
    """The address that begins at ``words[i]``: an email address (lower case), or a phone number (``+`` and its
    digits, or its digits) written over one or more words. Returns (it, the index of its last word, True), or
    (what was typed, that index, False) for a number too short; None when ``words[i]`` begins neither."""
    w = words[i]
    if _EMAIL.match(w.strip(".,;")):
        return w.strip(".,;").lower(), i, True
    if not (_PHONE.match(w) and (len(re.sub(r"\D", "", w)) >= 6 or (i + 1 < len(words) and _PHONE.match(words[i + 1])))):
        return None
    digits = w
    while i + 1 < len(words) and _PHONE.match(words[i + 1]) and not words[i + 1].startswith("-"):
        i += 1
        digits += words[i]
    plus = digits.strip().startswith("+") or digits.strip().startswith("00")
    num = re.sub(r"\D", "", digits)
    if num.startswith("00"):
        num = num[2:]
    if len(num) < 6:
        return digits, i, False
    return ("+" if plus else "") + num, i, True


#: ``LINK 482913``: the code sent back from the address being linked (six digits, never a bid or a number).
_LINK_CODE = re.compile(r"^\d{6}$")
_WHATSAPP = "whatsapp"
#: how much of an address a refusal repeats: all of ``whatsapp:+`` and fifteen digits (issue 45 case 4)
ADDRESS_ECHO = 25
#: ``VIA <kind>``: the words of each kind of address, normalised.
VIA = {normalize(w): kind for kind, words in (("sms", ("SMS", "TEXT", "PHONE")), ("email", ("EMAIL", "E-MAIL", "MAIL")),
                                              ("whatsapp", ("WHATSAPP", "WA")), ("telegram", ("TELEGRAM", "TG")),
                                              # the game page's notifications (Web Push): each language's word for
                                              # the page, as its WEB word (fr PAGE, nb SIDE, id HALAMAN, el ΣΕΛΙΔΑ)
                                              ("push", ("PAGE", "PUSH", "WEB", "SIDE", "SIDEN", "HALAMAN", "ΣΕΛΙΔΑ",
                                                        "SELIDA")))
        for w in words}


def link_intent(kind: str, raw_words: list[str], say: Say) -> Intent:
    """``LINK <address | code>`` and ``UNLINK [address]`` (``raw_words``: what follows the word, as typed). ``LINK``
    alone is the game page's link (``WEB``), as it always was."""
    if not raw_words:
        return say("web") if kind == "link" else say("unlink")
    if kind == "link" and len(raw_words) == 1 and _LINK_CODE.match(raw_words[0].strip(".,;")):
        return say("link", arg=raw_words[0].strip(".,;"))
    address = one_address(raw_words)
    if address is None:
        return say("unknown", reason="bad_link", arg=" ".join(raw_words)[:ADDRESS_ECHO])
    return say(kind, arg=address)


def one_address(raw_words: list[str]) -> str | None:
    """The one address ``raw_words`` (as typed) are: a phone number, ``whatsapp:`` and a number, or an email address."""
    typed = " ".join(raw_words)
    prefix, words = "", raw_words
    if typed[:len(_WHATSAPP)].lower() == _WHATSAPP:  # whatsapp:+30..., WhatsApp +30...
        prefix, words = _WHATSAPP + ":", typed[len(_WHATSAPP):].lstrip(" :").split()
    found = _take_address(words, 0) if words else None
    if found is None or not found[2] or found[1] != len(words) - 1 or (prefix and "@" in found[0]):
        return None
    return prefix + found[0]


def _take_whatsapp(words: list[str], i: int) -> tuple[str, int, bool]:
    """``whatsapp:+<number>`` (or ``WhatsApp +<number>``, the number over several words) beginning at ``words[i]``,
    as :func:`_take_address` returns it: (``whatsapp:+<digits>``, its last word's index, True), or what was typed
    and False."""
    rest = words[i][len(_WHATSAPP):].lstrip(":")
    tail = ([rest] if rest else []) + words[i + 1:]
    found = _take_address(tail, 0) if tail else None
    if found is None or not found[2] or "@" in found[0]:
        return " ".join(words[i:i + 2])[:ADDRESS_ECHO], i, False
    return _WHATSAPP + ":" + found[0], i + found[1] + (0 if rest else 1), True


def new_intent(raw_words: list[str], lang: str, say: Say) -> Intent:
    """NEW <phone | email | BOT [EASY | NORMAL | HARD]> [BAGS] [FLOOR [n]] [TO n] [ALT] (ALT: strict alternation in the draw, RULES D11); NEW
    with no address: an invitation link (arg ``""``)."""
    table = TABLES[lang]
    address: str | None = None
    failed_nil_bags, floor, target = False, None, 500
    simultaneous_draw = True
    words = list(raw_words)
    i = 0
    leftovers: list[str] = []
    while i < len(words):
        w = words[i]
        n = normalize(w)
        found = _take_whatsapp(words, i) if address is None and w[:len(_WHATSAPP)].lower() == _WHATSAPP else None
        found = found or (_take_address(words, i) if address is None else None)
        if found is not None:
            said, i, ok = found
            if not ok:
                return say("unknown", reason="bad_address", arg=said[:ADDRESS_ECHO])
            address = said
        elif address is None and table.get(n) == "bot":
            address = "BOT"
        elif address == "BOT" and n in EASY:  # NEW BOT EASY: the computer's easy level
            address = "BOT EASY"
        elif address == "BOT" and n in HARD:  # NEW BOT HARD: its strongest
            address = "BOT HARD"
        elif address == "BOT" and n in NORMAL:  # NEW BOT NORMAL: NEW BOT said in full
            address = "BOT NORMAL"
        elif n in _BAGS:
            failed_nil_bags = True
        elif n in _FLOOR:
            floor = DEFAULT_FLOOR
            if i + 1 < len(words) and NUMBER.match(words[i + 1].strip()):
                i += 1
                floor = -abs(int(words[i]))
        elif n in _ALTERNATE:
            simultaneous_draw = False
        elif n in _TARGET and i + 1 < len(words) and words[i + 1].isdigit():
            i += 1
            target = int(words[i])
        elif w.isdigit() and address is not None:
            target = int(w)
        elif n:
            leftovers.append(w)
        i += 1
    if address is None and leftovers:  # NEW 12, NEW Ana: neither a number nor an address
        return say("unknown", reason="bad_address", arg=" ".join(leftovers)[:20])
    if not 100 <= target <= 1000:
        return say("unknown", reason="bad_number", arg=str(target))
    if leftovers:
        return say("unknown", reason="not_understood", arg=" ".join(leftovers))
    return say("new", arg=address or "", rules=HouseRules(failed_nil_bags, floor, target, simultaneous_draw))

"""GSM-7: which characters an SMS may hold at 160 a segment, and how many segments a text costs.

The GSM 03.38 default alphabet holds 128 characters (one septet each); its
extension table adds ``^ { } \\ [ ~ ] | €`` and form feed, which cost two
septets each (an escape and the character). A text entirely in GSM-7 fits 160
septets in one segment, or 153 a segment once it is split (the rest is the
concatenation header); an escape pair is never split across segments. A single
character outside GSM-7 turns the whole text into UCS-2: 70 characters in one
segment, 67 a segment once split.

:func:`to_gsm7` is the last step of every SMS rendering: it transliterates what
GSM-7 lacks (``ê`` -> ``e``, Greek small letters -> the GSM Greek capitals or
Latin look-alikes, curly quotes -> straight ones) and replaces anything left
with ``?``, so a rendered SMS can never fall back to UCS-2.
"""

from __future__ import annotations

import unicodedata

#: The 128 characters of the GSM 03.38 basic table, less the escape (0x1B).
BASIC = (
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
#: The extension table: each costs two septets.
EXTENSION = "\f^{}\\[~]|€"

_BASIC = frozenset(BASIC)
_EXTENSION = frozenset(EXTENSION)
_GSM7 = _BASIC | _EXTENSION

SINGLE_GSM, MULTI_GSM = 160, 153
SINGLE_UCS2, MULTI_UCS2 = 70, 67

# Greek capitals that GSM-7 lacks, written with their Latin look-alikes.
_GREEK_TO_LATIN = {
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K",
    "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}
_GREEK_GSM = frozenset("ΔΦΓΛΩΠΨΣΘΞ")

_PUNCT = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-",
    "\u2026": "...", "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u00b7": ".",
    "\t": " ", "\u0153": "oe", "\u0152": "OE", "\u00e7": "c",
    "\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C",
    "\u2664": "S", "\u2661": "H", "\u2662": "D", "\u2667": "C",
    "\u037e": ";", "\u0387": ".",
}


def is_gsm7(text: str) -> bool:
    """True if every character of ``text`` is in the GSM-7 basic or extension table."""
    return _GSM7.issuperset(text)  # the set walks the text in C: every SMS rendered passes here


def septets(text: str) -> int:
    """The GSM-7 length of ``text``: one septet a character, two for extension characters."""
    return len(text) + sum(text.count(ch) for ch in EXTENSION)


def segments(text: str) -> int:
    """How many SMS segments ``text`` costs (0 for an empty text).

    GSM-7 when :func:`is_gsm7`, else UCS-2 (counted in UTF-16 code units, a
    surrogate pair never split).
    """
    if not text:
        return 0
    if is_gsm7(text):
        if septets(text) <= SINGLE_GSM:
            return 1
        count, used = 1, 0
        for ch in text:
            size = 2 if ch in _EXTENSION else 1
            if used + size > MULTI_GSM:
                count, used = count + 1, 0
            used += size
        return count
    units = [len(ch.encode("utf-16-le")) // 2 for ch in text]
    if sum(units) <= SINGLE_UCS2:
        return 1
    count, used = 1, 0
    for size in units:
        if used + size > MULTI_UCS2:
            count, used = count + 1, 0
        used += size
    return count


def _greek_upper(ch: str) -> str:
    """A Greek letter as GSM-7 writes it: capital, without accents, Latin look-alike where GSM lacks it."""
    base = unicodedata.normalize("NFD", ch)[0].upper()
    if base == "Σ" or ch == "ς":
        return "Σ"
    if base in _GREEK_GSM:
        return base
    return _GREEK_TO_LATIN.get(base, "")


def greek_caps(text: str) -> str:
    """Greek text the way Greek SMS is written in GSM-7: all capitals, no accents.

    Latin letters are uppercased too (a Greek message in capitals reads as one);
    card codes are capitals already.
    """
    out = []
    for ch in text:
        if "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff":
            out.append(_greek_upper(ch) or ch)
        else:
            out.append(ch.upper() if ch.isalpha() and ch.islower() and ch not in "ßø" else ch)
    return "".join(out)


def to_gsm7(text: str) -> str:
    """``text`` written in GSM-7 only: transliterate what can be, ``?`` for the rest.

    Accented Latin letters lose the accent GSM-7 lacks (``ê`` -> ``e``, ``Ê`` -> ``E``),
    Greek letters become GSM-7 Greek capitals or Latin look-alikes, emoji and
    other scripts become ``?``. Text already in GSM-7 is returned unchanged.
    """
    if is_gsm7(text):
        return text
    out: list[str] = []
    for ch in text:
        if ch in _BASIC or ch in _EXTENSION:
            out.append(ch)
            continue
        if ch in _PUNCT:
            out.append(_PUNCT[ch])
            continue
        if "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff":
            out.append(_greek_upper(ch) or "?")
            continue
        if unicodedata.category(ch) in ("Mn", "Me", "Cf") or ch in "\ufe0f\ufe0e\u200d":
            continue  # combining marks, variation selectors, zero-width joiners
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if base and all(c in _BASIC for c in base):
            out.append(base)
        elif unicodedata.category(ch).startswith("Z"):
            out.append(" ")
        else:
            out.append("?")
    return "".join(out)

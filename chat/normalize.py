"""The form a player's text is read in: upper case, no accents, Greek look-alikes as Latin capitals, suit symbols
as letters, punctuation as spaces.

The parser (:mod:`chat.parse`) reads messages in it and :mod:`chat.languages` reads ``LANG`` codes in it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_GREEK_LOOKALIKE = {
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K",
    "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}
_SYMBOLS = {
    "♠": " S", "♤": " S", "♥": " H", "♡": " H", "❤": " H", "♦": " D", "♢": " D", "♣": " C", "♧": " C",
}
_SPLIT = re.compile(r"[\s,;:!?()\[\]{}<>\"'`´’‘“”«»*/\\|=~^…·.]+")


#: ASCII control characters as :func:`normalize` treats them: line breaks and tabs as spaces, the others gone.
_ASCII_CONTROLS = {c: (" " if chr(c) in "\n\r\t" else None) for c in [*range(32), 127]}


@lru_cache(maxsize=4096)  # pure; the parser asks for the same text in each language it tries
def normalize(text: str) -> str:
    """Upper case, no accents, Greek look-alikes as Latin capitals, suit symbols as letters, punctuation as spaces."""
    if text.isascii():  # (most texts) no accent, symbol or look-alike: only case, controls and punctuation
        return " ".join(t for t in _SPLIT.split(text.translate(_ASCII_CONTROLS).upper()) if t)
    return normalize_each(text)


def normalize_each(text: str) -> str:
    """:func:`normalize` character by character (any text; :func:`normalize` takes a shorter way for ASCII)."""
    out = []
    for ch in unicodedata.normalize("NFKC", text):
        if ch in "\ufe0f\ufe0e\u200d\u200b\u200c\u2060\ufeff" or unicodedata.category(ch) == "Cc":
            out.append(" " if ch in "\n\r\t" else "")
            continue
        if ch in _SYMBOLS:
            out.append(_SYMBOLS[ch] + " ")
            continue
        up = ch.upper()
        base = "".join(c for c in unicodedata.normalize("NFD", up) if not unicodedata.combining(c))
        if ch == "ς":
            base = "Σ"
        base = "".join(_GREEK_LOOKALIKE.get(c, c) for c in base)
        base = base.replace("Ø", "O").replace("Æ", "AE").replace("ß", "SS")
        out.append(base)
    return " ".join(t for t in _SPLIT.split("".join(out)) if t)

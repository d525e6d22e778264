"""Cards, suits and numbers as players write them: ``QH``, ``Q H``, ``♥Q``, ``queen of hearts``, ``dame de coeur``,
``2C7D``; a suit by its letter, word or symbol; a number of tricks (``4``, ``four``, ``quatre plis``, ``dua belas``).

Each reader takes tokens already normalised (:func:`chat.normalize.normalize`) and the player's language (its suit
initials: ``P`` for pique), and returns None for what is not one.
"""

from __future__ import annotations

import re

from spades.cards import RANK_NAMES, Card, Suit, parse_card
from spades.errors import CardSyntaxError

from .languages import LANGUAGES, SUIT_INITIALS
from .normalize import normalize

# rank and suit words for "queen of hearts", "dame de coeur", "ess spar"...
_RANK_WORDS = {
    "ACE": 14, "KING": 13, "QUEEN": 12, "JACK": 11, "TEN": 10,
    "AS": 14, "ROI": 13, "DAME": 12, "VALET": 11, "DIX": 10,
    "ESS": 14, "KONGE": 13, "KNEKT": 11, "TI": 10,
    "RAJA": 13, "RATU": 12, "PANGERAN": 11, "SEPULUH": 10,
    "ΑΣΣΟΣ": 14, "ΑΣΟΣ": 14, "ΡΗΓΑΣ": 13, "ΝΤΑΜΑ": 12, "ΒΑΛΕΣ": 11, "ΦΑΝΤΗΣ": 11,
}
_SUIT_WORDS = {
    "SPADES": "S", "SPADE": "S", "HEARTS": "H", "HEART": "H", "DIAMONDS": "D", "DIAMOND": "D",
    "CLUBS": "C", "CLUB": "C",
    "PIQUE": "S", "PIQUES": "S", "COEUR": "H", "COEURS": "H", "CŒUR": "H", "CARREAU": "D", "CARREAUX": "D",
    "TREFLE": "C", "TREFLES": "C",
    "SPAR": "S", "HJERTER": "H", "RUTER": "D", "KLØVER": "C",
    "SEKOP": "S", "HATI": "H", "WAJIK": "D", "KERITING": "C",
    "ΜΠΑΣΤΟΥΝΙ": "S", "ΜΠΑΣΤΟΥΝΙΑ": "S", "ΚΟΥΠΑ": "H", "ΚΟΥΠΕΣ": "H", "ΚΑΡΟ": "D", "ΣΠΑΘΙ": "C", "ΣΠΑΘΙΑ": "C",
}
_OF_WORDS = frozenset({"OF", "DE", "DU", "I", "AV", "ΣΤΟ"})
#: A rank written as on the card, before OF and a suit word ("5 of hearts", "Q of clubs").
_RANK_CODES = {**{str(n): n for n in range(2, 11)}, "T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
#: Numbers as words (a bid: "bid four", "quatre plis"): English in every language, each language its own too.
_NUMBER_WORDS: dict[str, tuple[str, ...]] = {  # 0 to 13, in order
    "en": ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ELEVEN", "TWELVE",
           "THIRTEEN"),
    "fr": ("ZERO", "UN", "DEUX", "TROIS", "QUATRE", "CINQ", "SIX", "SEPT", "HUIT", "NEUF", "DIX", "ONZE", "DOUZE",
           "TREIZE"),
    "nb": ("NULL", "EN", "TO", "TRE", "FIRE", "FEM", "SEKS", "SJU", "ÅTTE", "NI", "TI", "ELLEVE", "TOLV", "TRETTEN"),
    "id": ("NOL", "SATU", "DUA", "TIGA", "EMPAT", "LIMA", "ENAM", "TUJUH", "DELAPAN", "SEMBILAN", "SEPULUH",
           "SEBELAS", "DUA BELAS", "TIGA BELAS"),
    "el": ("ΜΗΔΕΝ", "ΕΝΑ", "ΔΥΟ", "ΤΡΙΑ", "ΤΕΣΣΕΡΑ", "ΠΕΝΤΕ", "ΕΞΙ", "ΕΠΤΑ", "ΟΚΤΩ", "ΕΝΝΙΑ", "ΔΕΚΑ", "ΕΝΤΕΚΑ",
           "ΔΩΔΕΚΑ", "ΔΕΚΑΤΡΙΑ"),
}
_NUMBERS_N = {lang: {normalize(w): n for src in ("en", lang) for n, w in enumerate(_NUMBER_WORDS[src])}
              for lang in LANGUAGES}
#: "4 tricks": the word for tricks after a bid, in every language.
_TRICK_WORDS = frozenset(normalize(w) for w in ("TRICK", "TRICKS", "PLI", "PLIS", "STIKK", "TRIK", "ΜΠΑΖΑ", "ΜΠΑΖΕΣ"))
_RANKS_N = {normalize(k): v for k, v in _RANK_WORDS.items()}
_SUITS_N = {normalize(k): v for k, v in _SUIT_WORDS.items()}
#: A token shaped like a card (``ZH``, ``H15``) that is none: the reply says "not a card", not "not understood".
CARDISH = re.compile(r"^(?:\d{1,2}|[A-Z])[SHDC]$|^[SHDC](?:\d{1,2}|[A-Z])$")
_CARD_RUN = re.compile(r"(10|[2-9TJQKA])([SHDC])")
#: A number as written: a bid, a target, a floor.
NUMBER = re.compile(r"^-?\d{1,4}$")


def read_card(token: str, lang: str) -> Card | None:
    """The card ``token`` is (:func:`spades.cards.parse_card`, with ``lang``'s suit initials), or None."""
    try:
        return parse_card(token, SUIT_INITIALS.get(lang) or None)
    except CardSyntaxError:
        return None


def read_cards(tokens: list[str], lang: str) -> list[Card] | None:
    """The cards named by ``tokens`` (``2C 7D``, ``2C7D``, ``Q H 10 S``, ``queen of hearts``), or None."""
    joined = "".join(tokens)
    one = read_card(joined, lang)
    if one is not None:
        return [one]
    out: list[Card] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        card = None
        if tok in _RANKS_N and i + 1 < len(tokens) and (tokens[i + 1] in _OF_WORDS or tokens[i + 1] in _SUITS_N):
            card = None  # "as de pique": the rank word first
        else:
            card = read_card(tok, lang)
        if card is None and i + 1 < len(tokens) and tok not in _RANKS_N:
            card = read_card(tok + tokens[i + 1], lang)
            if card is not None:
                i += 1
        if card is None and tok in _RANKS_N:
            j = i + 1
            if j < len(tokens) and tokens[j] in _OF_WORDS:
                j += 1
            if j < len(tokens) and tokens[j] in _SUITS_N:
                card = read_card(RANK_NAMES.get(_RANKS_N[tok], str(_RANKS_N[tok])) + _SUITS_N[tokens[j]], lang)
                i = j
        if card is None and tok in _RANK_CODES and i + 1 < len(tokens):  # "5 of hearts", "Q of clubs"
            j = i + 2 if tokens[i + 1] in _OF_WORDS else i + 1
            if j < len(tokens) and tokens[j] in _SUITS_N:
                card = read_card(RANK_NAMES.get(_RANK_CODES[tok], str(_RANK_CODES[tok])) + _SUITS_N[tokens[j]], lang)
                i = j
        if card is None and tok in _SUITS_N and i + 1 < len(tokens) and tokens[i + 1] in _RANKS_N:
            card = read_card(RANK_NAMES.get(_RANKS_N[tokens[i + 1]], str(_RANKS_N[tokens[i + 1]])) + _SUITS_N[tok], lang)
            i += 1
        if card is None:
            run = _CARD_RUN.findall(tok)
            if run and "".join(r + s for r, s in run) == tok:
                found = [read_card(r + s, lang) for r, s in run]
                if any(c is None for c in found):
                    return None
                out.extend(c for c in found if c is not None)
                i += 1
                continue
            return None
        out.append(card)
        i += 1
    return out or None


def read_count(tokens: list[str], lang: str) -> int | None:
    """A number of tricks: ``4``, ``four``, ``4 tricks``, ``quatre plis``, ``dua belas`` (None if it is not one)."""
    if len(tokens) > 1 and tokens[-1] in _TRICK_WORDS:
        tokens = tokens[:-1]
    if len(tokens) == 1 and NUMBER.match(tokens[0]):
        return int(tokens[0])
    return _NUMBERS_N[lang].get(" ".join(tokens))


def read_suit(token: str, lang: str) -> Suit | None:
    """The suit ``token`` names: its letter (``H``; a language's own, ``P`` for pique), its word or symbol."""
    if token in _SUITS_N:
        token = _SUITS_N[token]
    if len(token) != 1:
        return None
    card = read_card("2" + token, lang)
    return card.suit if card is not None else None

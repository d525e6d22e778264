"""Languages: which ones slowspades speaks, a player's default from their phone number, suit initials.

A player's language defaults from their phone number's country (+33 French,
+47 Norwegian Bokmål, +62 Indonesian, +30 Greek, otherwise English) and changes
with ``LANG xx``. Card codes always use the English letters S H D C; each
language adds its own suit initials where they cannot be confused with an
English suit letter or with another suit of the same language:

* fr: ``P`` pique, ``T`` trèfle (cœur and carreau share C, so neither gets a letter)
* nb: ``R`` ruter, ``K`` kløver (spar and hjerter are S and H already)
* id: ``W`` wajik, ``K`` keriting (sekop and hati are S and H already)
* el: ``M`` μπαστούνι, ``Σ`` σπαθί (κούπα and καρό share Κ)
"""

from __future__ import annotations

import phonenumbers

from spades.cards import Suit

from .normalize import normalize

LANGUAGES: tuple[str, ...] = ("en", "fr", "nb", "id", "el")
DEFAULT_LANGUAGE = "en"

#: Country calling code -> language.
COUNTRY_LANGUAGE: dict[int, str] = {33: "fr", 47: "nb", 62: "id", 30: "el"}

#: Extra suit initials a language accepts in card codes (English S H D C are always accepted).
SUIT_INITIALS: dict[str, dict[str, Suit]] = {
    "en": {},
    "fr": {"P": Suit.SPADES, "T": Suit.CLUBS},
    "nb": {"R": Suit.DIAMONDS, "K": Suit.CLUBS},
    "id": {"W": Suit.DIAMONDS, "K": Suit.CLUBS},
    "el": {"M": Suit.SPADES, "Σ": Suit.CLUBS},
}

# What a player may type after LANG, in chat.normalize's form (upper case, no accents, Greek look-alikes in Latin).
_ALIASES: dict[str, str] = {
    "EN": "en", "ENG": "en", "ENGLISH": "en", "ANGLAIS": "en", "ENGELSK": "en", "INGGRIS": "en", "UK": "en", "US": "en",
    "FR": "fr", "FRA": "fr", "FRANCAIS": "fr", "FRENCH": "fr", "FRANSK": "fr", "PRANCIS": "fr",
    "NB": "nb", "NO": "nb", "NOR": "nb", "NN": "nb", "NORSK": "nb", "BOKMAL": "nb", "NORWEGIAN": "nb",
    "NORVEGIEN": "nb", "NORWEGIA": "nb",
    "ID": "id", "IN": "id", "IND": "id", "INDONESIA": "id", "INDONESIAN": "id", "BAHASA": "id", "INDONESIEN": "id",
    "INDONESISK": "id",
    "EL": "el", "GR": "el", "GRE": "el", "GREEK": "el", "GREC": "el", "GRESK": "el", "YUNANI": "el",
    "EΛΛHNIKA": "el", "EΛΛHNIKH": "el", "EΛ": "el",
}


def normalize_language(code: str) -> str | None:
    """The language code for what a player typed (``fr``, ``FR``, ``norsk``, ``gr``...), or None."""
    key = normalize(code).replace(" ", "")
    return _ALIASES.get(key)


def language_for_phone(number: str) -> str:
    """The default language of a phone number (E.164 such as ``+33612345678``); English if unknown."""
    try:
        parsed = phonenumbers.parse(number, None)
    except phonenumbers.NumberParseException:
        return DEFAULT_LANGUAGE
    return COUNTRY_LANGUAGE.get(parsed.country_code or 0, DEFAULT_LANGUAGE)


def language_for_address(address: str) -> str:
    """The default language of a player's address: from the country of a phone number (by SMS or WhatsApp,
    ``whatsapp:+30...``), English for email."""
    if "@" in address:
        return DEFAULT_LANGUAGE
    return language_for_phone(address.removeprefix("whatsapp:"))


def supported(lang: str | None) -> str:
    """``lang`` if slowspades speaks it, else English."""
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE

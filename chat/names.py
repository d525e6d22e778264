"""Players' names as messages show them: a name a player chose (``NAME Ana``), or a short form of their address.

An SMS names the opponent in at most 12 characters. A chosen name is checked by
:func:`check_name`; without one, :func:`display_name` shows a short form of the address
that cannot be mistaken for another number (issue 14 case 1).
"""

from __future__ import annotations

import re
from functools import lru_cache

import phonenumbers

from .gsm import is_gsm7, to_gsm7

WHATSAPP_PREFIX = "whatsapp:"  # a WhatsApp address: the prefix and the number, as Twilio writes it
TELEGRAM_PREFIX = "telegram:"  # a Telegram address: the prefix and the chat id the bot is written from
PUSH_PREFIX = "push:"  # a browser a game page notifies (Web Push): the prefix and a hash of its subscription
NAME_MAX_SMS = 12  # characters of a player's name in an SMS
#: how a forgotten player's seat is named once ``slowspades players forget`` erased their address: this prefix and
#: a random id; a message or page shows them as "a forgotten player" in the reader's language (:func:`is_forgotten`)
FORGOTTEN = "forgotten:"
_DIGITS = re.compile(r"\d")


def display_name(name: str, channel: str) -> str:
    """A player's name as a message shows it: trimmed; in an SMS, GSM-7 and at most 12 characters; an address
    shortened on every channel (an email shows another player's number no more than an SMS does, issue 23 case 5).

    ``name`` is the name a player chose (``NAME Ana``) or, failing that, their address. In an SMS an
    address is never cut to 12 characters (``+30691234567`` reads as a wrong number, issue
    14 case 1): a phone number shows as its country code and last four digits, ``+30..5678``, and an
    email address as its start, ``dave@..``. The two dots are GSM-7 (an ellipsis is not) and no phone
    number or address contains them, so the short form cannot be mistaken for another number.
    """
    name = " ".join((name or "").split()) or "?"
    if is_forgotten(name):  # the template's language names them (chat.render.unforget)
        return FORGOTTEN
    short = short_address(name)
    if short is not None:  # an address is personal data: shown to another player shortened on every channel
        return short
    if channel != "sms":
        return name
    name = to_gsm7(name)
    if len(name) > NAME_MAX_SMS:
        name = name[:NAME_MAX_SMS].rstrip(" -.,'")
    return name


def is_forgotten(name: str) -> bool:
    """True for the seat of a forgotten player (:data:`FORGOTTEN` and its id, or :data:`FORGOTTEN` alone as
    :func:`display_name` shows it)."""
    return name.startswith(FORGOTTEN)


@lru_cache(maxsize=4096)  # pure, and asked for the same few addresses at every message (parsing a number is slow)
def short_address(address: str) -> str | None:
    """The SMS form of a phone number (``+30..5678``; a WhatsApp address ``whatsapp:+30...`` as ``WA +30..5678``, told
    apart from the same number by SMS, another player: issue 45 case 4), email address (``dave@..``) or Telegram
    chat (``tg..4821``); None for a chosen name."""
    address = address.strip()
    if address.startswith(TELEGRAM_PREFIX):  # a chat id is the player's: shown as its last digits, tg..4821
        return f"tg..{address[len(TELEGRAM_PREFIX):][-4:]}"
    if address.startswith(PUSH_PREFIX):  # a browser's notifications: web..3f2a (the id is a hash, no secret)
        return f"web..{address[len(PUSH_PREFIX):][-4:]}"
    if address.startswith(WHATSAPP_PREFIX):
        short = short_address(address.removeprefix(WHATSAPP_PREFIX))
        return None if short is None else f"WA {short}"
    if "@" in address and " " not in address:
        local = to_gsm7(address.split("@", 1)[0])[:NAME_MAX_SMS - 3]
        return f"{local}@.."
    digits = "".join(ch for ch in address if ch.isdigit())
    if address.startswith("+") and len(digits) >= 7 and set(address[1:]) <= set("0123456789 -()."):
        try:
            country = str(phonenumbers.parse("+" + digits, None).country_code or "")
        except phonenumbers.NumberParseException:
            country = ""
        return f"+{country}..{digits[-4:]}" if country else f"+..{digits[-4:]}"
    return None


NAME_CHARS = " -'."  # besides letters and digits: what names need (Jean-Luc, O'Neil, Dr. Who)
NAME_DIGITS_MAX = 3  # more digits read as (part of) a phone number
#: What reads as the computer (or the service) once case, spacing, look-alike digits and a leading "the" are folded.
COMPUTER_NAMES = frozenset({"bot", "bots", "robot", "computer", "cpu", "slowspades", "spades"})
_LOOKALIKE = str.maketrans("0134578|$@", "oleastbls" + "a")


def skeleton(name: str, digits: bool = True) -> str:
    """A name as it reads: case folded, look-alike digits as letters (``B0t``: ``bot``), no spaces or
    punctuation (``B O T``, ``b.o.t``); other digits kept if ``digits`` (``Ana2`` is not ``Ana``)."""
    folded = name.casefold().translate(_LOOKALIKE)
    return "".join(ch for ch in folded if ch.isalpha() or (digits and ch.isdigit()))


def same_name(a: str, b: str) -> bool:
    """Whether two names read the same (``Ana`` and ``ANA.``, ``Bo`` and ``B0``): one may not pass for the other."""
    return bool(skeleton(a)) and skeleton(a) == skeleton(b)


def name_refusal(text: str) -> str | None:
    """Why ``text`` may not be a name (``length``, ``chars``, ``number``, ``computer``), or None.

    A name is 1 to 12 characters of GSM-7 (it is sent by SMS as it is; Greek is written in GSM-7
    capitals, other scripts are refused): letters, digits, spaces and ``- ' .``, beginning with a
    letter or digit, with at least one letter and at most three digits (``..0002``, ``+1 555`` read as a
    phone number), and not reading as the computer (``B0t``, ``B O T``, ``The Bot``, ``Bot 2``).
    No markup can pass (``<`` ``>`` ``&`` ``"`` are not name characters).
    """
    name = " ".join((text or "").split())
    if not 1 <= len(name) <= NAME_MAX_SMS:
        return "length"
    gsm = to_gsm7(name)  # Greek becomes GSM-7 capitals (Νίκος: NIKOΣ); other scripts become "?"
    if not is_gsm7(gsm) or any(not (ch.isalnum() or ch in NAME_CHARS) for ch in gsm) or not gsm[0].isalnum():
        return "chars"
    if not any(ch.isalpha() for ch in gsm) or len(_DIGITS.findall(gsm)) > NAME_DIGITS_MAX:
        return "number"
    plain = skeleton(gsm, digits=False)
    if plain in COMPUTER_NAMES or plain.removeprefix("the") in COMPUTER_NAMES:
        return "computer"
    return None


def check_name(text: str) -> str | None:
    """The name a player asked for with ``NAME <x>``, tidied (spacing; Greek in GSM-7 capitals), or None if
    it may not be a name (:func:`name_refusal`). The service also refuses a name another player holds, or
    one that reads as the opponent's (:func:`same_name`)."""
    if name_refusal(text) is not None:
        return None
    return to_gsm7(" ".join(text.split()))

"""Players' names as messages show them: a name a player chose (``NAME Ana``), or a short form of their address.

An SMS names the opponent in at most 12 characters. A chosen name is checked by
:func:`check_name`; without one, :func:`display_name` shows a short form of the address
that cannot be mistaken for another number (issue 14 case 1).
"""

from __future__ import annotations

import re

import phonenumbers

from .gsm import is_gsm7, to_gsm7

NAME_MAX_SMS = 12  # characters of a player's name in an SMS
_DIGITS = re.compile(r"\d")


def display_name(name: str, channel: str) -> str:
    """A player's name as a message shows it: trimmed; in an SMS, GSM-7 and at most 12 characters.

    ``name`` is the name a player chose (``NAME Ana``) or, failing that, their address. In an SMS an
    address is never cut to 12 characters (``+30691234567`` reads as a wrong number, issue
    14 case 1): a phone number shows as its country code and last four digits, ``+30..5678``, and an
    email address as its start, ``dave@..``. The two dots are GSM-7 (an ellipsis is not) and no phone
    number or address contains them, so the short form cannot be mistaken for another number.
    """
    name = " ".join((name or "").split()) or "?"
    if channel != "sms":
        return name
    short = short_address(name)
    if short is not None:
        return short
    name = to_gsm7(name)
    if len(name) > NAME_MAX_SMS:
        name = name[:NAME_MAX_SMS].rstrip(" -.,'")
    return name


def short_address(address: str) -> str | None:
    """The SMS form of a phone number (``+30..5678``) or email address (``dave@..``); None for a chosen name."""
    address = address.strip()
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


def check_name(text: str) -> str | None:
    """The name a player asked for with ``NAME <x>``, tidied, or None if it may not be a name.

    A name is 1 to 12 characters of GSM-7 (it is sent by SMS as it is; Greek is written in GSM-7
    capitals, other scripts are refused), with no ``@``, no ``#``,
    no leading ``+`` and fewer than five digits: nothing that reads as a phone number or an email
    address (so nobody can pass for another player's address). The service also refuses a name
    another player of the same game uses.
    """
    name = " ".join((text or "").split()).strip(" .,;:!?\"'")
    if not 1 <= len(name) <= NAME_MAX_SMS:
        return None
    gsm = to_gsm7(name)  # Greek becomes GSM-7 capitals (Νίκος: NIKOΣ); other scripts become "?"
    if gsm.count("?") > name.count("?") or not is_gsm7(gsm):
        return None
    name = gsm
    if "@" in name or "#" in name or name.startswith("+"):
        return None
    if len(_DIGITS.findall(name)) >= 5:
        return None
    return name

"""Players are known by their address: an E.164 phone number (SMS), a WhatsApp address (``whatsapp:+<E.164>``, as
Twilio writes it: a channel of its own, another player than the same number by SMS), a Telegram chat
(``telegram:<chat id>``, the bot's private chat with the player) or an email address.

Also here: the addresses the service gives a seat: its email reply address (``play+<token>@<domain>``)
and its private game page (``/g/<token>``). No I/O: the tokens themselves are kept by
:mod:`service.store.players`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import parseaddr
from functools import lru_cache
from typing import Mapping

import phonenumbers

SMS, EMAIL, WHATSAPP, TELEGRAM, PUSH = "sms", "email", "whatsapp", "telegram", "push"
WHATSAPP_PREFIX = "whatsapp:"
#: a Telegram player: ``telegram:<chat id>``, the private chat the bot is written from (service.telegram)
TELEGRAM_PREFIX = "telegram:"
#: the computer's seat: ``bot:<level>`` (service.games.levels); nothing is ever sent to it
BOT_PREFIX = "bot:"
#: a browser that asked a game page to notify it (Web Push): ``push:<id>``, linked to the player (service.webpush)
PUSH_PREFIX = "push:"
_EMAIL_RE = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


class BadAddress(ValueError):
    """Text that is neither a phone number nor an email address."""


@dataclass(frozen=True)
class Address:
    """A normalised player address: ``kind`` is ``sms`` (``value`` in E.164), ``whatsapp`` (``value``
    ``whatsapp:+<E.164>``) or ``email`` (lower case)."""

    kind: str
    value: str

    def __str__(self) -> str:
        return self.value


def parse_address(text: str, default_region: str = "US") -> Address:
    """A phone number (to E.164), a WhatsApp address (``whatsapp:`` and a number: ``whatsapp:+<E.164>``) or an
    email address, from what a player typed or a provider sent."""
    raw = (text or "").strip()
    if raw[:len(WHATSAPP_PREFIX)].lower() == WHATSAPP_PREFIX:
        number = raw[len(WHATSAPP_PREFIX):].strip()
        e164 = _e164(number, None if number.startswith("+") else default_region) if "@" not in number else None
        if e164 is None:
            raise BadAddress(raw)
        return Address(WHATSAPP, WHATSAPP_PREFIX + e164)
    if "@" in raw:
        _name, addr = parseaddr(raw)
        addr = (addr or raw).strip().lower()
        if not _EMAIL_RE.match(addr):
            raise BadAddress(raw)
        return Address(EMAIL, addr)
    e164 = _e164(raw, None if raw.startswith("+") else default_region)
    if e164 is None:
        raise BadAddress(raw)
    return Address(SMS, e164)


@lru_cache(maxsize=4096)  # every webhook parses its sender's number: the same few numbers again and again
def _e164(raw: str, region: str | None) -> str | None:
    """A possible phone number in E.164, or None."""
    try:
        num = phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(num):
        return None
    return str(phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164))


def address_kind(value: str) -> str:
    """The channel of a normalised address: ``whatsapp``, ``telegram``, ``push``, ``email`` or ``sms``."""
    if value.startswith(WHATSAPP_PREFIX):
        return WHATSAPP
    if value.startswith(TELEGRAM_PREFIX):
        return TELEGRAM
    if value.startswith(PUSH_PREFIX):
        return PUSH
    return EMAIL if "@" in value else SMS


def is_bot(address: str) -> bool:
    """Whether ``address`` is the computer's (``bot:<level>``)."""
    return address.startswith(BOT_PREFIX)


def telegram_address(chat_id: int | str) -> str:
    """The address of the Telegram private chat ``chat_id`` (an integer, as the Bot API writes it)."""
    return f"{TELEGRAM_PREFIX}{int(chat_id)}"


def telegram_chat(address: str) -> str:
    """The chat id of a Telegram address (``telegram:123``: ``123``)."""
    return address.removeprefix(TELEGRAM_PREFIX)


def phone_number(value: str) -> str:
    """The E.164 number of an SMS or WhatsApp address (``whatsapp:+30...``: ``+30...``); an email as it is."""
    return value.removeprefix(WHATSAPP_PREFIX)


#: The "game" of a player's own reply token (:meth:`service.store.players.Players.own_reply_token`): none.
OWN = "-"


def page_expired(meta: Mapping[str, str], seat: int, now_ms: int, ttl_days: float) -> bool:
    """Whether a seat's page of a game is past its time: ``ttl_days`` after the game ended (``ended``), or
    after the page was last renewed by ``WEB`` (``webat<seat>``), whichever is later. A game not ended: no."""
    ended = int(meta.get("ended") or 0)
    if not ended:
        return False
    since = max(ended, int(meta.get(f"webat{seat}") or 0))
    return now_ms > since + ttl_days * 86_400_000


def page_url(base: str, token: str) -> str:
    """The address of a seat's private game page (``service.web.game``)."""
    return f"{base.rstrip('/')}/g/{token}"


def reply_address(token: str, domain: str) -> str:
    return f"play+{token}@{domain}"


def token_from_recipient(recipient: str) -> str | None:
    """The token of ``play+<token>@domain`` (first matching recipient), or None."""
    for part in (recipient or "").split(","):
        _n, addr = parseaddr(part)
        m = re.match(r"^[^+@]+\+([0-9a-fA-F]{32})@", addr or "")
        if m:
            return m.group(1).lower()
    return None

"""Where a message to a player goes: :func:`destination`, called where an outbox entry's address is chosen.

The candidates are the player's linked addresses (``Links.linked(home)``, the one ``VIA`` names first; the
home address alone while the service keeps no links), each tried by the steps below in order; the first
that takes it is the destination. If none does, the home address, as before channels could be linked (a
WhatsApp home whose window is closed: ``closed``, the message cannot go).

* WhatsApp (:func:`whatsapp_step`): inside the address's 24-hour window (:mod:`service.store.window`) the
  message goes free-form; outside it, a your-turn prompt, a reminder or an invitation goes as its approved
  template (:mod:`service.whatsapp`), if one is configured for its kind and the player's language; anything
  else, or a kind without a template, goes to the next candidate, and the operator's log says so (the address
  as its keyed hash, :mod:`service.logs`). A template is never used inside the window.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from . import logs
from .addresses import WHATSAPP, address_kind
from .context import Services
from .store.window import window_open
from .whatsapp import template_sid

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Template:
    """An approved WhatsApp Content template: its ``sid`` (ContentSid), of ``kind`` in ``lang``."""

    sid: str
    kind: str
    lang: str


@dataclass(frozen=True)
class Destination:
    """Where a message goes: ``address``, its ``channel``, and the template it goes as (None: free-form).
    ``closed``: the home's WhatsApp window is closed and nothing else took the message (it cannot go)."""

    address: str
    channel: str
    template: Template | None = None
    closed: bool = False


def candidates(svc: Services, home: str) -> list[str]:
    """The player's addresses to try, in order: their linked addresses (``VIA``'s kind first), else the home."""
    links: Any = getattr(svc, "links", None)
    if links is None:
        return [home]
    linked = list(links.linked(home)) or [home]
    via = links.via(home)
    return sorted(linked, key=lambda a: address_kind(a) != via) if via else linked


def whatsapp_step(svc: Services, address: str, kind: str, lang: str, now_ms: int) -> Destination | None:
    """A WhatsApp address: free-form within its window; outside it, the template of ``kind`` (a template kind,
    :func:`service.whatsapp.template_kind`; ``""``: none) in ``lang`` if one is configured; else None (the next
    candidate)."""
    if window_open(svc.store.last_inbound_ms(address), now_ms):
        return Destination(address, WHATSAPP)
    sid = template_sid(svc.config, kind, lang) if kind else None
    if sid:
        return Destination(address, WHATSAPP, Template(sid, kind, lang))
    log.warning("whatsapp window closed and no template for %s/%s: the next linked channel", kind or "-", lang,
                extra={"player": logs.pseudonym(address), "channel": WHATSAPP, "code": "window_closed"})
    return None


def destination(svc: Services, home: str, kind: str, lang: str, now_ms: int) -> Destination:
    """Where a message of ``kind`` (a template kind, or ``""``) in ``lang`` to the player ``home`` goes now."""
    closed = False
    for address in candidates(svc, home):
        if address_kind(address) == WHATSAPP:
            found = whatsapp_step(svc, address, kind, lang, now_ms)
            if found is None:
                closed = closed or address == home
                continue
            return found
        return Destination(address, address_kind(address))
    return Destination(home, address_kind(home), closed=closed)

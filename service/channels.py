"""Where a message to a player goes: :func:`destination`, a few steps over the player's addresses.

The steps, in order (issue 24's shared contract): the player's addresses, their chosen channel first (linked
channels); :func:`drop_unreachable`, the addresses delivery receipts say cannot be reached; the WhatsApp window.
Whatever remains first is the destination; if nothing remains, the home address, as before any of this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .addresses import address_kind
from .context import Services


@dataclass(frozen=True)
class Destination:
    """An outbox entry's address, its channel, and the provider template it goes as (None: free text)."""

    address: str
    channel: str
    template: Any = None


def candidates(svc: Services, home: str) -> list[str]:
    """The player's addresses, the one they chose first (the home address alone until channels are linked)."""
    return [home]


def drop_unreachable(svc: Services, addresses: list[str]) -> list[str]:
    """The addresses delivery receipts do not say are unreachable (one round trip)."""
    return [a for a, code in zip(addresses, svc.reach.unreachable_many(addresses)) if not code]


def destination(svc: Services, home: str, kind: str, lang: str, now_ms: int) -> Destination:
    """Where a message of ``kind`` to the player ``home`` goes now."""
    kept = drop_unreachable(svc, candidates(svc, home))
    address = kept[0] if kept else home
    return Destination(address, address_kind(address))


def reachable(svc: Services, home: str) -> bool:
    """Whether any address of the player can be reached (receipts say nothing against it)."""
    return bool(drop_unreachable(svc, candidates(svc, home)))

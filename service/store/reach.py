"""Whether the service can reach an address: the provider's code that made it unreachable, kept per address.

Two life fields of the address's record (``{p:<address>}:player``, :func:`.keys.player_life`): ``unreach``, the code
(Twilio's error code such as ``30005``, or ``bounce``/``complained`` for an email), and ``unreach_ms``, when it was
marked. A delivery receipt that says the address cannot be reached marks it (:meth:`Reach.mark_unreachable`); any
message from the address clears it (:meth:`Reach.clear_unreachable`). The inbound handler reads the mark of the address
that wrote in the round trip that reads the message, with the home it acts for (:meth:`.links.Links.queue_sender`).
"""

from __future__ import annotations

from ..records import UNREACH
from .base import Client
from .codec import text
from .keys import player_life

CODE, SINCE = UNREACH, "unreach_ms"


class Reach:
    """Unreachable addresses (a store gateway, as :class:`.players.Players`)."""

    def __init__(self, client: Client) -> None:
        self.r = client

    def unreachable(self, address: str) -> str:
        """``""`` if the address can be reached as far as the receipts tell, else the provider code that made it so."""
        raw = self.r.hget(player_life(address), CODE)
        return text(raw) if raw else ""

    def unreachable_many(self, addresses: list[str]) -> list[str]:
        """:meth:`unreachable` of each address, in one round trip."""
        if len(addresses) == 1:
            return [self.unreachable(addresses[0])]
        pipe = self.r.pipeline(transaction=False)
        for address in addresses:
            pipe.hget(player_life(address), CODE)
        return [text(raw) if raw else "" for raw in pipe.execute()] if addresses else []

    def since(self, address: str) -> int | None:
        """When the address was marked unreachable (ms), or None."""
        raw = self.r.hget(player_life(address), SINCE)
        return int(text(raw)) if raw else None

    def mark_unreachable(self, address: str, code: str, now_ms: int) -> tuple[bool, int]:
        """Mark the address unreachable (the first code and time are kept while it stays so): (newly marked,
        since ms)."""
        key = player_life(address)
        pipe = self.r.pipeline(transaction=False)
        pipe.hsetnx(key, SINCE, now_ms)
        pipe.hsetnx(key, CODE, code or "unknown")
        pipe.hget(key, SINCE)
        fresh, _code, since = pipe.execute()
        return bool(fresh), int(text(since))

    def clear_unreachable(self, address: str) -> bool:
        """The address wrote to the service: it can be reached again. Whether it was marked."""
        return bool(self.r.hdel(player_life(address), CODE, SINCE))

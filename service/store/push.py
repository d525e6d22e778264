"""Web Push subscriptions in Redis: one hash per push address (``{p:push:<id>}:push``,
:func:`~service.store.keys.push_subscription`), written when a game page's "Notify me here" stores one and deleted
when the push service answers 404 or 410 (the address is unlinked from its player too: :mod:`.links`). The endpoint
is a bearer capability: it is kept here and nowhere else (never in a log, an outbox entry or a metric)."""

from __future__ import annotations

from .base import Client
from .codec import text
from .keys import push_subscription

FIELDS = ("endpoint", "p256dh", "auth", "home")


class PushSubscriptions:
    """The subscriptions of push addresses (see the module docstring)."""

    def __init__(self, client: Client) -> None:
        self.r = client

    def save(self, address: str, endpoint: str, p256dh: str, auth: str, home: str) -> None:
        """Keep (or replace) the subscription of ``address``, notifying ``home``."""
        self.r.hset(push_subscription(address), mapping={"endpoint": endpoint, "p256dh": p256dh, "auth": auth,
                                                         "home": home})

    def get(self, address: str) -> dict[str, str]:
        """The subscription of ``address`` as stored (empty: none, or dropped)."""
        raw = self.r.hmget(push_subscription(address), *FIELDS)
        return {k: text(v) for k, v in zip(FIELDS, raw) if v is not None}

    def drop(self, address: str) -> bool:
        """Forget the subscription of ``address``; True if there was one."""
        return bool(self.r.delete(push_subscription(address)))

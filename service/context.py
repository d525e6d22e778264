"""The service's shared parts for one app: config, Redis (one server or a Redis Cluster), the store, players,
the per-process game and seat caches, the dealer factory."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spades.dealer import Dealer

from .caches import GameCache, SeatCache
from .store import Client, Store, connect
from .store.links import Links
from .store.players import Players
from .store.push import PushSubscriptions
from .store.reach import Reach
from .store.talk import Talk

#: the service's settings as a function reads them (the Flask app's config or the worker's)
Config = Mapping[str, Any]
#: the dealer of a game at a version (``dealer(game_id, version)``): secure, or reproducible with a seed
DealerFactory = Callable[[str, int], Dealer]


@dataclass
class Services:
    """Everything a web request or a task needs; one per Flask app (``app.extensions['slowspades']``)."""

    config: dict[str, Any]
    redis: Client
    store: Store = field(init=False)
    players: Players = field(init=False)
    links: Links = field(init=False)  # linked channels and LINK codes (service.channels routes by them)
    reach: Reach = field(init=False)  # unreachable addresses (delivery receipts)
    talk: Talk = field(init=False)  # the talk across each game's table (SAY) and its rate counters
    push: PushSubscriptions = field(init=False)  # the game pages' Web Push subscriptions (service.webpush)
    games: GameCache = field(init=False)  # folded games of this process (service.games)
    seats: SeatCache = field(init=False)  # who sits in which game, as this process saw it

    def __post_init__(self) -> None:
        self.store = Store(self.redis, int(self.config.get("HANDLED_MESSAGE_TTL", 86400)),
                           int(self.config.get("REPLICA_WAIT_MS") or 0),
                           shared_clock=bool(self.config.get("SHARED_CLOCK") or self.config.get("SIMULATOR")))
        self.players = Players(self.redis)
        self.links = Links(self.redis)
        self.reach = Reach(self.redis)
        self.talk = Talk(self.redis)
        self.push = PushSubscriptions(self.redis)
        self.games = GameCache(self.store, int(self.config.get("GAME_CACHE_SIZE", 2000)))
        self.seats = SeatCache()

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Services":
        return cls(config, connect(config))

    def dealer(self, game_id: str, version: int) -> Dealer:
        """A secure dealer; with ``SLOWSPADES_DEALER_SEED`` a reproducible one (same game, version -> same cards)."""
        seed = self.config.get("DEALER_SEED") or ""
        if not seed:
            return Dealer()
        digest = hashlib.sha256(f"{seed}:{game_id}:{version}".encode()).digest()
        return Dealer(seed=int.from_bytes(digest[:8], "big"))

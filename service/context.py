"""The service's shared parts for one app: config, Redis (one server or a Redis Cluster), the store, players,
the per-process game and seat caches, the dealer factory."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spades.dealer import Dealer

from .caches import GameCache, SeatCache
from .store import Client, InviteLinks, Links, Players, PushSubscriptions, Reach, Store, Talk, connect

#: the service's settings as a function reads them (the Flask app's config or the worker's)
Config = Mapping[str, Any]
#: the dealer of a game at a version (``dealer(game_id, version)``): secure, or reproducible with a seed
DealerFactory = Callable[[str, int], Dealer]


def dealer_factory(config: Config) -> DealerFactory:
    """A secure dealer; with ``SLOWSPADES_DEALER_SEED`` a reproducible one (same game, version -> same cards)."""
    seed = config.get("DEALER_SEED") or ""
    if not seed:
        return lambda _game_id, _version: Dealer()

    def seeded(game_id: str, version: int) -> Dealer:
        digest = hashlib.sha256(f"{seed}:{game_id}:{version}".encode()).digest()
        return Dealer(seed=int.from_bytes(digest[:8], "big"))

    return seeded


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
    invite_links: InviteLinks = field(init=False)  # the invitation links (service.lifecycle.invite_links)
    push: PushSubscriptions = field(init=False)  # the game pages' Web Push subscriptions (service.webpush)
    games: GameCache = field(init=False)  # folded games of this process (service.games)
    seats: SeatCache = field(init=False)  # who sits in which game, as this process saw it
    # the tables of entry points with their dependencies bound (service.bootstrap): the inbound handlers
    # (service.inbound.Handlers) and the due work's steps (service.after.Steps)
    handlers: Mapping[str, Callable[..., Any]] = field(init=False, default_factory=dict)
    steps: Mapping[str, Callable[..., Any]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.store = Store(self.redis, int(self.config.get("HANDLED_MESSAGE_TTL", 86400)),
                           int(self.config.get("REPLICA_WAIT_MS") or 0),
                           shared_clock=bool(self.config.get("SHARED_CLOCK") or self.config.get("SIMULATOR")))
        self.players = Players(self.redis)
        self.links = Links(self.redis)
        self.reach = Reach(self.redis)
        self.talk = Talk(self.redis)
        self.push = PushSubscriptions(self.redis)
        self.invite_links = InviteLinks(self.redis)
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

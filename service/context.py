"""The types of two named dependencies every layer may take (the settings, the dealer factory) and the dealer
factory itself; the process's dependencies are built by :mod:`service.bootstrap`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from spades.dealer import Dealer

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


"""The process's dependencies, built once from its config, and handed to each entry point by name.

:func:`bootstrap` builds what a process holds (the Flask app and the worker keep one in
``app.extensions['slowspades']``, the CLI one per command): the Redis client, the :class:`~service.store.Store`
and its gateways (players, links, reach, talk, push), this process's game and seat caches, the dealer factory,
the settings, and the tables of entry points bound to them (the inbound handlers, the due work's steps).

:func:`inject` binds the parameters of a function that name a dependency (its signature: ``store``, ``config``,
``players``, ...) and leaves the others to the caller; only entry points are called so (a Celery task, a web
view, a handler of :data:`service.inbound.TABLE`, a step of :data:`service.after.STEPS`, a CLI command). A
function below an entry point takes the named dependencies it uses as parameters from its caller; nothing passes
the :class:`Dependencies` down.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from spades.dealer import Dealer

from .context import Config, DealerFactory, Services
from .store import Client, connect

T = TypeVar("T")


def dealer_factory(config: Config) -> DealerFactory:
    """A secure dealer; with ``SLOWSPADES_DEALER_SEED`` a reproducible one (same game, version -> same cards)."""
    seed = config.get("DEALER_SEED") or ""
    if not seed:
        return lambda _game_id, _version: Dealer()

    def seeded(game_id: str, version: int) -> Dealer:
        digest = hashlib.sha256(f"{seed}:{game_id}:{version}".encode()).digest()
        return Dealer(seed=int.from_bytes(digest[:8], "big"))

    return seeded


def inject(fn: Callable[..., T], dependencies: dict[str, Any]) -> Callable[..., T]:
    """``fn`` with the parameters its signature names from ``dependencies`` bound; the caller's positional
    arguments go to the others, in order (as cosmicpython's ``inject_dependencies``, by name)."""
    params = inspect.signature(fn).parameters
    bound = {name: dependencies[name] for name in params if name in dependencies}
    rest = [p.name for p in params.values() if p.name not in bound
            and p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]

    def call(*args: Any, **kwargs: Any) -> T:
        if len(args) > len(rest):
            raise TypeError(f"{fn.__qualname__}: {len(args)} positional arguments for {rest}")
        return fn(**bound, **dict(zip(rest, args)), **kwargs)

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call


@dataclass
class Dependencies(Services):
    """What one process holds, built once (:func:`bootstrap`); the named dependencies are its attributes."""

    dealer_of: DealerFactory = field(init=False)
    _bound: dict[Callable[..., Any], Callable[..., Any]] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.dealer_of = dealer_factory(self.config)

    def named(self) -> dict[str, Any]:
        """The dependencies by the name a signature gives them."""
        return {"config": self.config, "store": self.store, "players": self.players, "links": self.links,
                "reach": self.reach, "talk": self.talk, "push": self.push, "games": self.games,
                "seats": self.seats, "dealer": self.dealer_of}

    def inject(self, fn: Callable[..., T]) -> Callable[..., T]:
        """An entry point with its dependencies bound (:func:`inject`), made once per function."""
        bound = self._bound.get(fn)
        if bound is None:
            bound = self._bound[fn] = inject(fn, self.named())
        return bound


def bootstrap(config: Config, redis: Client | None = None) -> Dependencies:
    """Build the process's dependencies from ``config`` (its Redis from the config unless given)."""
    return Dependencies(dict(config) if not isinstance(config, dict) else config,
                        redis if redis is not None else connect(config))

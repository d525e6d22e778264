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

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from . import after, inbound
from .context import Config, DealerFactory, Services, dealer_factory
from .store import Client, connect

T = TypeVar("T")


def inject(fn: Callable[..., T], dependencies: dict[str, Any]) -> Callable[..., T]:
    """``fn`` with the dependencies its signature names bound, as cosmicpython's ``inject_dependencies`` (by
    name); the caller's arguments go to the parameters after them. A function's dependencies are its first
    parameters (``store``, ``config``, ... then what the call is about): a :func:`functools.partial`, so the bound
    call adds no frame between the caller and ``fn``."""
    params = list(inspect.signature(fn).parameters.values())
    lead = []
    for param in params:
        if param.name not in dependencies or param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            break
        lead.append(dependencies[param.name])
    later = [param.name for param in params[len(lead):] if param.name in dependencies]
    if later:
        raise TypeError(f"{fn.__qualname__}: its dependencies come first ({', '.join(later)} do not)")
    return functools.partial(fn, *lead)


@dataclass
class Dependencies(Services):
    """What one process holds, built once (:func:`bootstrap`); the named dependencies are its attributes."""

    dealer_of: DealerFactory = field(init=False)
    _bound: dict[Callable[..., Any], Callable[..., Any]] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.dealer_of = dealer_factory(self.config)
        named = self.named()
        self.handlers = {kind: inject(fn, named) for kind, fn in inbound.TABLE.items()}
        self.steps = after.bound_steps(lambda fn: inject(fn, named))

    def named(self) -> dict[str, Any]:
        """The dependencies by the name a signature gives them."""
        return {"config": self.config, "store": self.store, "players": self.players, "links": self.links,
                "reach": self.reach, "talk": self.talk, "push": self.push, "invite_links": self.invite_links,
                "games": self.games,
                "seats": self.seats, "dealer": self.dealer_of, "handlers": self.handlers, "steps": self.steps}

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

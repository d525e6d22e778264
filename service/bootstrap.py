"""The process's dependencies, built once from its config, and handed to each entry point by name.

:func:`bootstrap` builds what a process holds (the Flask app and the worker keep one in
``app.extensions['slowspades']``, the CLI one per command): the Redis client, the :class:`~service.store.Store`
and its gateways (players, links, reach, talk, push, invite_links, gauges, forgetting, snapshots), this process's
game and seat caches, the dealer factory, the settings, and the tables of entry points bound to them (the inbound
handlers, the due work's steps).

:func:`inject` binds the parameters of a function that name a dependency (its signature: ``store``, ``config``,
``players``, ...: :data:`NAMES`) and leaves the others to the caller, as cosmicpython's bootstrap does. The
entry points are called so: a handler of :data:`service.inbound.TABLE`, a step of :data:`service.after.STEPS`,
the Celery tasks' bodies (``service.after``'s entry points, ``service.delivery.deliver``), the ``/metrics``
collector. The web views and the CLI's commands hold the :class:`Dependencies` and hand each function they call
the named dependencies it takes. Below the entry points, a function takes the dependencies it uses as parameters
from its caller; nothing is handed the :class:`Dependencies` (``bench/trace_move.py`` counts such parameters: 0).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from . import after, inbound
from .after import Steps
from .caches import GameCache, SeatCache
from .context import Config, DealerFactory, dealer_factory
from .inbound import Handlers
from .store import Client, InviteLinks, Links, Players, PushSubscriptions, Reach, Store, Talk, connect
from .store.backup import Snapshots
from .store.forget import Forgetting
from .store.gauges import Gauges

T = TypeVar("T")
#: the names a function's parameters give the dependencies (the same name: the same dependency, everywhere)
NAMES = ("config", "store", "players", "links", "reach", "talk", "push", "invite_links", "gauges", "forgetting",
         "snapshots", "games", "seats", "dealer", "handlers", "steps")


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
class Dependencies:
    """What one process holds, built once (:func:`bootstrap`); the named dependencies are its attributes."""

    config: Config
    redis: Client  # one server or a Redis Cluster; only the store's gateways below talk to it
    store: Store = field(init=False)
    players: Players = field(init=False)
    links: Links = field(init=False)  # linked channels and LINK codes (service.channels routes by them)
    reach: Reach = field(init=False)  # unreachable addresses (delivery receipts)
    talk: Talk = field(init=False)  # the talk across each game's table (SAY) and its rate counters
    push: PushSubscriptions = field(init=False)  # the game pages' Web Push subscriptions (service.webpush)
    invite_links: InviteLinks = field(init=False)  # the invitation links (service.lifecycle.invite_links)
    gauges: Gauges = field(init=False)  # what /metrics and the operator read of the store as a whole
    forgetting: Forgetting = field(init=False)  # a player's keys, exported or erased (service.forget)
    snapshots: Snapshots = field(init=False)  # restores of a backup (the operator's slowspades restore)
    games: GameCache = field(init=False)  # folded games of this process (service.games)
    seats: SeatCache = field(init=False)  # who sits in which game, as this process saw it
    dealer: DealerFactory = field(init=False)  # a game's dealer at a version (service.context.dealer_factory)
    handlers: Handlers = field(init=False)  # service.inbound.TABLE, each handler's dependencies bound
    steps: Steps = field(init=False)  # service.after.STEPS, bound likewise
    _bound: dict[Callable[..., Any], Callable[..., Any]] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        config, r = self.config, self.redis
        self.store = Store(r, int(config.get("HANDLED_MESSAGE_TTL", 86400)), int(config.get("REPLICA_WAIT_MS") or 0),
                           shared_clock=bool(config.get("SHARED_CLOCK") or config.get("SIMULATOR")))
        self.players, self.links, self.reach, self.talk = Players(r), Links(r), Reach(r), Talk(r)
        self.push, self.invite_links, self.gauges, self.forgetting = (PushSubscriptions(r), InviteLinks(r),
                                                                      Gauges(r), Forgetting(r))
        self.snapshots = Snapshots(r)
        self.games = GameCache(self.store, int(config.get("GAME_CACHE_SIZE", 2000)))
        self.seats = SeatCache()
        self.dealer = dealer_factory(config)
        # the tables are bound to everything but themselves (an entry naming ``handlers`` or ``steps`` fails when
        # called, rather than being handed a table not yet built)
        gateways = {name: getattr(self, name) for name in NAMES if name not in ("handlers", "steps")}
        self.handlers = {kind: inject(fn, gateways) for kind, fn in inbound.TABLE.items()}
        self.steps = after.bound_steps(lambda fn: inject(fn, gateways))

    def named(self) -> dict[str, Any]:
        """The dependencies by the name a signature gives them."""
        return {name: getattr(self, name) for name in NAMES}

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

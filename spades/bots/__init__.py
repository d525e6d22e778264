"""Strategies: computer players that are given only a :class:`spades.game.PlayerView`.

Every strategy has ``choose(view) -> Command`` and is only ever asked when the view's seat
may move (``view.my_turn``; in a simultaneous draw, RULES D11, both seats may). :func:`get` builds one by name::

    bot = spades.bots.get("basic", seed=1)
    command = bot.choose(view(game, seat))

* ``random``: uniform over the legal moves, except that it bids like ``basic`` (and
  never declares double nil), so that its games end.
* ``basic``: keeps cards that win tricks, bids by counting likely tricks, plays to make
  its bid and avoid bags, and bids nil with a weak hand. It never bids double nil.
* ``pimc``: the strong player (:mod:`spades.bots.montecarlo`): samples the opponent's hand
  from what its view shows, plays each sample out with all cards seen (the last tricks searched
  exactly), and bids and plays for the best expected score, aware of bags and the race to 500.
* ``pimc-2026-12``: ``pimc`` as it was in December 2026 (:mod:`spades.bots.pimc_2026_12`), frozen
  so that every later change is measured against the same opponent.
* ``easy``: a beginner (:mod:`spades.bots.easy`): loose bids, no card counting, wins with its high
  cards and trumps whenever it can.

Levels a person can choose (:data:`LEVELS`, weakest first) are names too: ``easy``, ``normal``
and ``hard``; :func:`bot_for_level` builds the player of a level::

    bot = spades.bots.bot_for_level("hard", seed=None)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Protocol

from ..commands import Command
from ..game import PlayerView
from .basic import BasicStrategy
from .easy import EasyStrategy
from .montecarlo import HARD, MonteCarloStrategy, Settings
from .pimc_2026_12 import FrozenPimcStrategy
from .randombot import RandomStrategy


class Strategy(Protocol):
    """A computer player: given what one seat may know, the command it gives."""

    name: str

    def choose(self, view: PlayerView) -> Command:  # pragma: no cover - protocol
        ...


_REGISTRY: dict[str, Callable[[int | None], Strategy]] = {
    "random": lambda seed: RandomStrategy(seed=seed),
    "easy": lambda seed: EasyStrategy(seed=seed),
    "basic": lambda seed: BasicStrategy(seed=seed),
    "pimc": lambda seed: MonteCarloStrategy(seed=seed),
    "pimc-2026-12": lambda seed: FrozenPimcStrategy(seed=seed),
}

#: The levels a person can choose, weakest first, and the player each one is (measured in
#: ``docs/bots.md``: each beats the one below it in at least 70% of duplicate games).
LEVELS = ("easy", "normal", "hard")
_REGISTRY["normal"] = lambda seed: BasicStrategy(seed=seed)
_REGISTRY["hard"] = lambda seed: MonteCarloStrategy(seed=seed, settings=HARD, name="hard")
#: The players whose settings (:class:`spades.bots.montecarlo.Settings`) a trial may change.
_TUNABLE = {"pimc": Settings(), "hard": HARD}


def names() -> list[str]:
    """The names :func:`get` knows."""
    return sorted(_REGISTRY)


def get(name: str, seed: int | None = None, tune: Mapping[str, Any] | None = None) -> Strategy:
    """A new strategy called ``name`` (see :func:`names`); ``seed`` makes its choices reproducible.

    ``tune``: for ``pimc`` and ``hard``, settings to change (field names of
    :class:`spades.bots.montecarlo.Settings`), for trials in the arena (``--tune``).
    """
    if tune:
        if name not in _TUNABLE:
            raise ValueError(f"only {', '.join(sorted(_TUNABLE))} can be tuned, not {name!r}")
        settings = replace(_TUNABLE[name], **{k: _tuple(v) for k, v in tune.items()})
        return MonteCarloStrategy(seed=seed, settings=settings, name=name)
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}: choose from {', '.join(names())}") from None
    return factory(seed)


def _tuple(value: Any) -> Any:
    """JSON lists as the tuples :class:`Settings` holds (``spread`` is a tuple of pairs)."""
    return tuple(_tuple(v) for v in value) if isinstance(value, list) else value


def bot_for_level(level: str, seed: int | None = None) -> Strategy:
    """The computer player of ``level`` (one of :data:`LEVELS`: ``easy``, ``normal``, ``hard``).

    ``seed`` makes its choices reproducible; ``None`` (a real game) draws one from the system.
    Raises ``ValueError`` for any other name.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose from {', '.join(LEVELS)}")
    return get(level, seed)


__all__ = ["LEVELS", "Strategy", "BasicStrategy", "EasyStrategy", "FrozenPimcStrategy", "MonteCarloStrategy", "RandomStrategy", "bot_for_level", "get", "names"]

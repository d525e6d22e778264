"""The computer opponent (``NEW BOT``) and ``AUTO`` moves: the ``basic`` strategy of ``spades.bots``.

The computer plays ``spades.bots.get("basic")``, the engine's strategy, the same one the arena and
``bench/segments.py`` use.
A bot move is keyed by the game version it was decided for, so the Celery task and the
beat's backstop may both try it: the move is made once, and not at all once stale.
"""

from __future__ import annotations

from typing import Callable

from spades import bots
from spades.commands import Command
from spades.game import Game, PlayerView, view

from ..context import Services
from ..games.moves import service_move
from ..games.result import Result

STRATEGY = "basic"


def strategy(name: str = STRATEGY) -> Callable[[PlayerView], Command]:
    """``choose(view) -> Command`` of the named strategy of ``spades.bots``."""
    return bots.get(name).choose


def choose(game: Game, seat: int) -> Command | None:
    """The strategy's move for ``seat``, or None if it is not their turn."""
    if game.phase == "over" or not game.may_move(seat):
        return None
    return strategy()(view(game, seat))


def move(svc: Services, game_id: str, seat: int, version: int, message_id: str | None = None) -> Result:
    """Make the strategy's move for ``seat`` if the game is still at ``version`` with them to move."""
    return service_move(svc, game_id, message_id or f"bot:{game_id}:{version}",
                        lambda g: choose(g, seat), expected_version=version)

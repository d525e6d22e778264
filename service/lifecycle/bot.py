"""The computer opponent (``NEW BOT EASY``, ``NEW BOT``, ``NEW BOT HARD``) and ``AUTO`` moves, played by ``spades.bots``.

The computer plays at the level chosen (:data:`spades.bots.LEVELS`: ``easy``, ``normal``, ``hard``), which its
seat names (``bot:easy``, ``bot:normal``, ``bot:hard``; :mod:`service.games.levels`); a seat from before the
levels names its strategy (``bot:pimc``, ``bot:basic``) and plays as it did. ``AUTO ON`` plays the strong
strategy (``pimc``, :mod:`spades.bots.montecarlo`: its decisions take a bounded time, so a move of the
computer's holds a worker no longer than any move).
A bot move is keyed by the game version it was decided for, so the Celery task and the
beat's backstop may both try it: the move is made once, and not at all once stale.
"""

from __future__ import annotations

from spades import bots
from spades.commands import Command
from spades.game import Game

from ..addresses import BOT_PREFIX, is_bot
from ..caches import GameCache, SeatCache
from ..context import Config, DealerFactory
from ..games.moves import Strategy, service_move
from ..games.result import Result
from ..store import Links, Players, Reach, Store

STRATEGY = "pimc"  # AUTO ON for an absent player (and a computer's seat naming no known strategy)


def strategy_of(address: str) -> str:
    """The strategy that plays for ``address``: the computer's seat names its own; a person's AUTO moves
    (and a seat naming no known strategy) are the strong one's."""
    name = address[len(BOT_PREFIX):] if is_bot(address) else STRATEGY
    return name if name in bots.names() else STRATEGY


def choose(game: Game, seat: int, name: str = STRATEGY) -> Command | None:
    """Strategy ``name``'s move for ``seat``, or None if it may not move."""
    return Strategy(seat, name)(game)


def move(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
         seats: SeatCache, dealer: DealerFactory, game_id: str, seat: int, version: int,
         message_id: str | None = None) -> Result:
    """Make the move of the strategy playing ``seat`` (:func:`strategy_of` its address) if the game is still
    at ``version`` with them to move."""
    known = seats.get(game_id)
    address = known[seat] if known else store.meta(game_id).get(f"seat{seat}", "")
    name = strategy_of(address)
    return service_move(config, store, players, links, reach, games, seats, dealer,
                        game_id, message_id or f"bot:{game_id}:{version}",
                        Strategy(seat, name), expected_version=version)

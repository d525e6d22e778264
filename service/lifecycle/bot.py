"""The computer opponent (``NEW BOT``) and ``AUTO`` moves: the ``basic`` strategy of ``spades.bots``.

The computer plays ``spades.bots.get("basic")`` (the engine's strategy, the same one the arena and
``bench/segments.py`` use); ``_fallback`` (legal moves only) is there only for a strategy name
``spades.bots`` does not know.
A bot move is keyed by the game version it was decided for, so the Celery task and the
beat's backstop may both try it: the move is made once, and not at all once stale.
"""

from __future__ import annotations

from typing import Any, Callable

from spades.cards import Suit
from spades.commands import Bid, Command, DeclineDoubleNil, Discard, Exchange, Keep
from spades.game import Game, PlayerView, view

from ..context import Services
from . import gateway

STRATEGY = "basic"


def _fallback(v: PlayerView) -> Command:
    legal = list(v.legal)
    first = legal[0]
    if any(isinstance(c, DeclineDoubleNil) for c in legal):
        return DeclineDoubleNil(v.seat)
    if isinstance(first, (Keep, Discard)):
        card = v.offered
        good = card is not None and (card.rank >= 11 or card.suit is Suit.SPADES)
        return Keep(v.seat) if good else Discard(v.seat)
    if isinstance(first, Exchange):
        return Exchange(v.seat, ())
    if isinstance(first, Bid):
        strong = sum(1 for c in v.hand if c.rank >= 13 or (c.suit is Suit.SPADES and c.rank >= 11))
        return Bid(v.seat, max(1, min(13, strong)))
    return legal[-1]


def strategy(name: str = STRATEGY) -> Callable[[PlayerView], Command]:
    """``choose(view) -> Command`` of the named strategy (``spades.bots`` if present)."""
    try:
        from spades import bots  # type: ignore[attr-defined]

        chosen: Any = bots.get(name)
        return chosen.choose  # type: ignore[no-any-return]
    except (ImportError, AttributeError, KeyError):
        return _fallback


def choose(game: Game, seat: int) -> Command | None:
    """The strategy's move for ``seat``, or None if it is not their turn."""
    if game.phase == "over" or game.to_move != seat:
        return None
    return strategy()(view(game, seat))


def move(svc: Services, game_id: str, seat: int, version: int, message_id: str | None = None) -> gateway.Outcome:
    """Make the strategy's move for ``seat`` if the game is still at ``version`` with them to move."""
    return gateway.apply_command(svc, game_id, message_id or f"bot:{game_id}:{version}",
                                 lambda g: choose(g, seat), expected_version=version)

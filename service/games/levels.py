"""The computer's levels (``NEW BOT EASY``, ``NEW BOT``, ``NEW BOT HARD``) as its seat address names them.

A game against the computer holds ``bot:<level>`` in the computer's seat (``bot:easy``, ``bot:normal``,
``bot:hard``; :data:`spades.bots.LEVELS`, weakest first). Games begun before the levels hold the strategy's
own name: ``bot:basic`` (then ``NEW BOT EASY``) plays as ``normal`` does, ``bot:pimc`` (then ``NEW BOT``) is
the strong player, nearest to ``hard``; :func:`level_of` reads them so (a ``REMATCH`` of such a game).
"""

from __future__ import annotations

from spades.bots import LEVELS

from ..addresses import BOT_PREFIX, is_bot

DEFAULT = "normal"  # NEW BOT
#: Strategies a computer's seat named before the levels, and the level each is nearest to.
_OLDER = {"basic": "normal", "pimc": "hard"}


def address_for(level: str) -> str:
    """The computer's seat address at ``level`` (one of :data:`spades.bots.LEVELS`)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose from {', '.join(LEVELS)}")
    return BOT_PREFIX + level


def level_of(address: str) -> str | None:
    """The level of the computer at ``address`` (:data:`DEFAULT` for a seat naming none); None for a person."""
    if not is_bot(address):
        return None
    name = address[len(BOT_PREFIX):]
    name = _OLDER.get(name, name)
    return name if name in LEVELS else DEFAULT


def step(level: str, by: int) -> str | None:
    """The level ``by`` steps above ``level`` (below, when negative); None past the easiest or the hardest."""
    i = LEVELS.index(level) + by
    return LEVELS[i] if 0 <= i < len(LEVELS) else None


def drawer(address: str, before: str = "basic") -> str:
    """The strategy that makes the draw decisions of the computer at ``address`` (all at once, RULES D11): its
    level's own player; ``before`` for a seat from before the levels (as those games have always drawn)."""
    name = address[len(BOT_PREFIX):]
    return name if name in LEVELS else before

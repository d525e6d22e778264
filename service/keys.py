"""Redis key names besides the store's own (``service.store.owner_keys``): the lifecycle's due work and
beat lock, a game's life hash, a player's life hash and game numbers. Every per-game key shares the
game's hash tag, every per-player key the player's."""

from __future__ import annotations

DUE = "ss:due"
BEAT_LOCK = "ss:beat:lock"
BOT_PREFIX = "bot:"


def game_life(game_id: str) -> str:
    """Hash: ``v``/``seat``/``since`` of the current turn, ``pause:<id>`` = ``start-end`` ms intervals."""
    return "{g:" + game_id + "}:life"


def player_life(address: str) -> str:
    """Hash: ``tz``, ``remind`` (0/1), ``auto`` (0/1), ``stopped`` (0/1), ``last`` (last prompted game id)."""
    return "{p:" + address + "}:life"


def player_nums(address: str) -> str:
    """Hash: ``<n>`` -> game id and ``g:<game id>`` -> n (the player's game numbers)."""
    return "{p:" + address + "}:nums"


def is_bot(address: str) -> bool:
    return address.startswith(BOT_PREFIX)

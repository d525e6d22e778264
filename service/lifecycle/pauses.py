"""The pause clock: the pauses a game is in or was in (``PAUSE n``, recorded in the game's life hash as
``pause:<message id>`` -> ``<start ms>-<end ms>``), the time a turn spent paused, and so when it times out.
``PAUSE n`` itself, which restarts the turn's reminders, is :func:`service.lifecycle.reminders.pause`."""

from __future__ import annotations

from ..context import Config
from ..records import GameMeta
from ..store import Store
from . import settings

DAY_MS = 86_400_000


def pauses(store: Store, game_id: str, life: GameMeta | None = None) -> list[tuple[int, int]]:
    """The game's pauses as (start ms, end ms), oldest first (``life``: its life hash, if read already)."""
    if life is None:
        life = store.game_life(game_id)
    out = []
    for k, v in life.items():
        if k.startswith("pause:"):
            a, _, b = v.partition("-")
            out.append((int(a), int(b)))
    return sorted(out)


def paused_ms(store: Store, game_id: str, since_ms: int, now_ms: int, life: GameMeta | None = None) -> int:
    """Milliseconds of ``[since_ms, now_ms)`` during which the game was paused (overlaps counted once)."""
    total, cursor = 0, since_ms
    for a, b in pauses(store, game_id, life):
        a, b = max(a, cursor), min(b, now_ms)
        if b > a:
            total += b - a
            cursor = b
    return total


def deadline_ms(config: Config, store: Store, game_id: str, since_ms: int, now_ms: int,
                life: GameMeta | None = None) -> int:
    """When a turn that began at ``since_ms`` times out, as far as the pauses up to ``now_ms`` tell."""
    limit = int(float(settings.get(config, "TIMEOUT_DAYS")) * DAY_MS)
    return since_ms + limit + paused_ms(store, game_id, since_ms, now_ms, life)


def paused_until(store: Store, game_id: str, now_ms: int) -> int | None:
    """The end of the pause the game is in at ``now_ms``, or None."""
    ends = [b for a, b in pauses(store, game_id) if a <= now_ms < b]
    return max(ends) if ends else None

"""A game's changes that are not moves: its invitation written, declined, expired; appended as a move is, with
the expected version (0: a game not yet started), so an invitation answered twice changes it once."""

from __future__ import annotations

from typing import Any

from ..store import Store, game_owner
from .result import Outcome, Result


def change(store: Store, game_id: str, message_id: str, outcome: Outcome, entries: list[dict[str, Any] | None],
           meta: dict[str, str], expected_version: int = 0) -> Result:
    """Write the game's new ``meta`` fields (its status) and ``entries`` (those not None), once for ``message_id``;
    ``outcome`` if it was written, else why not (a duplicate, a conflict)."""
    res = store.append(game_owner(game_id), expected_version, [], message_id=message_id,
                       outbox=[e for e in entries if e], meta=meta)
    return Result(res.outbox_ids, outcome if res.ok else Outcome(res.status), game_id)

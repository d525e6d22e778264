"""A new game's first events and messages, appended once (the invitation accepted, or a game against the computer)."""

from __future__ import annotations

import json

from spades import snapshot
from spades.events import HouseRules, to_dict
from spades.game import fold, new_game

from ..context import Services
from ..store import game_owner
from .result import Outcome, Result
from .turns import turn_messages


def rules_of(meta: dict[str, str]) -> HouseRules:
    """The house rules a game was created with."""
    if meta.get("rules"):
        return HouseRules.from_dict(json.loads(meta["rules"]))
    return HouseRules(target=int(meta.get("target", 500)))


def start(svc: Services, message_id: str, gid: str, meta: dict[str, str], updates: dict[str, str]) -> Result:
    """Deal the game's first hand and tell both players (``meta``: the game's meta as read; ``updates``: the
    fields to write with it). ``Result.game`` is the game started, for the lifecycle to schedule its turn."""
    events = new_game(gid, rules_of(meta), svc.dealer(gid, 0))
    game = fold(events)
    updates = dict(updates, status="active", started=str(svc.store.clock.now_ms()))
    events, outbox = turn_messages(svc, gid, meta, game, events, updates, everyone=True)
    res = svc.store.append(game_owner(gid), 0, [to_dict(e) for e in events], message_id=message_id,
                           outbox=outbox, meta=updates, snapshot=snapshot.dump(game))
    if not res.ok:
        return Result(res.outbox_ids, Outcome(res.status), gid)
    svc.games.put_new(gid, game, res.last_stream_id)
    return Result(res.outbox_ids, Outcome.STARTED, gid, game=game)

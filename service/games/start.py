"""A new game's first events and messages, appended once (the invitation accepted, or a game against the computer)."""

from __future__ import annotations

import json

from spades import snapshot
from spades.events import HouseRules, to_dict
from spades.game import fold, new_game

from ..caches import GameCache
from ..context import Config, DealerFactory
from ..records import GameMeta
from ..store import Links, Players, Reach, Store, game_owner
from .compose_read import compose_new
from .result import Outcome, Result


def rules_of(meta: GameMeta) -> HouseRules:
    """The house rules a game was created with."""
    if meta.get("rules"):
        return HouseRules.from_dict(json.loads(meta["rules"]))
    return HouseRules(target=int(meta.get("target", 500)))


def start(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          dealer: DealerFactory, message_id: str, gid: str, meta: GameMeta, updates: dict[str, str]) -> Result:
    """Deal the game's first hand and tell both players (``meta``: the game's meta as read; ``updates``: the
    fields to write with it). ``Result.game`` is the game started, for the lifecycle to schedule its turn."""
    events = new_game(gid, rules_of(meta), dealer(gid, 0))
    game = fold(events)
    updates = dict(updates, status="active", started=str(store.clock.now_ms()))
    events, outbox = compose_new(config, store, players, reach, dealer, gid, meta, game, events, updates)
    res = store.append(game_owner(gid), 0, [to_dict(e) for e in events], message_id=message_id,
                       outbox=outbox, meta=updates, snapshot=snapshot.dump(game))
    if not res.ok:
        return Result(res.outbox_ids, Outcome(res.status), gid)
    games.keep_new(gid, game, res.last_stream_id)
    return Result(res.outbox_ids, Outcome.STARTED, gid, game=game)

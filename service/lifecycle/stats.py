"""``STATS`` (issue 46): the player's record in one message (games finished and won, bids made, nils made) with the
head-to-head record against the opponent of their last game (:mod:`service.games.record`)."""

from __future__ import annotations

from ..context import Config
from ..games import outbox
from ..games.players import name_of
from ..games.record import head_to_head, record_of
from ..games.result import Outcome, Result
from ..games.seats import opponent_of, seat_of
from ..store import Links, Players, Reach, Store
from . import routing
from .commands import Message


def stats(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    record = record_of(store, players, m.sender)
    target = m.token_game or routing.resolve(store, players, m.sender, m.said.game, statuses=("active", "over")).game_id
    h2h, opp = None, ""
    if target is not None:
        meta = store.meta(target)
        seat = seat_of(meta, m.sender)
        if seat is not None:
            opponent = opponent_of(meta, seat)
            h2h, opp = head_to_head(store, players, m.sender, opponent, record), name_of(players, opponent)
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "stats",
                       Outcome.STATS, games=record.games, wins=record.wins,
                       bids=record.bids, bids_made=record.bids_made, nils=record.nils, nils_made=record.nils_made,
                       h2h=h2h, opp=opp)
    return out

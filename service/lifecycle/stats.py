"""``STATS`` (issue 46): the player's record in one message (games finished and won, bids made, nils made) with the
head-to-head record against the opponent of their last game (:mod:`service.games.record`)."""

from __future__ import annotations

from ..context import Services
from ..games import outbox
from ..games.players import name_of
from ..games.record import head_to_head, record_of
from ..games.result import Outcome, Result
from ..games.seats import opponent_of, seat_of
from . import routing
from .commands import Message


def stats(svc: Services, m: Message) -> Result:
    record = record_of(svc.store, svc.players, m.sender)
    target = m.token_game or routing.resolve(svc.store, svc.players, m.sender, m.said.game,
                                             statuses=("active", "over")).game_id
    h2h, opp = None, ""
    if target is not None:
        meta = svc.store.meta(target)
        seat = seat_of(meta, m.sender)
        if seat is not None:
            opponent = opponent_of(meta, seat)
            h2h, opp = head_to_head(svc.store, svc.players, m.sender, opponent, record), name_of(svc.players, opponent)
    out = outbox.reply(svc.config, svc.store, svc.players, svc.links, svc.reach, m.sender, m.message_id, "stats",
                       Outcome.STATS, games=record.games, wins=record.wins,
                       bids=record.bids, bids_made=record.bids_made, nils=record.nils, nils_made=record.nils_made,
                       h2h=h2h, opp=opp)
    return out

"""A prompt by push that is not seen goes by the player's other channel (issue 43).

A push may never be seen (a browser closed for days, notifications muted), and the push service cannot tell. So each
game message the push service took (:class:`service.webpush.PushSender`) schedules a due item
``p|<game>|<seat>|<version>`` ``PUSH_FALLBACK_HOURS`` later (one it answered 404 or 410 for: at once). When it falls
due (:func:`on_due`, from the beat's :func:`service.after.act`), if the game is where the push left it (the
same version: nobody moved), the seat still owes a move and its page was not opened since (``shown<seat>``, the
version the page last showed, is older), the question is asked again by the player's first channel that is not
push (:func:`service.channels.destination` ``without`` push: SMS, WhatsApp, email or Telegram, as routing picks), once
(its message id names the item). A player with no other channel that takes messages: the operator's log says so
(``push fallback: no other channel``, the player as their pseudonym), and nothing is sent.
"""

from __future__ import annotations

import logging

from spades.game import view

from .. import conversation_port as port
from .. import logs, webpush
from ..addresses import PUSH
from ..caches import GameCache
from ..channels import destination
from ..context import Config
from ..games.outbox import notify_game
from ..games.players import info_of, players_info, resolve_labels
from ..games.seats import opponent_of, seats
from ..store import Links, Players, Reach, Store
from ..store.due import Item

log = logging.getLogger(__name__)

#: the due item's kind
KIND = webpush.FALLBACK


def on_due(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache, item: Item,
           now_ms: int) -> tuple[int | None, list[str]]:
    """The fallback item falls due: ``(None, outbox ids)`` (see the module docstring)."""
    game_id, seat = item.game_id, item.seat
    meta = store.meta(game_id)
    address = meta.seats[seat]
    if meta.status != "active" or not address or int(meta.of_seat("shown", seat) or 0) >= item.version:
        return None, []  # over, or the page was opened since the push
    game = games.load(game_id)
    if game.version != item.version or not game.may_move(seat):
        return None, []  # somebody moved since: that move's messages told them
    infos = players_info(config, store, seats(meta))
    me, opp = info_of(infos, address, config), info_of(infos, opponent_of(meta, seat), config)
    if not me.may_send:
        return None, []
    to = destination(config, store, links, reach, address, "reminder", me.lang, now_ms, life=me.life, without=PUSH)
    if to.channel == PUSH or links.route(address).is_off(to.address) or to.held:
        log.warning("push fallback: no other channel", extra={"player": logs.pseudonym(address), "channel": PUSH,
                                                               "code": "no_fallback"})
        return None, []
    resolve_labels(store, [me], game_id)
    rendered = port.resend(view(game, seat), me.lang, to.channel, opp.name, me.labels[game_id])
    out = notify_game(config, store, players, links, reach, game_id, f"push-fallback:{game_id}:{seat}:{item.version}",
                      [(seat, "update", {"rendered": rendered, "to": to})], expected_version=game.version)
    return None, out.outbox_ids if out.outcome in ("ok", "duplicate") else []

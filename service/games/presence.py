"""The one rule of who is on their game page (issue 23): while a player has the page of a game open, or moved
from it in the last ``PAGE_QUIET_MINUTES``, the service sends them no SMS or email about that game.

* The page marks its seat: each poll while it is open (:func:`mark_open`: for a few polls' time), each move
  from it (:func:`mark_moved`: for ``PAGE_QUIET_MINUTES``). Each mark also puts a ``w`` due item at the time
  the mark ends (:func:`back_from_page` acts on it).
* :func:`quiet_seats` is the rule itself. :func:`service.games.apply.apply` reads the marks with the move
  (no extra round trip) and :func:`service.games.turns.turn_messages` writes nothing for a quiet seat: its
  cursor ``seen<seat>`` stays, so what happened meanwhile waits for its next message. Reminders wait for the
  end of the mark (:func:`quiet`).
* Once the player left (the mark ended), :func:`back_from_page` sends the prompt they owe by their channel, with
  the news since their cursor or since what the page last showed them (``shown<seat>``), whichever is later; if
  they owe nothing, the next prompt tells the news as before.
* A move the player sends by SMS, WhatsApp or email ends their mark (:func:`service.games.apply.apply`): a glance
  at the page does not hold back the answer to a move made from the phone.
"""

from __future__ import annotations

from typing import Mapping

from spades.events import redact
from spades.game import view

from .. import conversation_port as port
from ..caches import GameCache
from ..channels import destination
from ..context import Config
from ..store import Links, Players, Reach, Store
from ..store.due import Item
from .compose_read import stored_since
from .outbox import notify_game
from .players import info_of, players_info, resolve_labels
from .seats import opponent_of, seats

#: the due item's kind: a seat's page mark ended
BACK = "w"


def poll_seconds(config: Config) -> float:
    """How often an open page asks whether the game moved (``PAGE_POLL_SECONDS``)."""
    return float(config["PAGE_POLL_SECONDS"])


def open_ms(config: Config) -> int:
    """How long one poll counts as the page being open: four polls' time and 5 s (a slow phone, a busy tab)."""
    return int((4 * poll_seconds(config) + 5) * 1000)


def moved_ms(config: Config) -> int:
    """How long a move from the page keeps the game's messages to that player quiet (``PAGE_QUIET_MINUTES``)."""
    return int(float(config["PAGE_QUIET_MINUTES"]) * 60_000)


def quiet_seats(marks: Mapping[int, int], now_ms: int) -> frozenset[int]:
    """The rule: the seats whose page mark (seat -> until ms, ``Store.page_presence``) lasts past ``now_ms``."""
    return frozenset(seat for seat, until in marks.items() if until > now_ms)


def quiet(store: Store, game_id: str, seat: int, now_ms: int) -> int | None:
    """The ms until which ``seat`` is on its page of ``game_id``, or None when it is not."""
    until = store.page_presence(game_id).get(seat, 0)
    return until if seat in quiet_seats({seat: until}, now_ms) else None


def _mark(store: Store, game_id: str, seat: int, until_ms: int, shown: int | None = None) -> None:
    """The mark and its ``w`` due item, in one round trip (each poll of an open page marks it)."""
    pipe = store.pipeline()
    store.queue_mark_page(pipe, game_id, seat, until_ms, shown)
    store.due.schedule(Item(BACK, game_id, seat), until_ms + 1000, on=pipe)  # later marks move it later
    pipe.execute()


def mark_open(config: Config, store: Store, game_id: str, seat: int, shown: int | None = None) -> None:
    """The page of ``seat`` is open now (its poll; ``shown``: the game's version the page shows it now)."""
    _mark(store, game_id, seat, store.clock.now_ms() + open_ms(config), shown)


def mark_moved(config: Config, store: Store, game_id: str, seat: int) -> None:
    """``seat`` moves from its page now (before the move is recorded, so the move's messages see it)."""
    _mark(store, game_id, seat, store.clock.now_ms() + moved_ms(config))


def back_from_page(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                   item: Item, now_ms: int) -> tuple[int | None, list[str]]:
    """The due item of a page mark that ended: ``(retry at ms, outbox ids)``. Still on the page: try again when
    the mark ends. Gone, owing a move they were not told of: the prompt by their channel, with what happened
    since their last message (their cursor ``seen<seat>``, which it moves)."""
    game_id, seat = item.game_id, item.seat
    until = quiet(store, game_id, seat, now_ms)
    if until is not None:
        return until + 1000, []
    meta = store.meta(game_id)
    address = meta.seats[seat]
    if meta.status != "active" or not address:
        return None, []
    game = games.load(game_id)
    since = int(meta.get(f"seen{seat}", game.version))
    if not game.may_move(seat) or since >= game.version:
        return None, []  # nothing owed, or told already: the next message tells the news as before
    since = max(since, min(int(meta.of_seat("shown", seat) or 0), game.version))  # what the page showed: not again
    infos = players_info(config, store, seats(meta))
    me, opp = info_of(infos, address, config), info_of(infos, opponent_of(meta, seat), config)
    if not me.may_send:
        return None, []
    resolve_labels(store, [me], game_id)
    news = [d for d in (redact(e, seat) for e in stored_since(store, game_id, since, game.version)) if d is not None]
    shown = view(game, seat)
    to = destination(config, store, links, reach, address, "turn" if shown.my_turn else "update",
                     me.lang, now_ms, life=me.life)
    channel = to.channel
    rendered = (port.turn_message(shown, me.lang, channel, news, opp.name, me.labels[game_id])
                or port.resend(shown, me.lang, channel, opp.name, me.labels[game_id]))
    out = notify_game(config, store, players, links, reach, game_id, f"page-left:{game_id}:{seat}:{game.version}",
                      [(seat, "update", {"rendered": rendered, "to": to})], meta_updates={f"seen{seat}": str(game.version)},
                      expected_version=game.version)
    return None, out.outbox_ids if out.outcome in ("ok", "duplicate") else []


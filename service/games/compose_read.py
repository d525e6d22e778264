"""The read before composing a move's messages: :func:`read_for_compose` gives the
:class:`~service.games.known.Known` that :func:`service.games.turns.turn_messages` composes from, so that composing
calls no gateway.

Most of it the move's read holds already (``Store.read_move``: the meta, the players' records with their routes,
game numbers and settings, the clock; the game cache: the newest events). What it does not hold is read here, and
only when the move needs it (an ordinary move by SMS reads nothing more): a player's game number when their numbers
point at two games or more (:func:`~service.games.players.resolve_labels`), the events since a seat's last message
beyond those the cache holds, the WhatsApp windows and the receipts' marks of a player's linked addresses, the
head-to-head records at a game's start and end (:mod:`.record`). A page token or a reply token a seat began without
and an email may need is made here (``ensure_*``), before composing: composing writes nothing.

:func:`compose_new` is a new game's (:mod:`.start`): its players read, then composed the same way.
"""

from __future__ import annotations

from typing import Any

from spades.events import Event, GameStarted, from_dicts
from spades.game import Game

from ..addresses import EMAIL, PUSH, WHATSAPP, address_kind
from ..channels import reply_origin
from ..context import Config, DealerFactory
from ..records import GameMeta
from ..store import Players, Reach, Store
from .known import Known, web_status_open
from .players import PlayerInfo, info_of, players_from, resolve_labels
from .record import record_of
from .turns import cursors, sendable_seats, turn_messages


def stored_since(store: Store, game_id: str, since: int, before: int, recent: tuple[Event, ...] = ()) -> list[Event]:
    """The stored events of versions ``since`` .. ``before - 1`` (the newest of the stream); ``recent``: the
    newest events up to ``before`` if the caller has them (``Taken.recent``), read only if they fall short."""
    if before <= since:
        return []
    if before - since <= len(recent):
        return list(recent[len(recent) - (before - since):])
    return from_dicts(store.newest_events(game_id, before - since))


def read_for_compose(config: Config, store: Store, players: Players, reach: Reach, game_id: str, meta: GameMeta,
                     game: Game, events: list[Event], infos: dict[str, PlayerInfo], now_ms: int, *,
                     recent: tuple[Event, ...] = (), updates: dict[str, str] | None = None, everyone: bool = False,
                     quiet: frozenset[int] = frozenset()) -> Known:
    """What composing the messages of ``events`` (folded on ``game``) in ``game_id`` needs beyond the move's read
    (``infos``: its players; ``recent``: the newest stored events before ``events``; ``now_ms``: its clock): see
    the module docstring. ``updates``, ``everyone``, ``quiet``: as :func:`~service.games.turns.turn_messages` is
    called with."""
    people = [s for s in (0, 1) if meta.seats[s] and not info_of(infos, meta.seats[s], config).computer]
    missing = [meta.seats[s] for s in people if meta.seats[s] not in infos]
    if missing:  # a player whose record the move did not read
        infos.update(players_from(config, store.player_records(missing)))
    by_seat = [info_of(infos, meta.seats[s], config) for s in (0, 1)]
    resolve_labels(store, [by_seat[s] for s in people], game_id)
    before = game.version - len(events)
    sinces = cursors(meta, sendable_seats(by_seat, quiet), before)
    first = min(sinces.values(), default=before)
    known = Known(config, game_id, meta, infos, now_ms, first, stored_since(store, game_id, first, before, recent))
    # a player with no linked address whose home is an SMS number or Telegram: nothing more to read, nor to make
    routed = [s for s in people if "links" in by_seat[s].record or address_kind(meta.seats[s]) in (WHATSAPP, EMAIL, PUSH)]
    _where(store, reach, known, [by_seat[s] for s in routed])
    opening = everyone or any(isinstance(e, GameStarted) for e in (*known.stored, *events))
    if game.phase == "over" or opening:  # the record between them is told at a game's start and end (issue 46)
        for s in people:
            address, opponent = meta.seats[s], meta.seats[1 - s]
            known.records[(address, opponent)] = record_of(store, players, address, but=game_id).between(opponent)
    _tokens(players, known, by_seat, routed, updates)
    return known


def _where(store: Store, reach: Reach, known: Known, people: list[PlayerInfo]) -> None:
    """Read into ``known`` what choosing where the players' messages go asks beyond their records: when their
    WhatsApp addresses last wrote (one round trip), the receipts' marks on their linked addresses (one more).
    Nothing for a player answered where they wrote from (:func:`service.channels.reply_origin`)."""
    windows: list[str] = []
    linked: list[str] = []
    for info in people:
        route = info.record.route
        origin = reply_origin(route.home)
        if origin is not None and not route.is_off(origin):
            continue
        reachable = route.reachable()
        windows += [a for a in reachable if address_kind(a) == WHATSAPP]
        linked += [a for a in reachable if a != route.home]
    if windows:
        pipe = store.pipeline()
        finish = [store.queue_last_inbound(pipe, a) for a in windows]
        replies = pipe.execute()
        known.windows.update({a: f([r]) for a, f, r in zip(windows, finish, replies)})
    if linked:  # (the home's own mark comes with its record)
        known.marks.update(zip(linked, reach.unreachable_many(linked)))


def _tokens(players: Players, known: Known, by_seat: list[PlayerInfo], people: list[int],
            updates: dict[str, str] | None) -> None:
    """Make before composing the tokens an email or a push of the game may need and a seat began without: its page
    token, the game's reply token of a player's linked mailbox, an email home's own reply token."""
    meta, game_id = known.meta, known.game_id
    under_way = web_status_open(meta, updates)
    for seat in people:
        route = by_seat[seat].record.route
        kinds = {address_kind(a) for a in route.linked}
        if under_way and kinds & {EMAIL, PUSH} and not meta.of_seat("web", seat):
            known.web[seat] = players.ensure_web_token(game_id, seat)
        if meta.of_seat("tok", seat):
            continue
        if any(address_kind(a) == EMAIL for a in route.links):
            known.reply[seat] = players.ensure_reply_token(game_id, seat, route.home)
        if address_kind(route.home) == EMAIL:
            known.own_reply[route.home] = players.own_reply_token(route.home)


def compose_new(config: Config, store: Store, players: Players, reach: Reach, dealer: DealerFactory, game_id: str,
                meta: GameMeta, game: Game, events: list[Event],
                updates: dict[str, str]) -> tuple[list[Event], list[dict[str, Any]]]:
    """:func:`~service.games.turns.turn_messages` of a game that just started (everyone is told): its players and
    what composing needs read first."""
    infos = players_from(config, store.player_records([a for a in meta.seats if a]))
    now_ms = int(updates.get("started") or 0) or store.clock.now_ms()  # (the clock as the start read it)
    known = read_for_compose(config, store, players, reach, game_id, meta, game, events, infos, now_ms,
                             updates=updates, everyone=True)
    return turn_messages(known, dealer, game, events, updates, everyone=True)

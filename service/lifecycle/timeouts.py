"""Timeouts: a game never hangs forever.

After ``TIMEOUT_DAYS`` (default 7) without a move, not counting the time the game was paused,
the waiting player is told they may ``CLAIM`` the game, and a ``CLAIM`` wins it (the engine's
``Forfeit(seat, "timeout")``). A player who sent ``AUTO ON`` instead has the ``basic`` strategy
move for them when their reminders run out (see :mod:`.reminders`).
"""

from __future__ import annotations

from spades.commands import Forfeit

from ..caches import GameCache, SeatCache
from ..context import Config, DealerFactory
from ..games import outbox
from ..games.moves import service_move
from ..games.players import label_of, name_of
from ..games.result import Outcome, Result
from ..games.seats import seat_of
from ..store import Links, Players, Reach, Store
from ..store.due import Item
from . import bot, hooks, reminders, settings
from .pauses import deadline_ms, paused_until


def timed_out_seats(config: Config, store: Store, game_id: str, now_ms: int | None = None) -> list[int]:
    """The seats that ran out of time on a move they owe in this game (both may owe one in a simultaneous
    draw, RULES D11)."""
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    meta = store.meta(game_id)
    life = store.game_life(game_id)
    if meta.status != "active" or life.get("v") != str(store.version(game_id)):
        return []
    if paused_until(store, game_id, now_ms) is not None:
        return []
    return [seat for seat, t in sorted(reminders.turns(store, game_id, life).items())
            if now_ms >= deadline_ms(config, store, game_id, t["since"], now_ms)]


def timed_out(config: Config, store: Store, game_id: str, now_ms: int | None = None) -> int | None:
    """A seat that ran out of time in this game (it may be claimed against), or None."""
    seats = timed_out_seats(config, store, game_id, now_ms)
    return seats[0] if seats else None


def claim(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          seats: SeatCache, dealer: DealerFactory, message_id: str, sender: str, game_id: str,
          now_ms: int | None = None) -> Result:
    """``CLAIM``: the waiting player wins a game whose player to move has run out of time.

    Refused (with a reply saying how long is left) when the time has not run out, the game is
    paused, or the sender owes a move too (both may, in a simultaneous draw: RULES D11).
    """
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    meta = store.meta(game_id)
    seat = seat_of(meta, sender)
    if seat is None:
        return Result([], Outcome.IGNORED, game_id)
    late = timed_out_seats(config, store, game_id, now_ms)
    if 1 - seat not in late or seat in late:  # only a player who owes nothing overdue may claim
        owed = reminders.turns(store, game_id)
        t = owed.get(1 - seat)
        left_h = 0
        if t is not None and seat not in owed:
            left_h = max(1, (deadline_ms(config, store, game_id, t["since"], now_ms) - now_ms + 3_599_999) // 3_600_000)
        return outbox.reply(config, store, players, links, reach, sender, message_id,
                            "claim_refused", hours=int(left_h),
                            my_turn=seat in owed,
                            paused=paused_until(store, game_id, now_ms) is not None,
                            label="", game_id=game_id)
    loser = 1 - seat
    return service_move(config, store, players, links, reach, games, seats, dealer, game_id, message_id,
                        Forfeit(loser, "timeout"), store.version(game_id))


def on_timeout_due(config: Config, store: Store, players: Players, links: Links, reach: Reach, item: Item,
                   now_ms: int) -> tuple[int | None, list[str]]:
    """The beat's action for a ``t`` item: tell the waiting player they may CLAIM (once), or wait longer."""
    meta = store.meta(item.game_id)
    if meta.status != "active" or not reminders.owes(store, item.game_id, item.seat, item.version):
        return None, []
    until = paused_until(store, item.game_id, now_ms)
    if until is not None:
        return until, []
    owed = reminders.turns(store, item.game_id)
    t = owed.get(item.seat)
    since = t["since"] if t else now_ms
    deadline = deadline_ms(config, store, item.game_id, since, now_ms)
    if now_ms < deadline:
        return deadline, []
    waiting = 1 - item.seat
    if waiting in owed:  # both owe a move (RULES D11): CLAIM needs the other's own move made first
        return now_ms + 3_600_000, []
    opp = name_of(players, meta.seats[item.seat])
    label = label_of(store, players, meta.seats[waiting], item.game_id)
    out = outbox.notify_game(config, store, players, links, reach, item.game_id, "timeout:" + item.member,
                             [(waiting, "claim_possible", {"opp": opp, "label": label,
                                                           "days": settings.get(config, "TIMEOUT_DAYS")})],
                             expected_version=store.version(item.game_id))
    return None, out.outbox_ids


def on_auto_due(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                seats: SeatCache, dealer: DealerFactory, item: Item, now_ms: int) -> tuple[int | None, list[str]]:
    """The beat's action for an ``a`` item: the ``basic`` strategy moves for a player with AUTO ON."""
    meta = store.meta(item.game_id)
    address = meta.seats[item.seat]
    if meta.status != "active" or not reminders.flag(store, address, "auto", False):
        return None, []
    if not reminders.owes(store, item.game_id, item.seat, item.version):
        return None, []
    until = paused_until(store, item.game_id, now_ms)
    if until is not None:
        return until, []
    # the game's version now: the other player may have moved since this turn began (RULES D11)
    out = bot.move(config, store, players, links, reach, games, seats, dealer, item.game_id, item.seat,
                   store.version(item.game_id), "auto:" + item.member)
    hooks.after_move(config, store, out)  # out.bot: the computer's move, if it is next (workers.beat queues it)
    return None, out.outbox_ids

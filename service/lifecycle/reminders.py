"""Reminders: the player to move is nudged after a delay, then at growing intervals, never in their quiet hours.

The schedule (settings ``REMIND_DELAYS``, ``REMIND_MAX``): when a turn begins (the game reaches a
new version with a human to move) the first reminder falls due ``12 h`` later, the next ``24 h``
after that one is sent, then ``48 h``; at most ``REMIND_MAX`` for one turn. Each reminder is a
:class:`service.store.due.Item`: the first carries ``now`` (it acts for the turn its seat owes when it falls due, and
each new turn of the seat moves it), the later ones the game version of their turn; once the game has moved on a
reminder does nothing. A reminder falling due in the player's quiet hours (``QUIET_HOURS``,
their local time) is sent when they end. The player's time zone comes from their phone number's
region (``phonenumbers.timezone``) unless they set one with ``TZ Europe/Oslo``.

``REMIND OFF`` stops sending (the schedule still runs, so ``AUTO`` can take over when it ends),
``REMIND ON`` starts again. ``PAUSE n`` stops reminders and the timeout clock of a game for both
players for ``n`` days (at most ``PAUSE_MAX_DAYS``); ``PAUSE 0`` ends a pause.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import phonenumbers
from phonenumbers import timezone as pn_timezone

from chat import prompt
from spades.game import Game, view

from ..addresses import EMAIL, WHATSAPP, is_bot
from ..caches import GameCache
from ..channels import destination
from ..context import Config
from ..games import outbox, presence
from ..games.players import all_stopped, label_of, lang_of, name_of, unfinished_games
from ..games.result import Result, TurnState, movers_field
from ..games.seats import computer_at, opponent_of
from ..records import GameMeta
from ..store import Links, Players, Reach, Store
from ..store.after_phase import Cancel, Schedule, Write
from ..store.due import AUTO, BOT, NOW, REMINDER, TIMEOUT, Item
from . import settings
from .pauses import DAY_MS, deadline_ms, paused_until


# -- time zones and quiet hours -----------------------------------------------------------------
def zone_for_number(number: str) -> str | None:
    """The time zone of a phone number's region (the first of several; Arctic/Antarctic stations skipped)."""
    try:
        parsed = phonenumbers.parse(number, None)
    except phonenumbers.NumberParseException:
        return None
    zones = [z for z in pn_timezone.time_zones_for_number(parsed)
             if "/" in z and not z.startswith(("Arctic/", "Antarctica/", "Etc/"))]
    return zones[0] if zones else None


def find_zone(text: str) -> str | None:
    """A time zone name as typed (``europe/oslo``, ``Europe/Oslo``, ``UTC``) in its proper spelling, or None."""
    raw = (text or "").strip().replace(" ", "_")
    if not raw:
        return None
    try:
        ZoneInfo(raw)
        if "/" in raw or raw.upper() == "UTC":
            return "UTC" if raw.upper() == "UTC" else raw
    except (ZoneInfoNotFoundError, ValueError):
        pass
    low = raw.lower()
    for name in available_timezones():
        if name.lower() == low:
            return name
    return None


def player_zone(config: Config, store: Store, address: str) -> ZoneInfo:
    """The player's time zone: set with TZ, else their number's region, else ``DEFAULT_TZ``."""
    name = store.player_life_field(address, "tz")
    if not name and "@" not in address and not is_bot(address):
        name = zone_for_number(address)
    try:
        return ZoneInfo(name or settings.get(config, "DEFAULT_TZ"))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def quiet_until(moment: datetime, zone: ZoneInfo, quiet: tuple[int, int]) -> datetime | None:
    """The end of the quiet hours if ``moment`` falls in them (in ``zone``), else None."""
    start, end = quiet
    if start == end:
        return None
    local = moment.astimezone(zone)
    h = local.hour + local.minute / 60 + local.second / 3600
    inside = (start <= h < end) if start < end else (h >= start or h < end)
    if not inside:
        return None
    day = local.date() if h < end else local.date() + timedelta(days=1)
    return datetime.combine(day, time(end), tzinfo=zone).astimezone(timezone.utc)


# -- player settings -----------------------------------------------------------------------------
def set_flag(store: Store, address: str, name: str, on: bool) -> None:
    """A standing setting of the player (``remind``, ``auto``)."""
    store.set_player_life(address, {name: "1" if on else "0"})


def flag(store: Store, address: str, name: str, default: bool) -> bool:
    raw = store.player_life_field(address, name)
    return default if raw is None else raw == "1"


def set_zone(config: Config, store: Store, players: Players, address: str, text: str) -> str | None:
    """``TZ <zone>``: the proper zone name if it exists (and is now the player's), else None."""
    name = find_zone(text)
    if name:
        before = player_zone(config, store, address)
        store.set_player_life(address, {"tz": name})
        recheck(config, store, players, address, before)
    return name


def recheck(config: Config, store: Store, players: Players, address: str, before: ZoneInfo) -> None:
    """Bring forward to now the player's pending reminders that were put off to the end of their quiet hours in the
    zone ``before``, so that the next scan decides them again in their new zone. The others keep their times: a
    reminder not yet due is not sent early."""
    now_ms = store.clock.now_ms()
    quiet = settings.quiet_hours(config)
    for gid in unfinished_games(store, players, address, ("active",)):
        meta = store.meta(gid)
        for seat, t in turns(store, gid).items():
            if meta.seats[seat] != address:
                continue
            for item, at in store.due.pending(gid):
                if (item.kind == "r" and item.seat == seat and item.version in (t["v"], NOW) and at > now_ms
                        and put_off_to(at, before, quiet)):
                    store.due.schedule(item, now_ms)


def put_off_to(at_ms: int, zone: ZoneInfo, quiet: tuple[int, int]) -> bool:
    """Whether ``at_ms`` is an end of the quiet hours in ``zone``: the time a reminder falling due in them is put off
    to (:func:`send_reminder`)."""
    end = quiet_until(datetime.fromtimestamp((at_ms - 1) / 1000, timezone.utc), zone, quiet)
    return end is not None and int(end.timestamp() * 1000) == at_ms


# -- turns ---------------------------------------------------------------------------------------
# The turn record (the game's life hash): ``v`` (game version), ``seat`` (who owes a move: "0", "1", or
# "01" in a simultaneous draw, RULES D11), ``since`` (ms), written with each append; and per seat
# ``v<seat>`` / ``since<seat>``: when the move that seat owes began. A player who still owes the move they
# were prompted for keeps it while the other draws, so each is reminded (and timed out) only for a move
# they owe, counted from when they were asked for it.
def turns(store: Store, game_id: str, life: GameMeta | None = None) -> dict[int, dict[str, int]]:
    """The moves owed as recorded: seat -> ``v`` (the game version the seat's turn began at), ``since`` (ms)."""
    life = store.game_life(game_id) if life is None else life
    if "v" not in life:
        return {}
    out = {}
    for c in life.get("seat", ""):
        seat = int(c)
        out[seat] = {"v": int(life.get(f"v{seat}", life["v"])), "since": int(life.get(f"since{seat}", life["since"]))}
    return out


def turn(store: Store, game_id: str) -> dict[str, int] | None:
    """The turn of the one seat owing a move (the first of two in a simultaneous draw), as recorded:
    ``v``, ``seat``, ``since``; None when nobody owes one."""
    owed = turns(store, game_id)
    if not owed:
        return None
    seat = min(owed)
    return {"seat": seat, **owed[seat]}


def owes(store: Store, game_id: str, seat: int, version: int) -> bool:
    """Whether ``seat`` still owes the move of its turn that began at ``version``."""
    t = turns(store, game_id).get(seat)
    return t is not None and t["v"] == version


def on_turn(config: Config, store: Store, game_id: str, game: Game | TurnState, now_ms: int | None = None,
            meta: GameMeta | None = None, life: GameMeta | None = None, writes: list[Write] | None = None,
            restore: bool = False, recorded: tuple[int, str, str] | None = None) -> bool:
    """Record that the game reached ``game.version`` and schedule what the new turns need.

    For each seat that now owes a new move: a human gets the first reminder and the timeout, the computer
    its move (the caller also queues the Celery task). A seat that still owes the move it was asked for
    (the other player moved, RULES D11) keeps its items; the items of a turn that ended are removed.
    Returns True if the state was new. With ``restore``, a repeated call for the same turn (a message
    handled again after a worker died before writing the items) puts back those of its items that are
    missing. ``meta`` (and ``life``, the game's life hash as read before the move): as the caller read them
    just before, if it did. The removals and the new items are written in one round trip (``Store.write``); with
    ``writes`` (the caller's list of write intents), added to it: the caller writes them.
    ``recorded``: the reply of the turn's record if the caller wrote it already (``Store.append(turn=...)``).
    """
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    if meta is None:
        meta = store.meta(game_id)
    if life is None:
        life = store.game_life(game_id)
    movers_arg = movers_field(game)
    if recorded is None:
        recorded = store.record_turn(game_id, game.version, movers_arg, now_ms,
                                     game.actor if isinstance(game, TurnState) else None)
    fresh, recorded_v, old_seat = recorded
    old_v = int(recorded_v)
    old_movers = old_seat
    repeated = restore and not int(fresh) and old_v == game.version and old_movers == movers_arg
    if not int(fresh) and not repeated:
        return False
    before = turns(store, game_id, life.updated({"v": str(old_v), "seat": old_movers})) if old_v >= 0 else {}
    actor = game.actor if isinstance(game, TurnState) else None
    active = meta.status == "active"
    out: list[Write] = []
    # in order: the ended turns' items out, the new turns' in (then the caller's last writes)
    for seat in (0, 1):
        owed = before.get(seat)
        goes_on = owed is not None and str(seat) in movers_arg and actor is not None and seat != actor
        if repeated:
            owed = turns(store, game_id, life).get(seat) if str(seat) in movers_arg else None
            if owed is not None and active:
                out.append(_schedule(config, store, game_id, meta, seat, owed["since"], now_ms, life, keep=True))
            continue
        if owed is not None and not goes_on and not active:  # the game over: its items out
            out.append(Cancel(turn_items(config, game_id, seat, owed["v"])))
        # (a turn that ended with the game going on leaves its items: the seat's next turn moves the ``now``
        # ones, and any left fall due for a seat that owes nothing, or a later turn's reminders: :func:`current`)
        if str(seat) in movers_arg and not goes_on and active:  # a new turn (its record: SEAT_TURNS_LUA)
            out.append(_schedule(config, store, game_id, meta, seat, now_ms, now_ms, life))
    if writes is None:
        store.write(out)
    else:
        writes.extend(out)
    return not repeated


def _schedule(config: Config, store: Store, game_id: str, meta: GameMeta, seat: int, since_ms: int,
              now_ms: int, life: GameMeta, keep: bool = False) -> Schedule:
    """The items of ``seat``'s turn that began at ``since_ms``, to write: the computer's move, or the first reminder
    and the timeout (``now`` items: they act for the turn the seat owes when they fall due, :func:`current`)."""
    if computer_at(meta, seat):
        delay_ms = int(float(settings.get(config, "BOT_DELAY")) * 1000)
        return Schedule(((Item(BOT, game_id, seat, NOW), now_ms + delay_ms + 60_000),), keep)
    first = settings.remind_delays_s(config)[0]
    return Schedule(((Item(REMINDER, game_id, seat, NOW, 1), since_ms + int(first * 1000)),
                     (Item(TIMEOUT, game_id, seat, NOW), deadline_ms(config, store, game_id, since_ms, now_ms,
                                                                     life=life))), keep)


def turn_items(config: Config, game_id: str, seat: int, version: int) -> tuple[Item, ...]:
    """The due items of one turn and the seat's ``now`` items (they would be stale anyway)."""
    n = int(settings.get(config, "REMIND_MAX"))
    return (*[Item(REMINDER, game_id, seat, version, i) for i in range(1, n + 2)],
            Item(AUTO, game_id, seat, version), Item(TIMEOUT, game_id, seat, version),
            Item(BOT, game_id, seat, version), Item(REMINDER, game_id, seat, NOW, 1),
            Item(TIMEOUT, game_id, seat, NOW), Item(BOT, game_id, seat, NOW))


def current(config: Config, store: Store, item: Item, now_ms: int) -> tuple[Item | None, int | None]:
    """A due item as the beat acts on it. A ``now`` item (:data:`~service.store.due.NOW`) stands for the turn its
    seat owes when it falls due: ``(the item with that turn's version, None)``; ``(None, None)`` if the seat owes
    no move (a turn that ended: nothing to do); ``(None, ms)`` for a first reminder that falls due before that turn
    is as old as the first delay (left by an earlier turn whose successor's item was never written): try again then.
    Any other item is its own turn's: ``(item, None)``."""
    if item.version != NOW:
        return item, None
    t = turns(store, item.game_id).get(item.seat)
    if t is None:
        return None, None
    if item.kind == "r" and item.n == 1:
        due = t["since"] + int(settings.remind_delays_s(config)[0] * 1000)
        if now_ms < due:
            return None, due
    return replace(item, version=t["v"]), None


# -- PAUSE n ---------------------------------------------------------------------------------------
def pause(config: Config, store: Store, players: Players, links: Links, reach: Reach, game_id: str, message_id: str,
          by_seat: int, days: int | None, now_ms: int | None = None) -> Result:
    """``PAUSE n``: no reminders and no timeout clock for ``n`` days (capped); both players are told.

    ``days`` 0 ends the pause now. The pause is recorded under the message id, so a retried
    message changes nothing more.
    """
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    cap = int(settings.get(config, "PAUSE_MAX_DAYS"))
    days = max(0, min(cap, 3 if days is None else int(days)))
    if days == 0:
        for k, v in store.game_life(game_id).items():
            a, _, b = v.partition("-")
            if k.startswith("pause:") and int(a) <= now_ms < int(b):
                store.set_game_life(game_id, {k: f"{a}-{now_ms}"})
        restart_turn(config, store, game_id, now_ms)
    else:
        store.add_game_life(game_id, f"pause:{message_id}", f"{now_ms}-{now_ms + days * DAY_MS}")
    until = paused_until(store, game_id, now_ms)
    ctx = {"days": days, "until": until or 0, "by_me": True}
    msgs = [(by_seat, "paused", dict(ctx, by_me=True, opp=_opp_name(store, players, game_id, by_seat))),
            (1 - by_seat, "paused", dict(ctx, by_me=False, opp=_opp_name(store, players, game_id, 1 - by_seat)))]
    return outbox.notify_game(config, store, players, links, reach, game_id, message_id, msgs)


def _opp_name(store: Store, players: Players, game_id: str, seat: int) -> str:
    return name_of(players, opponent_of(store.meta(game_id), seat))


# -- the beat's action -------------------------------------------------------------------------
def send_reminder(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                  item: Item, now_ms: int) -> tuple[int | None, list[str]]:
    """Act on a due reminder: ``(retry at ms or None, outbox ids written)``.

    Does nothing for a stale reminder (the game moved on, ended, or its player stopped); waits
    for the end of a pause or of the player's quiet hours; otherwise sends the reminder (once:
    the append is keyed by the item and checks the game version) and schedules the next one,
    or the computer's move for a player with AUTO ON when reminders have run out.
    """
    game_id, seat, v = item.game_id, item.seat, item.version
    meta = store.meta(game_id)
    if meta.status != "active" or not owes(store, game_id, seat, v):
        return None, []
    address = meta.seats[seat]
    if not address or all_stopped(links, address):
        return None, []
    until = paused_until(store, game_id, now_ms)
    if until is not None:
        return until, []
    on_page = presence.quiet(store, game_id, seat, now_ms)  # the player sees the game on its page: later
    if on_page is not None:
        return on_page + 1000, []
    moment = datetime.fromtimestamp(now_ms / 1000, timezone.utc)
    quiet_end = quiet_until(moment, player_zone(config, store, address), settings.quiet_hours(config))
    if quiet_end is not None:
        return int(quiet_end.timestamp() * 1000), []
    ids: list[str] = []
    if flag(store, address, "remind", True):
        ids = _write_reminder(config, store, players, links, reach, games, item, meta, address)
    delays = settings.remind_delays_s(config)
    limit = int(settings.get(config, "REMIND_MAX"))
    nxt = delays[min(item.n, len(delays) - 1)]
    if item.n < limit:
        store.due.schedule(Item(REMINDER, game_id, seat, v, item.n + 1), now_ms + int(nxt * 1000))
    elif flag(store, address, "auto", False):
        store.due.schedule(Item(AUTO, game_id, seat, v), now_ms + int(nxt * 1000))
    return None, ids


def remind_now(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
               game_id: str, seat: int, message_id: str) -> list[str]:
    """The reminder of the turn ``seat`` owes in ``game_id``, written now (where :func:`service.channels.destination`
    sends the player's reminders) under ``message_id`` (once: the append is keyed by it); the beat's schedule is left
    as it is. Returns the outbox ids written, none if the seat owes no move."""
    t = turns(store, game_id).get(seat)
    meta = store.meta(game_id)
    address = meta.seats[seat]
    if t is None or not address or meta.status != "active":
        return []
    return _write_reminder(config, store, players, links, reach, games, Item(REMINDER, game_id, seat, t["v"], 1), meta,
                           address, message_id)


def _write_reminder(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                    item: Item, meta: GameMeta, address: str, message_id: str | None = None) -> list[str]:
    game = games.load(item.game_id)
    if not game.may_move(item.seat) or not owes(store, item.game_id, item.seat, item.version):
        return []
    lang = lang_of(config, players, address)
    to = destination(config, store, links, reach, address, "reminder",
                     lang)  # the prompt inside is rendered for where the reminder goes
    opp = name_of(players, meta.seats[1 - item.seat])
    label = label_of(store, players, address, item.game_id)
    shown = prompt(view(game, item.seat), lang, WHATSAPP if to.channel == EMAIL else to.channel, events=None,
                   opponent_name=opp, game_label=label)  # by email its text alone: the email's footer comes once
    limit = int(settings.get(config, "REMIND_MAX"))
    out = outbox.notify_game(
        config, store, players, links, reach, item.game_id, message_id or "remind:" + item.member,
        [(item.seat, "reminder", {"prompt": shown.text, "prompt_html": shown.html or "", "n": item.n,
                                  "of": limit, "opp": opp, "label": label, "to": to,
                                  "replies": shown.replies, "ask": shown.ask})],  # its answers: buttons
        expected_version=game.version)
    if out.outcome in ("ok", "duplicate"):
        store.set_player_life(address, {"last": item.game_id})  # the game they were last prompted about
        return out.outbox_ids
    return []


def restart_turn(config: Config, store: Store, game_id: str, now_ms: int) -> None:
    """Start the current turns' reminder schedules again from ``now_ms`` (after START, or a pause ended early)."""
    life = store.game_life(game_id)
    if life.get("v") != str(store.version(game_id)):
        return
    meta = store.meta(game_id)
    for seat, t in turns(store, game_id, life).items():
        if computer_at(meta, seat):
            continue
        store.due.cancel(*turn_items(config, game_id, seat, t["v"]))
        first = settings.remind_delays_s(config)[0]
        store.due.schedule(Item(REMINDER, game_id, seat, NOW, 1), now_ms + int(first * 1000))
        store.due.schedule(Item(TIMEOUT, game_id, seat, NOW), deadline_ms(config, store, game_id, t["since"], now_ms))

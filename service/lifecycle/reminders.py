"""Reminders: the player to move is nudged after a delay, then at growing intervals, never in their quiet hours.

The schedule (settings ``REMIND_DELAYS``, ``REMIND_MAX``): when a turn begins (the game reaches a
new version with a human to move) the first reminder falls due ``12 h`` later, the next ``24 h``
after that one is sent, then ``48 h``; at most ``REMIND_MAX`` for one turn. Each reminder is a
:class:`service.lifecycle.due.Item` carrying the game version of its turn: once the game has
moved on it does nothing. A reminder falling due in the player's quiet hours (``QUIET_HOURS``,
their local time) is sent when they end. The player's time zone comes from their phone number's
region (``phonenumbers.timezone``) unless they set one with ``TZ Europe/Oslo``.

``REMIND OFF`` stops sending (the schedule still runs, so ``AUTO`` can take over when it ends),
``REMIND ON`` starts again. ``PAUSE n`` stops reminders and the timeout clock of a game for both
players for ``n`` days (at most ``PAUSE_MAX_DAYS``); ``PAUSE 0`` ends a pause.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import phonenumbers
from phonenumbers import timezone as pn_timezone

from spades.game import Game

from .. import clock
from ..context import Services
from . import due, gateway, keys, settings
from .due import Item

DAY_MS = 86_400_000


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


def player_zone(svc: Services, address: str) -> ZoneInfo:
    """The player's time zone: set with TZ, else their number's region, else ``DEFAULT_TZ``."""
    chosen = svc.redis.hget(keys.player_life(address), "tz")
    name = chosen.decode() if isinstance(chosen, bytes) else chosen
    if not name and "@" not in address and not keys.is_bot(address):
        name = zone_for_number(address)
    try:
        return ZoneInfo(name or settings.get(svc.config, "DEFAULT_TZ"))
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
def set_flag(svc: Services, address: str, name: str, on: bool) -> None:
    """A standing setting of the player (``remind``, ``auto``)."""
    svc.redis.hset(keys.player_life(address), name, "1" if on else "0")


def flag(svc: Services, address: str, name: str, default: bool) -> bool:
    raw = svc.redis.hget(keys.player_life(address), name)
    if raw is None:
        return default
    return raw in (b"1", "1")


def set_zone(svc: Services, address: str, text: str) -> str | None:
    """``TZ <zone>``: the proper zone name if it exists (and is now the player's), else None."""
    name = find_zone(text)
    if name:
        svc.redis.hset(keys.player_life(address), "tz", name)
        recheck(svc, address)
    return name


def recheck(svc: Services, address: str) -> None:
    """Bring the player's pending reminders forward to now, so the next scan decides them again
    (their quiet hours moved with a new time zone)."""
    from . import routing

    now_ms = clock.now_ms(svc.redis)
    for gid in routing.unfinished_games(svc, address, ("active",)):
        t = turn(svc, gid)
        if t is None or svc.store.meta(gid).get(f"seat{t['seat']}") != address:
            continue
        for item, at in due.pending(svc.redis, gid):
            if item.kind == "r" and item.seat == t["seat"] and item.version == t["v"] and at > now_ms:
                due.schedule(svc.redis, item, now_ms)


# -- turns ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TurnState:
    """What the lifecycle reads of a game's state: a copy, so a cached ``Game`` can go on being used."""

    version: int
    phase: str
    to_move: int | None

    @classmethod
    def of(cls, game: Game) -> "TurnState":
        return cls(game.version, game.phase, game.to_move)


TURN_LUA = r"""
-- KEYS: life; ARGV: version, seat, since ms. Records the turn unless a newer one is recorded.
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '-1')
if v >= tonumber(ARGV[1]) then return {0, tostring(v), redis.call('HGET', KEYS[1], 'seat') or ''} end
local old = redis.call('HGET', KEYS[1], 'seat') or ''
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'seat', ARGV[2], 'since', ARGV[3])
return {1, tostring(v), old}
"""


def turn(svc: Services, game_id: str) -> dict[str, int] | None:
    """The current turn as recorded: ``v`` (game version), ``seat``, ``since`` (ms)."""
    life = gateway.hgetall(svc, keys.game_life(game_id))
    if "v" not in life or life.get("seat", "") == "":
        return None
    return {"v": int(life["v"]), "seat": int(life["seat"]), "since": int(life["since"])}


def on_turn(svc: Services, game_id: str, game: Game | TurnState, now_ms: int | None = None,
            meta: dict[str, str] | None = None, life: dict[str, str] | None = None, tail: Any = None,
            restore: bool = False, recorded: Any = None) -> bool:
    """Record that the game reached ``game.version`` and schedule what the new turn needs.

    A human to move: the first reminder and the timeout. The computer to move: its move (the
    caller also queues the Celery task). Items of the previous turn are removed. Returns True
    if this turn was new. With ``restore``, a repeated call for the same turn (a message handled again
    after a worker died before writing the items) puts back those of its items that are missing.
    ``meta`` (and ``life``, the game's life hash): as the caller read them just before, if it did.
    The removals and the new items are written in one round trip; with ``tail`` (a pipeline of the
    caller's, holding its own last writes), queued on it: the caller executes it. ``recorded``: the
    reply of the turn's record if the caller wrote it already (``Store.append(turn=...)``: ``AppendResult.turn``).
    """
    now_ms = clock.now_ms(svc.redis) if now_ms is None else now_ms
    seat = game.to_move
    if meta is None:
        meta = svc.store.meta(game_id)
    seat_arg = "" if seat is None or game.phase == "over" else str(seat)
    if recorded is None:
        recorded = _turn_script(svc)(keys=[keys.game_life(game_id)], args=[game.version, seat_arg, now_ms])
    fresh, old_v, old_seat = recorded
    old_v = int(old_v)
    old_seat_s = old_seat.decode() if isinstance(old_seat, bytes) else old_seat
    repeated = restore and not int(fresh) and old_v == game.version and old_seat_s == seat_arg
    if not int(fresh) and not repeated:
        return False
    address = meta.get(f"seat{seat}", "")
    human = seat_arg != "" and meta.get("status") == "active" and not keys.is_bot(address)
    deadline = 0
    if human:
        from . import timeouts

        deadline = timeouts.deadline_ms(svc, game_id, now_ms, now_ms, life=life)
    # in order: the old turn's items out, the new turn's in (then the caller's last writes, on its tail)
    pipe = tail if tail is not None else svc.redis.pipeline(transaction=False)
    if old_v >= 0 and old_seat_s != "" and not repeated:
        cancel_turn(svc, game_id, int(old_seat_s), old_v, client=pipe)
    if seat_arg != "" and meta.get("status") == "active":
        if not human:
            delay_ms = int(float(settings.get(svc.config, "BOT_DELAY")) * 1000)
            due.schedule(pipe, Item("b", game_id, seat, game.version), now_ms + delay_ms + 60_000, keep=repeated)
        else:
            first = settings.remind_delays_s(svc.config)[0]
            due.schedule(pipe, Item("r", game_id, seat, game.version, 1), now_ms + int(first * 1000), keep=repeated)
            due.schedule(pipe, Item("t", game_id, seat, game.version), deadline, keep=repeated)
    if tail is None:
        pipe.execute()
    return not repeated


def _turn_script(svc: Services) -> Any:
    script = getattr(svc.redis, "_ss_turn_script", None)
    if script is None:
        script = svc.redis.register_script(TURN_LUA)
        try:
            svc.redis._ss_turn_script = script  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return script


def cancel_turn(svc: Services, game_id: str, seat: int, version: int, client: Any = None) -> None:
    """Remove the due items of one turn (they would be stale anyway); ``client``: a pipeline to queue on."""
    n = int(settings.get(svc.config, "REMIND_MAX"))
    due.cancel(svc.redis if client is None else client, *[Item("r", game_id, seat, version, i) for i in range(1, n + 2)],
               Item("a", game_id, seat, version), Item("t", game_id, seat, version), Item("b", game_id, seat, version))


# -- pauses --------------------------------------------------------------------------------------
def pauses(svc: Services, game_id: str, life: dict[str, str] | None = None) -> list[tuple[int, int]]:
    """The game's pauses as (start ms, end ms), oldest first (``life``: its life hash, if read already)."""
    if life is None:
        life = gateway.hgetall(svc, keys.game_life(game_id))
    out = []
    for k, v in life.items():
        if k.startswith("pause:"):
            a, _, b = v.partition("-")
            out.append((int(a), int(b)))
    return sorted(out)


def paused_until(svc: Services, game_id: str, now_ms: int) -> int | None:
    """The end of the pause the game is in at ``now_ms``, or None."""
    ends = [b for a, b in pauses(svc, game_id) if a <= now_ms < b]
    return max(ends) if ends else None


def pause(svc: Services, game_id: str, message_id: str, by_seat: int, days: int | None,
          now_ms: int | None = None) -> gateway.Outcome:
    """``PAUSE n``: no reminders and no timeout clock for ``n`` days (capped); both players are told.

    ``days`` 0 ends the pause now. The pause is recorded under the message id, so a retried
    message changes nothing more.
    """
    now_ms = clock.now_ms(svc.redis) if now_ms is None else now_ms
    cap = int(settings.get(svc.config, "PAUSE_MAX_DAYS"))
    days = max(0, min(cap, 3 if days is None else int(days)))
    life = keys.game_life(game_id)
    if days == 0:
        for k, v in gateway.hgetall(svc, life).items():
            a, _, b = v.partition("-")
            if k.startswith("pause:") and int(a) <= now_ms < int(b):
                svc.redis.hset(life, k, f"{a}-{now_ms}")
        restart_turn(svc, game_id, now_ms)
    else:
        svc.redis.hsetnx(life, f"pause:{message_id}", f"{now_ms}-{now_ms + days * DAY_MS}")
    until = paused_until(svc, game_id, now_ms)
    ctx = {"days": days, "until": until or 0, "by_me": True}
    msgs = [(by_seat, "paused", dict(ctx, by_me=True, opp=_opp_name(svc, game_id, by_seat))),
            (1 - by_seat, "paused", dict(ctx, by_me=False, opp=_opp_name(svc, game_id, 1 - by_seat)))]
    return gateway.notify_game(svc, game_id, message_id, msgs)


def _opp_name(svc: Services, game_id: str, seat: int) -> str:
    meta = svc.store.meta(game_id)
    return gateway.name_of(svc, meta.get(f"seat{1 - seat}", ""))


# -- the beat's action -------------------------------------------------------------------------
def send_reminder(svc: Services, item: Item, now_ms: int) -> tuple[int | None, list[str]]:
    """Act on a due reminder: ``(retry at ms or None, outbox ids written)``.

    Does nothing for a stale reminder (the game moved on, ended, or its player stopped); waits
    for the end of a pause or of the player's quiet hours; otherwise sends the reminder (once:
    the append is keyed by the item and checks the game version) and schedules the next one,
    or the computer's move for a player with AUTO ON when reminders have run out.
    """
    game_id, seat, v = item.game_id, item.seat, item.version
    meta = svc.store.meta(game_id)
    if meta.get("status") != "active" or svc.store.version(game_id) != v:
        return None, []
    address = meta.get(f"seat{seat}", "")
    if not address or gateway.is_stopped(svc, address):
        return None, []
    until = paused_until(svc, game_id, now_ms)
    if until is not None:
        return until, []
    moment = datetime.fromtimestamp(now_ms / 1000, timezone.utc)
    quiet_end = quiet_until(moment, player_zone(svc, address), settings.quiet_hours(svc.config))
    if quiet_end is not None:
        return int(quiet_end.timestamp() * 1000), []
    ids: list[str] = []
    if flag(svc, address, "remind", True):
        ids = _write_reminder(svc, item, meta, address)
    delays = settings.remind_delays_s(svc.config)
    limit = int(settings.get(svc.config, "REMIND_MAX"))
    nxt = delays[min(item.n, len(delays) - 1)]
    if item.n < limit:
        due.schedule(svc.redis, Item("r", game_id, seat, v, item.n + 1), now_ms + int(nxt * 1000))
    elif flag(svc, address, "auto", False):
        due.schedule(svc.redis, Item("a", game_id, seat, v), now_ms + int(nxt * 1000))
    return None, ids


def _write_reminder(svc: Services, item: Item, meta: dict[str, str], address: str) -> list[str]:
    from chat import prompt

    from . import routing

    game = gateway.load_game(svc, item.game_id)
    if game.version != item.version or game.to_move != item.seat:
        return []
    lang = gateway.lang_of(svc, address)
    channel = "email" if "@" in address else "sms"
    opp = gateway.name_of(svc, meta.get(f"seat{1 - item.seat}", ""))
    label = routing.label(svc, address, item.game_id)
    shown = prompt(gateway.player_view(game, item.seat), lang, channel, events=None, opponent_name=opp,
                   game_label=label)
    limit = int(settings.get(svc.config, "REMIND_MAX"))
    out = gateway.notify_game(
        svc, item.game_id, "remind:" + item.member,
        [(item.seat, "reminder", {"prompt": shown.text, "prompt_html": shown.html or "", "n": item.n,
                                  "of": limit, "opp": opp, "label": label})],
        expected_version=item.version)
    if out.outcome in ("ok", "duplicate"):
        routing.note_prompt(svc, address, item.game_id)
        return out.outbox_ids
    return []


_ = Any


def restart_turn(svc: Services, game_id: str, now_ms: int) -> None:
    """Start the current turn's reminder schedule again from ``now_ms`` (after START, or a pause ended early)."""
    t = turn(svc, game_id)
    if t is None or t["v"] != svc.store.version(game_id):
        return
    address = svc.store.meta(game_id).get(f"seat{t['seat']}", "")
    if keys.is_bot(address):
        return
    cancel_turn(svc, game_id, t["seat"], t["v"])
    first = settings.remind_delays_s(svc.config)[0]
    due.schedule(svc.redis, Item("r", game_id, t["seat"], t["v"], 1), now_ms + int(first * 1000))
    from . import timeouts

    due.schedule(svc.redis, Item("t", game_id, t["seat"], t["v"]),
                 timeouts.deadline_ms(svc, game_id, t["since"], now_ms))

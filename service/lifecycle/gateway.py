"""The lifecycle's seam to the rest of the service: rendering, outbox entries, game state, appending commands.

Everything the lifecycle needs from ``service.handlers`` and ``chat`` goes through here, so the
lifecycle modules stay independent of how the handler is arranged inside. Messages are rendered
from ``templates/lifecycle/{sms,email}/<name>`` with the conversation layer's Jinja2 environment
(same gettext catalogues, same SMS finishing pass: one line, GSM-7 only).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from chat.languages import language_for_address
from chat.render import Rendered
from chat.render import render as chat_render
from spades.commands import Command
from spades.errors import GameOverError, RuleError
from spades.events import GameEnded, to_dict
from spades.game import Game, decide, fold, view

from ..context import Services
from ..players import address_kind
from ..store import game_owner, player_owner
from . import keys

MAX_ATTEMPTS = 25


@dataclass
class Outcome:
    """What a lifecycle action did: the outbox ids to dispatch, a word for what happened, the game."""

    outbox_ids: list[str] = field(default_factory=list)
    outcome: str = ""
    game_id: str | None = None
    game: Game | None = None


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def hgetall(svc: Services, key: str) -> dict[str, str]:
    return {_s(a): _s(b) for a, b in svc.redis.hgetall(key).items()}


# -- players --------------------------------------------------------------------------------
def lang_of(svc: Services, address: str) -> str:
    """The player's language: their record's, else the default of their address."""
    rec = svc.players.get(address) or {}
    return rec.get("lang") or language_for_address(address)


def name_of(svc: Services, address: str) -> str:
    """How a player is named to their opponent: a name they gave, the computer, or their address."""
    if keys.is_bot(address):
        return "Bot"
    rec = svc.players.get(address) or {}
    return rec.get("name") or address


def is_stopped(svc: Services, address: str) -> bool:
    """True once the player sent STOP (and not START since): nothing at all may be sent to them."""
    return svc.redis.hget(keys.player_life(address), "stopped") in (b"1", "1")


@dataclass
class PlayerInfo:
    """What rendering a game message needs of one player, read in one round trip (:func:`queue_players`).

    The same answers as :func:`lang_of`, :func:`name_of`, :func:`is_stopped`,
    ``reminders.flag`` and ``routing.label``, from the player's record, ``life`` hash, game
    numbers and newest games, read together with the caller's own commands.
    """

    address: str
    record: dict[str, str]
    life: dict[str, str]
    nums: dict[str, str]
    games: list[str]
    labels: dict[str, str] = field(default_factory=dict)  # game id -> "#N" or "" once known

    @property
    def lang(self) -> str:
        return self.record.get("lang") or language_for_address(self.address)

    @property
    def name(self) -> str:
        if keys.is_bot(self.address):
            return "Bot"
        return self.record.get("name") or self.address

    @property
    def stopped(self) -> bool:
        return self.life.get("stopped") == "1"

    @property
    def may_send(self) -> bool:
        return not keys.is_bot(self.address) and not self.stopped

    def flag(self, name: str, default: bool) -> bool:
        raw = self.life.get(name)
        return default if raw is None else raw == "1"


_PLAYER_READS = 4


def queue_players(pipe: Any, addresses: list[str]) -> None:
    """Queue on ``pipe`` the reads :func:`players_from` parses (record, life, numbers, newest 100 games)."""
    from ..store import owner_keys, player_owner

    for address in addresses:
        k = owner_keys(player_owner(address))
        pipe.hgetall(k["meta"])
        pipe.hgetall(keys.player_life(address))
        pipe.hgetall(keys.player_nums(address))
        pipe.zrevrange(k["games"], 0, 99)


def players_from(addresses: list[str], replies: list[Any]) -> dict[str, PlayerInfo]:
    """The :class:`PlayerInfo` of each address from the replies of :func:`queue_players` (in order)."""
    out: dict[str, PlayerInfo] = {}
    for i, address in enumerate(addresses):
        rec, life, nums, games = replies[i * _PLAYER_READS:(i + 1) * _PLAYER_READS]
        out[address] = PlayerInfo(address, {_s(a): _s(b) for a, b in rec.items()},
                                  {_s(a): _s(b) for a, b in life.items()},
                                  {_s(a): _s(b) for a, b in nums.items()}, [_s(g) for g in games])
    return out


def resolve_labels(svc: Services, infos: list[PlayerInfo], game_id: str) -> None:
    """Fill ``info.labels[game_id]`` (``routing.label``) for each info, in at most one more round trip.

    A player's unfinished games are among the games their numbers point at (every game gets a
    number for each person when it is created, and a number is not given again while its game
    is unfinished), so only those games' status is read, not every game of the player.
    """
    from .routing import UNFINISHED, number_of

    asks: list[tuple[PlayerInfo, list[str]]] = []
    for info in infos:
        if game_id in info.labels:
            continue
        newest = set(info.games)
        numbered = {v for k, v in info.nums.items() if k.isdigit() and v in newest}
        if len(numbered) < 2:
            info.labels[game_id] = ""
        else:
            asks.append((info, sorted(numbered)))
    if not asks:
        return
    from ..store import game_owner, owner_keys

    pipe = svc.redis.pipeline(transaction=False)
    for _info, gids in asks:
        for gid in gids:
            pipe.hmget(owner_keys(game_owner(gid))["meta"], "status", "seat0", "seat1")
    replies = iter(pipe.execute())
    for info, gids in asks:
        unfinished = 0
        for _gid in gids:
            status, s0, s1 = (None if v is None else _s(v) for v in next(replies))
            if status in UNFINISHED and info.address in (s0, s1):
                unfinished += 1
        if unfinished < 2:
            info.labels[game_id] = ""
        else:
            n = info.nums.get(f"g:{game_id}")
            info.labels[game_id] = f"#{n if n is not None else number_of(svc, info.address, game_id)}"


def players_info(svc: Services, addresses: list[str], game_id: str | None = None) -> dict[str, PlayerInfo]:
    """:class:`PlayerInfo` of ``addresses`` (one round trip; labels of ``game_id`` in at most one more)."""
    addresses = list(dict.fromkeys(a for a in addresses if a and not keys.is_bot(a)))
    pipe = svc.redis.pipeline(transaction=False)
    queue_players(pipe, addresses)
    infos = players_from(addresses, pipe.execute() if addresses else [])
    if game_id is not None:
        resolve_labels(svc, list(infos.values()), game_id)
    return infos


def seat_of(meta: dict[str, str], address: str) -> int | None:
    for seat in (0, 1):
        if meta.get(f"seat{seat}") == address:
            return seat
    return None


# -- rendering ------------------------------------------------------------------------------
def render(name: str, lang: str, channel: str, **context: Any) -> Rendered:
    """Render ``templates/lifecycle/<channel>/<name>`` exactly as chat renders its own templates."""
    return chat_render(name, lang, channel, family="lifecycle", **context)


def entry(svc: Services, address: str, name: str, *, game_id: str | None = None, seat: int | None = None,
          meta: dict[str, str] | None = None, meta_updates: dict[str, str] | None = None,
          rendered: Rendered | None = None, even_if_stopped: bool = False, **context: Any) -> dict[str, Any] | None:
    """The outbox entry of lifecycle message ``name`` to ``address``; None for the computer or a stopped
    number (unless ``even_if_stopped``)."""
    if keys.is_bot(address) or (not even_if_stopped and is_stopped(svc, address)):
        return None
    from .. import handlers

    if rendered is None:
        rendered = render(name, lang_of(svc, address), address_kind(address), **context)
    return handlers._outbound(svc, address, rendered, game_id=game_id, seat=seat, meta=meta,  # type: ignore[arg-type]
                              meta_updates=meta_updates, kind=name)


def reply(svc: Services, address: str, message_id: str, name: str, **context: Any) -> Outcome:
    """A lifecycle reply tied to no game, in the sender's own outbox, once per message id."""
    e = entry(svc, address, name, **context)
    if e is None:
        return Outcome([], "suppressed")
    res = svc.store.append(player_owner(address), -1, message_id=message_id, outbox=[e])
    return Outcome(res.outbox_ids, name if res.ok else "duplicate", context.get("game_id"))


def notify_game(svc: Services, game_id: str, message_id: str, messages: list[tuple[int, str, dict[str, Any]]],
                meta_updates: dict[str, str] | None = None, expected_version: int = -1) -> Outcome:
    """Write lifecycle messages about a game (``(seat, template, context)``) to the game's outbox, once."""
    meta = svc.store.meta(game_id)
    updates = dict(meta_updates or {})
    entries = []
    for seat, name, ctx in messages:
        address = meta.get(f"seat{seat}", "")
        e = entry(svc, address, name, game_id=game_id, seat=seat, meta=meta, meta_updates=updates, **ctx)
        if e is not None:
            entries.append(e)
    res = svc.store.append(game_owner(game_id), expected_version, [], message_id=message_id, outbox=entries,
                           meta=updates)
    return Outcome(res.outbox_ids, res.status, game_id)


# -- games ----------------------------------------------------------------------------------
def load_game(svc: Services, game_id: str) -> Game:
    """The game's current state (through the handler's per-process cache)."""
    from .. import handlers

    game, sid = handlers.CACHE.take(svc, game_id)
    handlers.CACHE.put(game_id, game, sid)
    return game


def game_messages(svc: Services, game_id: str, meta: dict[str, str], game: Game, events: list[Any],
                  updates: dict[str, str], everyone: bool = False) -> tuple[list[Any], list[dict[str, Any]]]:
    """The events to append and the messages they cause (``service.handlers.turn_messages``)."""
    from .. import handlers

    return handlers.turn_messages(svc, game_id, meta, game, events, updates, everyone=everyone)


def apply_command(svc: Services, game_id: str, message_id: str,
                  choose: Callable[[Game], Command | None], expected_version: int | None = None) -> Outcome:
    """Decide the command ``choose(game)`` returns and append it, once for ``message_id``.

    ``expected_version``: do nothing ("stale") unless the game is still at that version.
    On a version conflict the game is re-read and ``choose`` asked again.
    """
    from .. import handlers

    owner = game_owner(game_id)
    ttl = int(svc.config.get("OUTBOX_TTL", 172800))
    for _ in range(MAX_ATTEMPTS):
        done = svc.store.consumed(owner, message_id)
        if done is not None:
            return Outcome(done, "duplicate", game_id)
        meta = svc.store.meta(game_id)
        if meta.get("status") != "active":
            return Outcome([], "inactive", game_id)
        game, sid = handlers.CACHE.take(svc, game_id)
        version = game.version
        if expected_version is not None and version != expected_version:
            handlers.CACHE.put(game_id, game, sid)
            return Outcome([], "stale", game_id, game)
        command = choose(game)
        if command is None:
            handlers.CACHE.put(game_id, game, sid)
            return Outcome([], "nothing", game_id, game)
        try:
            events = decide(game, command, svc.dealer(game_id, version))
        except (GameOverError, RuleError):
            handlers.CACHE.put(game_id, game, sid)
            return Outcome([], "refused", game_id, game)
        fold(events, game)
        updates: dict[str, str] = {}
        events, outbox = game_messages(svc, game_id, meta, game, events, updates)
        over = any(isinstance(e, GameEnded) for e in events)
        if over:
            from ..store import now_ms

            updates.update(status="over", ended=str(now_ms()))
        res = svc.store.append(owner, version, [to_dict(e) for e in events], message_id=message_id,
                               outbox=outbox, meta=updates, ttl=ttl if over else 0)
        if res.ok:
            handlers.CACHE.put(game_id, game, res.last_stream_id, events)
            if over:  # the computer's last move, a timeout or a claim ended it: its log, compressed
                svc.store.archive(game_id)
            return Outcome(res.outbox_ids, "applied", game_id, game)
        if res.status == "duplicate":
            return Outcome(res.outbox_ids, "duplicate", game_id)
    raise RuntimeError(f"gave up on {message_id} after {MAX_ATTEMPTS} conflicts on game {game_id}")


def player_view(game: Game, seat: int) -> Any:
    return view(game, seat)


_ = json

"""The application handler: one inbound message -> events + outbound messages, appended once.

The decide loop is generic: load the game's events (a per-process cache keeps the
folded state and reads only the events it has not seen) -> parse the text ->
``spades.game.decide`` -> render the messages the new events cause -> one Lua
append with the expected version (events, outbox entries, the consumed message
id) -> on conflict, reload and decide again; on duplicate, hand back the outbox
ids the first run wrote so they can be dispatched again.

Replies that are not tied to a game (help, "I did not understand", an illegal
move) are written to the sender's own outbox, keyed by the inbound message id.
Parsing and rendering go through :mod:`service.conversation_port`.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from spades.errors import GameOverError, RuleError
from spades.events import GameEnded, GameStarted, HandScored, HouseRules, from_dict, redact, to_dict
from spades.game import Game, decide, fold, new_game, view

from chat import parse as chat_parse

from . import conversation_port as port
from .lifecycle import hooks as lifecycle
from .lifecycle import optout, routing, summaries
from .context import Services
from .players import EMAIL, BadAddress, address_kind, parse_address, reply_address
from .store import game_owner, now_ms, player_owner

MAX_ATTEMPTS = 25


@dataclass
class Handled:
    """The outcome of handling one message: the outbox ids to dispatch and what happened."""

    outbox_ids: list[str] = field(default_factory=list)
    outcome: str = ""
    game_id: str | None = None


# ---------------------------------------------------------------------------------------
class GameCache:
    """Folded games kept per process, keyed by game id, with the last stream id folded in.

    An entry is taken out while in use (so two threads never share a ``Game``) and put back
    after a successful append; on conflict it is simply dropped.
    """

    def __init__(self, size: int = 2000) -> None:
        self._d: OrderedDict[str, tuple[Game, str]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, svc: Services, game_id: str) -> tuple[Game, str]:
        with self._lock:
            entry = self._d.pop(game_id, None)
        game, sid = entry if entry else (Game(), "")
        for se in svc.store.load(game_id, after=sid or None):
            game.apply(from_dict(se.event))
            sid = se.stream_id
        return game, sid

    def put(self, game_id: str, game: Game, sid: str) -> None:
        with self._lock:
            self._d[game_id] = (game, sid)
            self._d.move_to_end(game_id)
            while len(self._d) > self.size:
                self._d.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()


CACHE = GameCache()


def _fault(svc: Services, point: str) -> None:
    """Tests only: ``SLOWSPADES_FAULT_HANG=<point>:<dir>`` hangs here once if ``<dir>/armed`` exists."""
    spec = svc.config.get("FAULT_HANG") or ""
    if not spec.startswith(point + ":"):
        return
    d = Path(spec.split(":", 1)[1])
    try:
        (d / "armed").unlink()
    except FileNotFoundError:
        return
    (d / f"reached-{os.getpid()}").write_text(point)
    time.sleep(3600)


# ---------------------------------------------------------------------------------------
def _outbound(svc: Services, address: str, rendered: port.Rendered, *, game_id: str | None = None,
              seat: int | None = None, meta: dict[str, str] | None = None,
              meta_updates: dict[str, str] | None = None, kind: str = "") -> dict[str, Any]:
    """An outbox entry for ``address`` (SMS or email); email entries carry threading headers."""
    channel = address_kind(address)
    entry: dict[str, Any] = {"channel": channel, "to": address, "body": rendered.text, "kind": kind}
    if game_id:
        entry["game"] = game_id
    if channel == EMAIL:
        domain = svc.config["MAIL_DOMAIN"]
        entry["subject"] = rendered.subject or "Slow Spades"
        entry["html"] = rendered.html
        entry["message_id"] = f"<{uuid.uuid4().hex}@{domain}>"
        if game_id is not None and seat is not None and meta is not None:
            token = meta.get(f"tok{seat}")
            if token:
                entry["reply_to"] = reply_address(token, domain)
            root = f"<game-{game_id}.{seat}@{domain}>"
            if meta.get(f"thr{seat}") or (meta_updates or {}).get(f"thr{seat}"):
                entry["in_reply_to"] = root
                entry["references"] = root
            else:
                entry["message_id"] = root
                if meta_updates is not None:
                    meta_updates[f"thr{seat}"] = "1"
    return entry


def _lang(svc: Services, address: str) -> str:
    rec = svc.players.get(address) or {}
    return rec.get("lang") or svc.config.get("LANG", "en")


def _reply(svc: Services, address: str, message_id: str, name: str, **ctx: Any) -> Handled:
    """A reply tied to no game, in the sender's own outbox, idempotent by message id."""
    rendered = port.render_message(name, _lang(svc, address), address_kind(address), **ctx)
    entry = _outbound(svc, address, rendered, kind=name)
    res = svc.store.append(player_owner(address), -1, message_id=message_id, outbox=[entry])
    return Handled(res.outbox_ids, name if res.ok else "duplicate", ctx.get("game_id"))


def _seat_of(meta: dict[str, str], address: str) -> int | None:
    for seat in (0, 1):
        if meta.get(f"seat{seat}") == address:
            return seat
    return None


def _missed_events(svc: Services, game_id: str, meta: dict[str, str], seats: list[int],
                   version_before: int) -> dict[int, list[Any]]:
    """For each seat, the stored events since the last message sent to it (``seen<seat>`` in the game's meta)."""
    counts = {seat: version_before - int(meta.get(f"seen{seat}", version_before)) for seat in seats}
    wanted = [seat for seat in seats if counts[seat] > 0]
    if not wanted:
        return {}
    key = "{g:" + game_id + "}:ev"
    pipe = svc.redis.pipeline(transaction=False)
    for seat in wanted:
        pipe.xrevrange(key, count=counts[seat])
    out = {}
    for seat, entries in zip(wanted, pipe.execute()):
        out[seat] = [from_dict(json.loads(fields[b"e"])) for _sid, fields in reversed(entries)]
    return out


def _game_messages(svc: Services, game_id: str, meta: dict[str, str], game: Game, events: list[Any],
                   meta_updates: dict[str, str], everyone: bool = False) -> list[dict[str, Any]]:
    """The messages new ``events`` cause: to whoever must move now, and to both at a start, score or end.

    Each message tells its player everything that happened since the last message they were sent
    (a per-seat cursor ``seen<seat>`` in the game's meta), so news accumulate for a waiting player.
    """
    both = everyone or any(isinstance(e, (GameStarted, HandScored, GameEnded)) for e in events)
    seats = [seat for seat in (0, 1) if both or game.to_move == seat]
    langs = svc.players.langs([meta[f"seat{seat}"] for seat in seats], svc.config.get("LANG", "en"))
    missed = _missed_events(svc, game_id, meta, seats, game.version - len(events))
    out = []
    for seat, lang in zip(seats, langs):
        v = view(game, seat)
        address = meta[f"seat{seat}"]
        if not optout.may_send(svc, address):  # the computer, or a number that sent STOP
            continue
        seen = [d for d in (redact(e, seat) for e in missed.get(seat, []) + list(events)) if d is not None]
        meta_updates[f"seen{seat}"] = str(game.version)
        rendered = port.render_message("update", lang, address_kind(address),
                                       view=v, events=seen, game_id=game_id)
        out.append(_outbound(svc, address, rendered, game_id=game_id, seat=seat, meta=meta,
                             meta_updates=meta_updates, kind="update"))
    # the hand / game summary first, so the prompt to reply to is the latest message
    return summaries.entries(svc, game_id, meta, events, meta_updates) + out


def game_id_for(message_id: str) -> str:
    """The id of the game a ``NEW`` message creates: derived from the message, so a retry makes the same."""
    return hashlib.sha256(message_id.encode()).hexdigest()[:12]


# ---------------------------------------------------------------------------------------
def handle_inbound(svc: Services, message_id: str,
                   before_append: Callable[[int], None] | None = None) -> Handled:
    """Handle a recorded inbound message (``in:<message_id>``) once; see the module docstring."""
    msg = svc.store.inbound(message_id)
    if msg is None:
        return Handled([], "missing")
    sender = msg["from"]
    done = svc.store.consumed(player_owner(sender), message_id)
    if done is not None:
        return Handled(done, "duplicate")
    record = svc.players.ensure(sender, svc.config.get("LANG", "en"))
    intent = port.parse_text(msg.get("body", ""), record.get("lang") or svc.config.get("LANG", "en"))

    token_game: str | None = None
    if msg.get("token"):
        found = svc.players.reply_token(msg["token"])
        if found is None or found[1] != sender:
            return Handled([], "ignored")
        meta = svc.store.meta(found[0])
        seat = _seat_of(meta, sender)
        if seat is None or meta.get(f"tok{seat}") != msg["token"]:
            return Handled([], "ignored")
        token_game = found[0]

    said = chat_parse(msg.get("body", ""), _lang(svc, sender))
    lc = lifecycle.handle_intent(svc, message_id, sender, said, token_game, before_append)
    if lc is not None:  # NEW YES NO GAMES REMIND PAUSE TZ AUTO CLAIM REMATCH RESIGN STOP START (service.lifecycle)
        return Handled(lc.outbox_ids, lc.outcome, lc.game_id)
    if said.game is not None:  # "#2 QH": the parser below reads the move without its game number
        intent = port.parse_text(msg.get("body", "").strip().split(None, 1)[-1], _lang(svc, sender))

    if intent.kind == port.NEW:
        return _invite(svc, message_id, sender, intent)
    if intent.kind == port.ACCEPT:
        gid = token_game or _find_game(svc, sender, ("invited",), seat=1)
        if gid is None:
            return _reply(svc, sender, message_id, "no_invite")
        return _accept(svc, message_id, sender, gid)
    if intent.kind == port.HELP:
        return _reply(svc, sender, message_id, "help")
    if intent.kind not in (port.MOVE, port.RESIGN, port.STATUS):  # unknown, or a word handled elsewhere
        return _reply(svc, sender, message_id, "not_understood", text=intent.text, error=intent.error)
    gid = token_game or routing.resolve(svc, sender, said.game).game_id
    if gid is None:
        name = "no_game" if svc.players.games(sender) else "welcome"
        return _reply(svc, sender, message_id, name)
    if intent.kind == port.STATUS:
        meta = svc.store.meta(gid)
        seat = _seat_of(meta, sender)
        if seat is None or meta.get("status") not in ("active", "over"):
            return Handled([], "ignored")
        game, sid = CACHE.take(svc, gid)
        CACHE.put(gid, game, sid)
        return _reply(svc, sender, message_id, "status", view=view(game, seat), game_id=gid)
    return _decide_loop(svc, message_id, sender, gid, intent, before_append)


def _find_game(svc: Services, address: str, statuses: tuple[str, ...], seat: int | None = None) -> str | None:
    """The newest game of ``address`` whose status is one of ``statuses`` (and where they sit at ``seat``)."""
    for gid in svc.players.games(address)[:50]:
        meta = svc.store.meta(gid)
        s = _seat_of(meta, address)
        if s is not None and meta.get("status") in statuses and (seat is None or s == seat):
            return gid
    return None


def _invite(svc: Services, message_id: str, sender: str, intent: port.Intent) -> Handled:
    try:
        opponent = parse_address(intent.address, svc.config.get("DEFAULT_REGION", "US")).value
    except BadAddress:
        return _reply(svc, sender, message_id, "bad_address", text=intent.address)
    if opponent == sender:
        return _reply(svc, sender, message_id, "bad_address", text=intent.address)
    gid = game_id_for(message_id)
    return create_game(svc, gid, sender, opponent, message_id, target=intent.number, start=False)


def create_game(svc: Services, game_id: str, seat0: str, seat1: str, message_id: str,
                target: int | None = None, start: bool = False) -> Handled:
    """Create a game between two addresses: an invitation (``start=False``) or a game under way at once.

    The address -> games index and email reply tokens are written before the append (harmless if it
    fails: readers check the game's own record), the game record and first messages by the append.
    """
    created = now_ms()
    lang0 = svc.config.get("LANG", "en")
    for address in (seat0, seat1):
        svc.players.ensure(address, lang0)
        svc.players.add_game(address, game_id, created)
    meta: dict[str, str] = {"seat0": seat0, "seat1": seat1, "status": "invited", "created": str(created),
                            "target": str(target or 500)}
    for seat, address in enumerate((seat0, seat1)):
        if address_kind(address) == EMAIL:
            meta[f"tok{seat}"] = svc.players.new_reply_token(game_id, address)
    if start:
        return _start(svc, message_id, game_id, meta, meta)
    updates = dict(meta)
    invite = port.render_message("invite", _lang(svc, seat1), address_kind(seat1), inviter=seat0,
                                 game_id=game_id, target=target or 500)
    sent = port.render_message("invite_sent", _lang(svc, seat0), address_kind(seat0), opponent=seat1,
                               game_id=game_id)
    outbox = [_outbound(svc, seat1, invite, game_id=game_id, seat=1, meta=meta, meta_updates=updates, kind="invite"),
              _outbound(svc, seat0, sent, game_id=game_id, seat=0, meta=meta, meta_updates=updates,
                        kind="invite_sent")]
    res = svc.store.append(game_owner(game_id), 0, [], message_id=message_id, outbox=outbox, meta=updates)
    return Handled(res.outbox_ids, "invited" if res.ok else "duplicate", game_id)


def _accept(svc: Services, message_id: str, sender: str, game_id: str) -> Handled:
    for _ in range(MAX_ATTEMPTS):
        done = svc.store.consumed(game_owner(game_id), message_id)
        if done is not None:
            return Handled(done, "duplicate", game_id)
        meta = svc.store.meta(game_id)
        if meta.get("status") != "invited":
            return _reply(svc, sender, message_id, "already_started", game_id=game_id)
        if _seat_of(meta, sender) != 1:
            return _reply(svc, sender, message_id, "no_invite")
        res = _start(svc, message_id, game_id, meta, {})
        if res.outcome != "conflict":
            return res
    raise RuntimeError(f"could not start game {game_id}")


def _start(svc: Services, message_id: str, game_id: str, meta: dict[str, str],
           updates: dict[str, str]) -> Handled:
    events = new_game(game_id, HouseRules(target=int(meta.get("target", 500))), svc.dealer(game_id, 0))
    game = fold(events)
    updates = dict(updates, status="active", started=str(now_ms()))
    outbox = _game_messages(svc, game_id, meta, game, events, updates, everyone=True)
    res = svc.store.append(game_owner(game_id), 0, [to_dict(e) for e in events], message_id=message_id,
                           outbox=outbox, meta=updates)
    if res.ok:
        CACHE.put(game_id, game, res.last_stream_id)
    return Handled(res.outbox_ids, "started" if res.ok else res.status, game_id)


def decide_intent(svc: Services, message_id: str, sender: str, game_id: str, said: Any,
                  before_append: Callable[[int], None] | None = None) -> Handled:
    """Decide ``said`` (a ``chat.Intent`` of the engine, e.g. a confirmed ``resign``) in ``game_id`` for ``sender``."""
    intent = port.Intent(port.RESIGN) if said.kind == "resign" else port.parse_text(said.text)
    return _decide_loop(svc, message_id, sender, game_id, intent, before_append)


def _decide_loop(svc: Services, message_id: str, sender: str, game_id: str, intent: port.Intent,
                 before_append: Callable[[int], None] | None) -> Handled:
    owner = game_owner(game_id)
    for _ in range(MAX_ATTEMPTS):
        done, meta = svc.store.consumed_and_meta(game_id, message_id)
        if done is not None:
            return Handled(done, "duplicate", game_id)
        seat = _seat_of(meta, sender)
        if seat is None:
            return Handled([], "ignored", game_id)  # a stranger: nothing changes, nothing is said
        if meta.get("status") == "over":
            return _reply(svc, sender, message_id, "game_over", game_id=game_id)
        game, sid = CACHE.take(svc, game_id)
        version = game.version
        try:
            events = decide(game, port.to_command(intent, seat, game.phase), svc.dealer(game_id, version))
        except GameOverError:
            CACHE.put(game_id, game, sid)
            return _reply(svc, sender, message_id, "game_over", game_id=game_id)
        except RuleError as exc:
            CACHE.put(game_id, game, sid)
            return _reply(svc, sender, message_id, "illegal", error=exc.message, view=view(game, seat),
                          game_id=game_id)
        fold(events, game)  # the state after: the cached copy is dropped below unless the append succeeds
        updates: dict[str, str] = {}
        over = any(isinstance(e, GameEnded) for e in events)
        if over:
            updates.update(status="over", ended=str(now_ms()))
        outbox = _game_messages(svc, game_id, meta, game, events, updates)
        if before_append:
            before_append(version)
        _fault(svc, "before_append")
        res = svc.store.append(owner, version, [to_dict(e) for e in events], message_id=message_id,
                               outbox=outbox, meta=updates, ttl=int(svc.config["OUTBOX_TTL"]) if over else 0)
        if res.ok:
            CACHE.put(game_id, game, res.last_stream_id)
            _fault(svc, "after_append")
            if over:
                svc.store.archive(game_id)  # a finished game's log, compressed (store.Store.archive)
            return Handled(res.outbox_ids, "applied", game_id)
        if res.status == "duplicate":
            return Handled(res.outbox_ids, "duplicate", game_id)
        # conflict: someone appended first; the cached state is dropped, reload and decide again
    raise RuntimeError(f"gave up on {message_id} after {MAX_ATTEMPTS} conflicts on game {game_id}")


"""The application handler: one inbound message -> events + outbound messages, appended once.

:func:`handle_inbound` reads the message with ``chat.parse`` (through
:mod:`service.conversation_port`), lets the lifecycle take its own words first
(``NEW YES NO GAMES REMIND PAUSE TZ AUTO CLAIM REMATCH RESIGN STOP START``,
:mod:`service.lifecycle.hooks`), answers the words that change no game
(``HELP RULES HAND SCORE LANG DN ON/OFF``), and decides moves in the game the
message is for (an email's reply address, ``#N``, else the game last prompted:
:mod:`service.lifecycle.routing`).

The decide loop: load the game (a per-process cache keeps the folded state and
reads only the events it has not seen) -> ``spades.game.decide`` -> the
service's own ``DRAW`` for a player to move who said ``DN OFF`` -> the messages
(:func:`turn_messages`) -> one Lua append with the expected version (events,
outbox entries, the per-seat cursors, the consumed message id) -> on conflict,
reload and decide again; on duplicate, hand back the outbox ids the first run
wrote so they can be dispatched again.

Messages after each decided command, for both seats (``chat.simulate`` is the
reference): the hand / game summary of :mod:`service.lifecycle.summaries` when a
hand or the game ended, then ``chat.message_for`` with the redacted events since
the last message sent to that seat (cursor ``seen<seat>`` in the game's meta: the
game version of that message), news the summary already told left out. A seat
that gets nothing keeps its cursor, so news accumulate. Unknown text or an
illegal move gets ``chat.explain_error`` in the sender's own outbox (keyed by the
inbound message id) and no event.
"""

from __future__ import annotations

import contextvars
import json
import os
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from chat import Intent
from chat.languages import language_for_address
from chat.messages import context as chat_context
from spades.commands import DeclineDoubleNil
from spades.errors import GameOverError, RuleError
from spades.events import Event, GameEnded, HouseRules, from_dict, redact, to_dict
from spades.game import Game, decide, fold, view

from . import clock, email_identity  # email_identity: issue 15
from . import conversation_port as port
from .context import Services
from .lifecycle import gateway, invitations, keys, reminders, routing, summaries
from .lifecycle import hooks as lifecycle
from .players import EMAIL, address_kind, reply_address
from .store import game_owner, now_ms, owner_keys, player_owner

MAX_ATTEMPTS = 25


@dataclass
class Handled:
    """The outcome of handling one message: the outbox ids to dispatch and what happened.

    After a move applied, also what the lifecycle needs next (so it reads nothing again): the game's
    state, its meta as written, its life hash and the time as read, and who was told about the game."""

    outbox_ids: list[str] = field(default_factory=list)
    outcome: str = ""
    game_id: str | None = None
    after: "AfterMove | None" = None


@dataclass(frozen=True)
class AfterMove:
    """A game as the handler left it after an append: for :func:`service.lifecycle.hooks.after_handled`."""

    game: lifecycle.TurnState
    meta: dict[str, str]
    life: dict[str, str]
    now_ms: int
    told: tuple[str, ...]  # the recipients of its messages
    renote: tuple[str, ...] = ()  # those of them whose last prompted game was another (routing.note_prompted)
    recorded: tuple[int, str, str] | None = None  # the turn's record, written with the append (AppendResult.turn)
    # with ``send_now``, its messages are written claimed for the caller: those to send (with their
    # ids), and the ids of those not to (to the computer, or to a number that sent STOP, as read)
    claimed: tuple[dict[str, Any], ...] = ()
    unsendable: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------
class GameCache:
    """Folded games kept per process, keyed by game id, with the last stream id folded in and the
    game's newest events (``RECENT``: the news of a seat a little behind, without reading them).

    An entry is taken out while in use (so two threads never share a ``Game``) and put back
    after a successful append; on conflict it is simply dropped. Taking one sets
    :data:`RECENT_READ` (for this thread) to its newest events.
    """

    def __init__(self, size: int = 2000) -> None:
        self._d: OrderedDict[str, tuple[Game, str, tuple[Event, ...]]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, svc: Services, game_id: str) -> tuple[Game, str]:
        pipe = svc.redis.pipeline(transaction=False)
        finish = self.take_queued(svc, game_id, pipe)
        return finish(pipe.execute())

    def take_queued(self, svc: Services, game_id: str,
                    pipe: Any) -> Callable[[list[Any]], tuple[Game, str]]:
        """:meth:`take` with its reads queued on ``pipe``; call the result with those two replies."""
        with self._lock:
            entry = self._d.pop(game_id, None)
        game, sid, recent = entry if entry else (Game(), "", ())
        svc.store.queue_load(pipe, game_id, sid or None)

        def finish(replies: list[Any]) -> tuple[Game, str]:
            nonlocal sid
            new = []
            for se in svc.store.loaded(game_id, sid or None, replies):
                event = from_dict(se.event)
                game.apply(event)
                new.append(event)
                sid = se.stream_id
            RECENT_READ.set((game_id, game.version, (*recent, *new)[-RECENT:]))
            return game, sid

        return finish

    def put(self, game_id: str, game: Game, sid: str, appended: list[Event] | tuple[Event, ...] = ()) -> None:
        """Put a game back (``appended``: the events the caller folded on and appended since taking it)."""
        gid, version, recent = RECENT_READ.get()
        known = (*recent, *appended)[-RECENT:] if gid == game_id and version + len(appended) == game.version else ()
        with self._lock:
            self._d[game_id] = (game, sid, known)
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
        entry["html"] = rendered.html or ""
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


def default_lang(svc: Services, address: str) -> str:
    """A new player's language: from their phone number's country (``chat.languages``), or the configured default."""
    configured = svc.config.get("LANG", "en")
    return language_for_address(address) if configured == "en" else configured


def _reply(svc: Services, address: str, message_id: str, rendered: port.Rendered, kind: str,
           outcome: str | None = None, game_id: str | None = None) -> Handled:
    """A reply tied to no game, in the sender's own outbox, idempotent by message id."""
    entry = _outbound(svc, address, rendered, kind=kind)
    res = svc.store.append(player_owner(address), -1, message_id=message_id, outbox=[entry])
    return Handled(res.outbox_ids, (outcome or kind) if res.ok else "duplicate", game_id)


class SeatCache:
    """The addresses of a game's seats per process (they never change once the game is under way), so the
    players' records can be read in the same round trip as the game's meta; checked against the meta read."""

    def __init__(self, size: int = 20000) -> None:
        self._d: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self._by_address: OrderedDict[str, str] = OrderedDict()  # the game each address was last seen in
        self._lock = threading.Lock()
        self.size = size

    def get(self, game_id: str) -> tuple[str, str] | None:
        with self._lock:
            return self._d.get(game_id)

    def game_of(self, address: str) -> str | None:
        """A guess at the player's last prompted game: the game this process last saw them in."""
        with self._lock:
            return self._by_address.get(address)

    def note(self, game_id: str, meta: dict[str, str]) -> None:
        if meta.get("status") not in ("active", "over"):
            return
        seats = (meta.get("seat0", ""), meta.get("seat1", ""))
        with self._lock:
            self._d[game_id] = seats
            while len(self._d) > self.size:
                self._d.popitem(last=False)
            for address in seats:
                if address and not keys.is_bot(address):
                    self._by_address[address] = game_id
                    self._by_address.move_to_end(address)
            while len(self._by_address) > 2 * self.size:
                self._by_address.popitem(last=False)


SEATS = SeatCache()


def _seats(meta: dict[str, str]) -> list[str]:
    return [meta.get("seat0", ""), meta.get("seat1", "")]


def _info(infos: dict[str, gateway.PlayerInfo], address: str) -> gateway.PlayerInfo:
    return infos.get(address) or gateway.PlayerInfo(address, {}, {}, {}, [])


RECENT = 12
# (game id, version, the newest events up to that version, oldest first): a stream's first
# ``version`` entries never change, so these stand for versions ``version - len`` .. ``version - 1``
RECENT_READ: contextvars.ContextVar[tuple[str, int, tuple[Event, ...]]] = contextvars.ContextVar(
    "recent", default=("", -1, ()))


def _stored_since(svc: Services, game_id: str, since: int, before: int) -> list[Event]:
    """The stored events of versions ``since`` .. ``before - 1`` (the newest of the stream)."""
    if before <= since:
        return []
    gid, version, recent = RECENT_READ.get()
    if gid == game_id and version == before and before - since <= len(recent):  # kept with the game's state (GameCache)
        return list(recent[len(recent) - (before - since):])
    entries = svc.redis.xrevrange(owner_keys(game_owner(game_id))["ev"], count=before - since)
    return [from_dict(json.loads(fields[b"e"])) for _sid, fields in reversed(entries)]


def _auto_draws(svc: Services, game_id: str, meta: dict[str, str], game: Game,
                infos: dict[str, gateway.PlayerInfo]) -> list[Event]:
    """``DN OFF``: the service answers DRAW for a player offered double nil (``game`` is folded on)."""
    out: list[Event] = []
    while game.phase != "over" and game.to_move is not None:
        seat = game.to_move
        address = meta.get(f"seat{seat}", "")
        if keys.is_bot(address) or not view(game, seat).double_nil_offer or _info(infos, address).flag("dn", True):
            break
        new = decide(game, DeclineDoubleNil(seat), svc.dealer(game_id, game.version))
        fold(new, game)
        out += new
    return out


_HAND_ENDS = ("hand_scored", "game_ended")


def turn_messages(svc: Services, game_id: str, meta: dict[str, str], game: Game, events: list[Event],
                  updates: dict[str, str], everyone: bool = False,
                  infos: dict[str, gateway.PlayerInfo] | None = None) -> tuple[list[Event], list[dict[str, Any]]]:
    """The events to append (``events`` plus the service's own DRAWs) and the messages they cause.

    ``game`` is the state after ``events`` (folded on further here); ``updates`` receives the
    meta fields to write with the append (the cursors ``seen<seat>``, email threading).
    ``everyone``: a game that just started (the waiting player is told too). ``infos``: the
    seats' :class:`gateway.PlayerInfo` if the caller read them already (else read here, in one
    round trip).
    """
    if infos is None:
        infos = gateway.players_info(svc, _seats(meta))
    events = list(events) + _auto_draws(svc, game_id, meta, game, infos)
    before = game.version - len(events)
    # the end of a hand: the lifecycle's summary (bids, tricks, points, bags, who draws next), to both
    outbox = summaries.entries(svc, game_id, meta, events, updates)
    summarised = {e["to"] for e in outbox}
    sendable = [seat for seat in (0, 1) if _info(infos, meta.get(f"seat{seat}", "")).may_send]
    gateway.resolve_labels(svc, [_info(infos, meta.get(f"seat{seat}", "")) for seat in sendable], game_id)
    sinces = {seat: min(int(meta.get(f"seen{seat}", before)), before) for seat in sendable}
    first = min(sinces.values(), default=before)
    stored = _stored_since(svc, game_id, first, before)  # one read for both seats
    for seat in sendable:  # not the computer, nor a number that sent STOP
        address = meta.get(f"seat{seat}", "")
        info = _info(infos, address)
        since = sinces[seat]
        news = [d for d in (redact(e, seat) for e in stored[since - first:] + events)
                if d is not None]
        if address in summarised:  # the summary told the hand's result: the prompt does not repeat it
            ends = [i for i, d in enumerate(news) if d.get("type") in _HAND_ENDS]
            news = news[ends[-1] + 1:] if ends else news
        lang, channel = info.lang, address_kind(address)
        opp = _info(infos, meta.get(f"seat{1 - seat}", "")).name
        label = info.labels[game_id]
        rendered = port.turn_message(view(game, seat), lang, channel, news, opp, label)
        if rendered is None and everyone:
            rendered = port.render_message("game_started", lang, channel, label=(label + " ").lstrip(), opp=opp,
                                           first="me" if game.first_player == seat else "opp",
                                           target=game.rules.target)
        if rendered is not None:
            outbox.append(_outbound(svc, address, rendered, game_id=game_id, seat=seat, meta=meta,
                                    meta_updates=updates, kind="update"))
        if rendered is not None or address in summarised:
            updates[f"seen{seat}"] = str(game.version)
    return events, outbox


def game_id_for(message_id: str) -> str:
    """The id of the game a ``NEW`` message creates: derived from the message, so a retry makes the same."""
    return invitations.game_id_for(message_id)


# ---------------------------------------------------------------------------------------
def handle_inbound(svc: Services, message_id: str, sender: str,
                   before_append: Callable[[int], None] | None = None, send_now: bool = False) -> Handled:
    """Handle a recorded inbound message of ``sender`` once; see the module docstring.

    ``send_now``: the caller sends a move's messages itself right after (the local outbox): they are
    written claimed for it (``Store.append(claimed=True)``) and handed back in ``Handled.after.claimed``."""
    owner = player_owner(sender)
    pk = owner_keys(owner)
    # one round trip: the message, whether it was consumed, the player's record and life, and, if this
    # process saw the player in a game before (likely the one the message is for), that game as a move
    # needs it (the player's record and life among its seats')
    pipe = svc.redis.pipeline(transaction=False)
    read_msg = svc.store.queue_inbound(pipe, sender, message_id, claims=False)
    pipe.hget(pk["consumed"], message_id)
    guess = SEATS.game_of(sender)
    seated = guess is not None and sender in (SEATS.get(guess) or ())
    if not seated:
        pipe.hgetall(pk["meta"])
        pipe.hgetall(keys.player_life(sender))
    prefetch = _queue_read_for_decide(svc, guess, message_id, pipe) if guess else None
    replies = pipe.execute()
    pre = prefetch(replies) if prefetch else None
    try:
        msg = read_msg(replies)
        if msg is None:  # handled already (its claim is left: a task delivered again, say), or unknown
            return Handled([], "duplicate" if svc.store.inbound(sender, message_id) else "missing")
        mine = pre.infos.get(sender) if pre is not None and seated else None
        if mine is not None:
            record, life = mine.record, mine.life
        else:  # not read with the game (or its seats changed since this process saw them): read here
            raw_record, raw_life = replies[2:4] if not seated else svc.redis.pipeline(transaction=False).hgetall(
                pk["meta"]).hgetall(keys.player_life(sender)).execute()
            record, life = {_s(a): _s(b) for a, b in raw_record.items()}, {_s(a): _s(b) for a, b in raw_life.items()}
        return _handle(svc, message_id, sender, msg, replies[1], record, dict(life), pre, before_append, send_now)
    finally:
        if pre is not None and guess is not None and not pre.used:
            CACHE.put(guess, *pre.state)  # not used for a move: back where it was taken from


def _handle(svc: Services, message_id: str, sender: str, msg: dict[str, str], raw_done: Any,
            record: dict[str, str], life: dict[str, str], pre: "_DecideRead | None",
            before_append: Callable[[int], None] | None, send_now: bool) -> Handled:
    owner = player_owner(sender)
    if raw_done is not None:
        return Handled([f"{owner}#{n}" for n in _s(raw_done).split(",") if n], "duplicate")
    if "kind" not in record or "lang" not in record:
        record = svc.players.ensure(sender, default_lang(svc, sender))
    lang = record.get("lang") or default_lang(svc, sender)
    channel = address_kind(sender)

    token_game: str | None = None
    if msg.get("token"):
        found = svc.players.reply_token(msg["token"])
        if found is None or found[1] != sender:
            return Handled([], "ignored")
        meta = svc.store.meta(found[0])
        seat = gateway.seat_of(meta, sender)
        if seat is None or meta.get(f"tok{seat}") != msg["token"]:
            return Handled([], "ignored")
        token_game = found[0]

    said = port.parse_text(msg.get("body", ""), lang, channel)
    lc = lifecycle.handle_intent(svc, message_id, sender, said, token_game, before_append)
    if lc is not None:  # NEW YES NO GAMES REMIND PAUSE TZ AUTO CLAIM REMATCH RESIGN STOP START (service.lifecycle)
        return Handled(lc.outbox_ids, lc.outcome, lc.game_id)

    kind = said.kind
    if kind == "help":
        return _reply(svc, sender, message_id, port.render_message("help", lang, channel), "help")
    if kind == "lang" and said.arg:
        svc.redis.hset(owner_keys(player_owner(sender))["meta"], "lang", said.arg)
        return _reply(svc, sender, message_id, port.render_message("lang_set", said.arg, channel), "lang_set")
    if kind == "dn_setting":
        reminders.set_flag(svc, sender, "dn", bool(said.flag))
        return _reply(svc, sender, message_id,
                      port.render_message("setting", lang, channel, setting="dn", value=bool(said.flag)), "setting")
    if kind in ("yes", "no"):  # nothing waits for a YES or NO from this player
        out = gateway.reply(svc, sender, message_id, "no_invitation")
        return Handled(out.outbox_ids, out.outcome)

    last = life.get("last", "")
    last_meta = pre.meta if pre is not None and pre.game_id == last else None
    target = (routing.Target(token_game, "token") if token_game
              else routing.resolve(svc, sender, said.game, last=last, last_meta=last_meta))
    gid = target.game_id
    if kind == "rules":
        rules = invitations.rules_of(svc.store.meta(gid)) if gid else HouseRules()
        url = svc.config.get("RULES_URL") or f"{svc.config['PUBLIC_BASE_URL']}/rules"
        return _reply(svc, sender, message_id,
                      port.render_message("rules", lang, channel, url=url, target=rules.target), "rules")
    if gid is None:
        if said.is_unknown:
            return _reply(svc, sender, message_id, port.error_message(said, None, lang, channel), "error",
                          "not_understood")
        if said.game is not None:
            out = gateway.reply(svc, sender, message_id, "no_such_game", number=said.game)
            return Handled(out.outbox_ids, "no_game")
        return _reply(svc, sender, message_id, port.render_message("help", lang, channel), "help", "no_game")

    meta = target.meta if target.meta is not None else svc.store.meta(gid)
    seat = gateway.seat_of(meta, sender)
    if seat is None:
        return Handled([], "ignored", gid)  # a stranger: nothing changes, nothing is said
    if said.is_unknown or kind in ("hand", "score") or meta.get("status") not in ("active", "over"):
        game = gateway.load_game(svc, gid)
        v = view(game, seat) if game.version else None
        opp = gateway.name_of(svc, meta.get(f"seat{1 - seat}", ""))
        label = routing.label(svc, sender, gid)
        if said.is_unknown or v is None:
            return _reply(svc, sender, message_id, port.error_message(said, v, lang, channel, opp, label), "error",
                          "not_understood", gid)
        if kind == "score":
            rendered = port.render_message("score", lang, channel, **chat_context(v, None, opp, label, channel))
            return _reply(svc, sender, message_id, rendered, "score", game_id=gid)
        return _reply(svc, sender, message_id, port.resend(v, lang, channel, opp, label), "status", game_id=gid)
    if not email_identity.move_allowed(channel, token_game):  # issue 15: an email move only to its reply address
        out = gateway.reply(svc, sender, message_id, "email_move_needs_reply_address")
        return Handled(out.outbox_ids, "refused", gid)
    return _decide_loop(svc, message_id, sender, gid, said, before_append,
                        pre if pre is not None and pre.game_id == gid else None, send_now)


def create_game(svc: Services, game_id: str, seat0: str, seat1: str, message_id: str,
                target: int | None = None, start: bool = True) -> Handled:
    """A game between two addresses under way at once (tests, the load benchmark); ``start=False``: an
    invitation from ``seat0`` instead (its id then comes from ``message_id``, as for ``NEW``)."""
    rules = HouseRules(target=target or 500)
    if not start:
        out = invitations.invite(svc, message_id, seat0, seat1, rules)
        return Handled(out.outbox_ids, out.outcome, out.game_id)
    meta = invitations.new_meta(svc, game_id, seat0, seat1, rules, clock.now_ms(svc.redis))
    out = invitations.start(svc, message_id, game_id, meta, dict(meta))
    return Handled(out.outbox_ids, out.outcome, game_id)


def decide_intent(svc: Services, message_id: str, sender: str, game_id: str, said: Intent,
                  before_append: Callable[[int], None] | None = None) -> Handled:
    """Decide ``said`` (a ``chat.Intent`` of the engine, e.g. a confirmed ``resign``) in ``game_id`` for ``sender``."""
    return _decide_loop(svc, message_id, sender, game_id, said, before_append)


@dataclass
class _DecideRead:
    """What a move in a game needs, as read in one round trip (see :func:`_queue_read_for_decide`)."""

    game_id: str
    done: list[str] | None  # the outbox ids the message caused, if the game consumed it already
    meta: dict[str, str]
    infos: dict[str, gateway.PlayerInfo]
    state: tuple[Game, str]  # taken out of CACHE: put back, or dropped on conflict
    life: dict[str, str]
    now_ms: int
    used: bool = False


def _queue_read_for_decide(svc: Services, game_id: str, message_id: str,
                           pipe: Any) -> Callable[[list[Any]], _DecideRead]:
    """Queue on ``pipe`` the reads of a move in ``game_id``: whether it consumed the message, its meta,
    its players' records (once this process knows the game's seats, :class:`SeatCache`; else read
    afterwards), its state (:class:`GameCache`, with its newest events), its life hash and the clock.
    Call the result with all of ``pipe``'s replies."""
    owner = game_owner(game_id)
    k = owner_keys(owner)
    seats = SEATS.get(game_id)
    addresses = [a for a in seats if a and not keys.is_bot(a)] if seats else []
    start = len(pipe)
    pipe.hget(k["consumed"], message_id)
    pipe.hgetall(k["meta"])
    gateway.queue_players(pipe, addresses)
    finish = CACHE.take_queued(svc, game_id, pipe)
    pipe.hgetall(keys.game_life(game_id))
    pipe.get(clock.OFFSET_KEY)
    count = len(pipe) - start

    def parse(all_replies: list[Any]) -> _DecideRead:
        replies = all_replies[start:start + count]
        raw, meta_raw = replies[0], replies[1]
        n = 2 + len(addresses) * 4
        state = finish(replies[n:n + 2])
        raw_life, offset = replies[n + 2:n + 4]
        done = None if raw is None else [f"{owner}#{x}" for x in _s(raw).split(",") if x]
        meta = {_s(a): _s(b) for a, b in meta_raw.items()}
        if seats is not None and list(seats) == _seats(meta):
            infos = gateway.players_from(addresses, replies[2:n])
        else:
            infos = gateway.players_info(svc, _seats(meta))
        SEATS.note(game_id, meta)
        life = {_s(a): _s(b) for a, b in raw_life.items()}
        return _DecideRead(game_id, done, meta, infos, state, life, clock.now_ms_with(offset))

    return parse


def _read_for_decide(svc: Services, game_id: str, message_id: str) -> _DecideRead:
    pipe = svc.redis.pipeline(transaction=False)
    parse = _queue_read_for_decide(svc, game_id, message_id, pipe)
    return parse(pipe.execute())


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _decide_loop(svc: Services, message_id: str, sender: str, game_id: str, said: Intent,
                 before_append: Callable[[int], None] | None, pre: _DecideRead | None = None,
                 send_now: bool = False) -> Handled:
    owner = game_owner(game_id)
    channel = address_kind(sender)
    for _ in range(MAX_ATTEMPTS):
        if pre is not None:  # read with the message (handle_inbound)
            read, pre.used, pre = pre, True, None
        else:
            read = _read_for_decide(svc, game_id, message_id)
        done, meta, infos, (game, sid) = read.done, read.meta, read.infos, read.state
        if done is not None:
            CACHE.put(game_id, game, sid)
            return Handled(done, "duplicate", game_id)
        seat = gateway.seat_of(meta, sender)
        if seat is None:
            CACHE.put(game_id, game, sid)
            return Handled([], "ignored", game_id)  # a stranger: nothing changes, nothing is said
        me = _info(infos, sender)
        lang = me.lang
        opp = _info(infos, meta.get(f"seat{1 - seat}", "")).name
        gateway.resolve_labels(svc, [me], game_id)
        label = me.labels[game_id]
        version = game.version
        try:
            if meta.get("status") == "over":
                if meta.get("archived") and svc.store.consumed_in_archive(game_id, message_id):
                    CACHE.put(game_id, game, sid)  # a retry of a message whose consumed id was compacted away
                    return Handled([], "duplicate", game_id)
                raise GameOverError("the game is over")
            command = said.command(seat, game.phase)
            if command is None:
                raise ValueError(f"not a move: {said!r}")
            events = decide(game, command, svc.dealer(game_id, version))
        except GameOverError:
            CACHE.put(game_id, game, sid)
            return _reply(svc, sender, message_id, port.resend(view(game, seat), lang, channel, opp, label),
                          "game_over", game_id=game_id)
        except RuleError as exc:
            CACHE.put(game_id, game, sid)
            return _reply(svc, sender, message_id, port.error_message(exc, view(game, seat), lang, channel, opp, label),
                          "error", "illegal", game_id)
        fold(events, game)  # the state after: the cached copy is dropped below unless the append succeeds
        updates: dict[str, str] = {}
        events, outbox = turn_messages(svc, game_id, meta, game, events, updates, infos=infos)
        over = any(isinstance(e, GameEnded) for e in events)
        if over:
            updates.update(status="over", ended=str(now_ms()))
        if before_append:
            before_append(version)
        _fault(svc, "before_append")
        seat_to_move = "" if game.to_move is None or game.phase == "over" else str(game.to_move)
        res = svc.store.append(owner, version, [to_dict(e) for e in events], message_id=message_id,
                               outbox=outbox, meta=updates, ttl=int(svc.config["OUTBOX_TTL"]) if over else 0,
                               claimed=send_now, turn=(game.version, seat_to_move, read.now_ms))
        if res.ok:
            turn = lifecycle.TurnState.of(game)
            CACHE.put(game_id, game, res.last_stream_id, events)
            _fault(svc, "after_append")
            if over:
                svc.store.archive(game_id)  # a finished game's log, compressed (store.Store.archive)
            told = tuple(dict.fromkeys(e["to"] for e in outbox))
            renote = tuple(a for a in told if a not in infos or infos[a].life.get("last") != game_id)
            mine = list(zip(res.outbox_ids, outbox)) if send_now else []
            claimed = tuple(dict(e, id=oid) for oid, e in mine if e["to"] in infos and infos[e["to"]].may_send)
            unsendable = tuple(oid for oid, e in mine if not (e["to"] in infos and infos[e["to"]].may_send))
            return Handled(res.outbox_ids, "applied", game_id,
                           AfterMove(turn, {**meta, **updates}, read.life, read.now_ms, told, renote, res.turn,
                                     claimed, unsendable))
        if res.status == "duplicate":
            return Handled(res.outbox_ids, "duplicate", game_id)
        # conflict: someone appended first; the cached state is dropped, reload and decide again
    raise RuntimeError(f"gave up on {message_id} after {MAX_ATTEMPTS} conflicts on game {game_id}")

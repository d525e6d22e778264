"""The one way a game changes: :func:`apply` (read, decide, append with the expected version, retry on conflict).

Player moves, a confirmed ``RESIGN``, the computer's moves, ``AUTO`` moves, timeouts and claims all go
through it; what differs is the :class:`Mover` (:mod:`.moves`): which command to decide, and what to
answer when there is none or the engine refuses it.

A straight move: read -> decide -> compose -> write. The read is one call to the store (``Store.read_move``, one
round trip: :func:`read`, or with the message, :mod:`.message_read`) giving one flat record: the game's meta (with
its life fields: the turn, pauses, page marks), its players' records, the events after the state this process holds
(:class:`~service.caches.GameCache`) and the clock; :func:`move_read` folds them on the move's own copy of the game
(nothing is taken out of the cache, so nothing is put back). Then ``spades.game.decide``, the messages composed
from data (:func:`service.games.turns.turn_messages` over a :class:`~service.games.known.Known`: what the read
holds, and what :func:`~service.games.compose_read.read_for_compose` reads or makes before, only when the move
needs it; composing calls no gateway), and the write, one call (``Store.append_move``): one Lua append
(events, outbox entries, meta, the consumed message id, the new turn; at a hand's start and when its play begins,
the game's snapshot, ``spades.snapshot``) expecting the version decided against, after which the store itself
compresses the log before a new snapshot and compacts the outbox (``Store.keep_in_play``, twice a hand) or archives
a finished game. A successful append's game is kept as the newest in the cache (``GameCache.keep``). On conflict:
read and decide again; on duplicate (the append finds the message consumed, in the script that would consume it; a
message that changes nothing asks the game's consumed ids before it is answered): the outbox ids the first run
wrote, to dispatch again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from spades import snapshot
from spades.autoplay import autoplay
from spades.commands import Command
from spades.errors import GameOverError, RuleError
from spades.events import Event, GameEnded, HandStarted, to_dict
from spades.game import Game, decide, fold

from .. import metrics
from ..caches import GameCache, SeatCache, Taken
from ..context import Config, DealerFactory
from ..records import GameMeta
from ..store import Links, MoveRecords, Players, Reach, Store, now_ms
from . import ahead
from .compose_read import read_for_compose
from .outbox import recipient
from .players import PlayerInfo, info_of, players_from
from .presence import quiet_seats
from .result import AfterMove, Outcome, Result, TurnState, movers_field
from .seats import computer_at
from .turns import auto_draws, turn_messages

MAX_ATTEMPTS = 25


@dataclass
class MoveRead:
    """What a move in a game needs (:func:`move_read` of the store's :class:`~service.store.MoveRecords`): the
    game's meta, its players, its state (this move's own copy, to decide on) and the clock."""

    game_id: str
    meta: GameMeta
    infos: dict[str, PlayerInfo]
    taken: Taken  # the game as read: ``taken.game`` is this move's own (``GameCache.fold(private=True)``)
    life: GameMeta
    now_ms: int
    page: dict[int, int] = field(default_factory=dict)  # seat -> ms until which it is on its page (.presence)

    @property
    def game(self) -> Game:
        return self.taken.game


class Mover(Protocol):
    """Who moves and how: the command to decide (or the answer when there is none), and the answer when
    the engine refuses it."""

    def choose(self, read: MoveRead) -> Command | Result | ahead.PlanGiven: ...

    def refused(self, read: MoveRead, error: GameOverError | RuleError) -> Result: ...

    @property
    def by_message(self) -> bool:
        """A move the player sent by SMS, WhatsApp or email (not from their game page): they are no longer on
        the page, so its mark ends with the move (issue 45 case 3)."""
        ...


def move_read(config: Config, games: GameCache, seats: SeatCache, held: Taken | None, got: MoveRecords) -> MoveRead:
    """The :class:`MoveRead` of what the store read (``Store.read_move``) for a move in ``got.game_id``, whose state
    this process held as ``held`` (``GameCache.held``) when it asked: folded on a copy of its own."""
    taken = games.fold(got.game_id, held, got.snapshot, got.snapshot_sid, got.events, got.meta, private=True)
    seats.note(got.game_id, got.meta)
    infos = players_from(config, got.players)
    # the meta holds the game's life fields (the turn, pauses, page marks: keys.game_life)
    return MoveRead(got.game_id, got.meta, infos, taken, got.meta, got.now_ms, page=got.page)


def read(config: Config, store: Store, games: GameCache, seats: SeatCache, game_id: str) -> MoveRead:
    """What a move in ``game_id`` needs, in one call to the store (see the module docstring)."""
    held = games.held(game_id)
    got = store.read_move(game_id, seats=seats.get(game_id), after=held.sid if held is not None else None)
    return move_read(config, games, seats, held, got)


def apply(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          seats: SeatCache, dealer: DealerFactory, game_id: str, message_id: str, mover: Mover, *,
          pre: MoveRead | None = None, send_now: str = "") -> Result:
    """Decide ``mover``'s command in ``game_id`` and append it, once for ``message_id`` (see the module docstring).

    ``pre``: the game as read already (with the message, :mod:`service.inbound`).
    ``send_now``: the claim token of the caller's delivery attempt when it sends the move's messages itself
    right after (the local outbox; empty otherwise): they are written claimed with that token (``Store.append(claimed=token)``) and handed back in ``Result.after.claimed``.
    """
    for _ in range(MAX_ATTEMPTS):
        now = pre if pre is not None else read(config, store, games, seats, game_id)
        pre = None  # a conflict: read again
        taken, meta, infos = now.taken, now.meta, now.infos
        game = taken.game
        version = game.version
        try:
            choice = mover.choose(now)
            if isinstance(choice, Result):
                return _consumed_before(store, game_id, message_id) or choice
            movers_before, phase_before, trick = game.movers, game.phase, tuple(game.trick)
            if isinstance(choice, ahead.PlanGiven):  # a plan given (RULES D12), with a move or none
                given, command = choice, choice.command
            else:
                given, command = None, choice
            events = svc_decide(dealer, game_id, version, game, command) if command is not None else []
        except (GameOverError, RuleError) as exc:
            done = _consumed_before(store, game_id, message_id)  # before a refusal is written: a message applied
            if done is not None:                             # before and delivered again is no refusal
                return done
            metrics.move_refused(mover, exc)
            return mover.refused(now, exc)
        if command is not None:
            events += played_for(config, dealer, game_id, meta, infos, game)
        if game.phase == "draw":  # the service's own draws first: a planned bid may follow them
            events += auto_draws(config, dealer, game_id, meta, game, infos)
        chained = ahead.chain(game, meta, ahead.plans_of(meta), given, trick, events,
                              lambda g, c: svc_decide(dealer, game_id, g.version, g, c),
                              lambda g: played_for(config, dealer, game_id, meta, infos, g))
        events += chained.events
        updates: dict[str, str] = dict(chained.updates)
        actor = getattr(choice, "seat", None)
        outbox: list[dict[str, Any]] = []
        over = hand = False
        if events:  # (none: a plan given that covers no decision yet, written alone)
            quiet = quiet_seats(now.page, now.now_ms)
            if mover.by_message and actor in quiet:  # played by SMS after a glance at the page: answered by SMS
                quiet, updates[f"page{actor}"] = quiet - {actor}, "0"
            known = read_for_compose(config, store, players, reach, game_id, meta, game, events, infos, now.now_ms,
                                     recent=taken.recent, updates=updates, quiet=quiet)
            events, outbox = turn_messages(known, dealer, game, events, updates, actor=actor,  # compose: no gateway
                                           movers_before=movers_before, quiet=quiet, notes=chained.notes)
            over = any(isinstance(e, GameEnded) for e in events)
            if over:
                updates.update(status="over", ended=str(now_ms()))
            # a snapshot at each hand's start and when its play begins (the store then moves the log before it out)
            hand = not over and (any(isinstance(e, HandStarted) for e in events) or game.phase == "play" != phase_before)
        res = store.append_move(game_id, version, [to_dict(e) for e in events], message_id=message_id,
                                outbox=outbox, meta=updates, ttl=int(config.get("OUTBOX_TTL", 172800)) if over else 0,
                                claimed=send_now, turn=(game.version, movers_field(game), now.now_ms, actor) if events
                                else None, snapshot=snapshot.dump(game) if hand else None,
                                plans_version=meta.get(ahead.PV) or "0", plan_log=chained.log, finished=over)
        if res.status == "duplicate":
            return Result(res.outbox_ids, Outcome.DUPLICATE, game_id)
        if res.status == "ok" and not events:
            return Result(res.outbox_ids, Outcome.PLANNED, game_id)
        if res.status == "ok":
            games.keep(game_id, taken, res.last_stream_id, events)  # the newest state this process holds
            told = tuple(dict.fromkeys(e["to"] for e in outbox))
            homes = tuple(dict.fromkeys(recipient(e) for e in outbox))  # their homes (a linked address's player)
            prompted = {recipient(e) for e in outbox if e.get("kind") != "news"}  # news of one's own move prompt nothing
            renote = tuple(a for a in homes
                           if a in prompted and (a not in infos or infos[a].record.last != game_id))
            mine = list(zip(res.outbox_ids, outbox)) if send_now else []
            claimed = tuple(dict(e, id=oid) for oid, e in mine if _reaches(infos, e))
            unsendable = tuple(oid for oid, e in mine if not _reaches(infos, e))
            marks = {a: i.record["people"] for a, i in infos.items() if "people" in i.record}
            after = AfterMove(TurnState.of(game, actor), meta.updated(updates), now.life, now.now_ms, told, renote,
                              res.turn, claimed, unsendable, marks)
            metrics.move_applied(mover)
            return Result(res.outbox_ids, Outcome.APPLIED, game_id, after)
        # a conflict: someone appended first; read and decide again (the game cache holds the game as it was)
    raise RuntimeError(f"gave up on {message_id} after {MAX_ATTEMPTS} conflicts on game {game_id}")


def _consumed_before(store: Store, game_id: str, message_id: str) -> Result | None:
    """The duplicate's result if the game consumed ``message_id`` already (a task delivered again): the outbox
    ids it caused, to dispatch again. Read only when a message changes nothing (a refusal, an answer without a
    move): a move's own append finds a duplicate in the same script that would consume it (``HSETNX``), so the
    hot path reads nothing for it."""
    if not message_id:
        return None
    ids = store.game_consumed(game_id, message_id)
    return None if ids is None else Result(ids, Outcome.DUPLICATE, game_id)


def _reaches(infos: dict[str, PlayerInfo], entry: dict[str, Any]) -> bool:
    """Whether an entry's address may be sent to (its player read with the move; that address sent no STOP)."""
    who = recipient(entry)
    return who in infos and infos[who].reaches(entry["to"])


def played_for(config: Config, dealer: DealerFactory, game_id: str, meta: GameMeta, infos: dict[str, PlayerInfo],
               game: Game) -> list[Event]:
    """What plays itself after a decided move (``spades.autoplay``, folded on ``game``): the forced cards of
    the players with ``AUTOPLAY ON`` (the default; the computer's always), and the rest of a hand whose end
    is decided when no player said ``AUTOPLAY OFF`` (it plays both players' cards; issue 23 case 4). Appended with
    the move, so both are told of it in the same messages."""
    if game.phase != "play":
        return []
    forced = [computer_at(meta, s) or info_of(infos, meta.seats[s], config).flag(
        "autoplay", True) for s in (0, 1)]
    return autoplay(game, dealer(game_id, game.version), forced, finish=all(forced))


def svc_decide(dealer: DealerFactory, game_id: str, version: int, game: Game, command: Command) -> list[Event]:
    """``spades.game.decide`` with the game's dealer, folded on ``game`` (the cached copy is dropped unless
    the append succeeds)."""
    events = decide(game, command, dealer(game_id, version))
    fold(events, game)
    return events

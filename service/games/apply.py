"""The one way a game changes: :func:`apply` (read, decide, append with the expected version, retry on conflict).

Player moves, a confirmed ``RESIGN``, the computer's moves, ``AUTO`` moves, timeouts and claims all go
through it; what differs is the :class:`Mover` (:mod:`.moves`): which command to decide, and what to
answer when there is none or the engine refuses it.

One round trip reads what a move needs (:func:`queue_read`): its meta, its players (once this process knows its seats), its state (:class:`GameCache`, with
its newest events; its meta holds its life fields: the turn, pauses, page marks) and the clock. Then ``spades.game.decide``, the messages
(:func:`service.games.turns.turn_messages`), and one Lua append (events, outbox entries, meta, the
consumed message id, the new turn; at a hand's start and when its play begins, the game's snapshot,
``spades.snapshot``) expecting the version decided against; after a snapshot, the log before it is compressed
and the outbox compacted (``Store.keep_in_play``, two round trips twice a hand). On conflict: read and decide
again; on duplicate (the append finds the message consumed, in the script that would consume it; a message that
changes nothing asks the game's consumed ids before it is answered): the outbox ids the first run wrote, to dispatch
again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from spades import snapshot
from spades.autoplay import autoplay
from spades.commands import Command
from spades.errors import GameOverError, RuleError
from spades.events import Event, GameEnded, HandStarted, to_dict
from spades.game import Game, decide, fold

from .. import metrics
from ..addresses import is_bot
from ..caches import GameCache, SeatCache, Taken
from ..context import Config, DealerFactory
from ..records import GameMeta
from ..store import Batch, Links, Pipeline, Players, Reach, Store, game_owner, now_ms
from ..store.presence import presence_from
from . import ahead
from .outbox import recipient
from .players import PlayerInfo, info_of, players_from, players_info, queue_players
from .presence import quiet_seats
from .result import AfterMove, Outcome, Result, TurnState, movers_field
from .seats import computer_at
from .seats import seats as seat_addresses
from .turns import auto_draws, turn_messages

MAX_ATTEMPTS = 25


@dataclass
class MoveRead:
    """What a move in a game needs, as read in one round trip (:func:`queue_read`)."""

    game_id: str
    meta: GameMeta
    infos: dict[str, PlayerInfo]
    taken: Taken  # taken out of the game cache: put back, or dropped on conflict
    life: GameMeta
    now_ms: int
    used: bool = False
    page: dict[int, int] = field(default_factory=dict)  # seat -> ms until which it is on its page (.presence)


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


def queue_read(config: Config, store: Store, games: GameCache, seats: SeatCache, game_id: str, message_id: str,
               pipe: Pipeline) -> Callable[[list[Any]], MoveRead]:
    """Queue on ``pipe`` the reads of a move in ``game_id`` (see the module docstring); call the result with
    the replies of those reads (a :class:`~service.store.Batch` part's)."""
    known = seats.get(game_id)
    addresses = [a for a in known if a and not is_bot(a)] if known else []
    batch = Batch(pipe)
    with batch.part("players") as p:
        queue_players(store, p, addresses)
    with batch.part("game") as p:
        read_game = games.take_queued(game_id, p, with_meta=True)  # the meta read with it
    store.clock.add_now_ms(batch)

    def parse(replies: list[Any]) -> MoveRead:
        got = batch.results(replies)
        taken = read_game(got["game"])
        meta = taken.meta or GameMeta()
        if known is not None and list(known) == seat_addresses(meta):
            infos = players_from(config, addresses, got["players"])
        else:
            infos = players_info(config, store, seat_addresses(meta))
        seats.note(game_id, meta)
        # the meta holds the game's life fields (the turn, pauses, page marks: keys.game_life)
        return MoveRead(game_id, meta, infos, taken, meta, got["now_ms"], page=presence_from(meta))

    return parse


def read(config: Config, store: Store, games: GameCache, seats: SeatCache, game_id: str, message_id: str) -> MoveRead:
    pipe = store.pipeline()
    parse = queue_read(config, store, games, seats, game_id, message_id, pipe)
    return parse(pipe.execute())


def apply(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          seats: SeatCache, dealer: DealerFactory, game_id: str, message_id: str, mover: Mover, *,
          pre: MoveRead | None = None, send_now: str = "") -> Result:
    """Decide ``mover``'s command in ``game_id`` and append it, once for ``message_id`` (see the module docstring).

    ``pre``: the game as read already (with the message, :mod:`service.inbound`).
    ``send_now``: the claim token of the caller's delivery attempt when it sends the move's messages itself
    right after (the local outbox; empty otherwise): they are written claimed with that token (``Store.append(claimed=token)``) and handed back in ``Result.after.claimed``.
    """
    owner = game_owner(game_id)
    for _ in range(MAX_ATTEMPTS):
        if pre is not None:
            now, pre.used, pre = pre, True, None
        else:
            now = read(config, store, games, seats, game_id, message_id)
        taken, meta, infos = now.taken, now.meta, now.infos
        game = taken.game
        version = game.version
        try:
            choice = mover.choose(now)
            if isinstance(choice, Result):
                games.put(game_id, taken)
                return _consumed_before(store, game_id, message_id) or choice
            movers_before, phase_before, trick = game.movers, game.phase, tuple(game.trick)
            if isinstance(choice, ahead.PlanGiven):  # a plan given (RULES D12), with a move or none
                given, command = choice, choice.command
            else:
                given, command = None, choice
            events = svc_decide(dealer, game_id, version, game, command) if command is not None else []
        except (GameOverError, RuleError) as exc:
            games.put(game_id, taken)
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
        plan_log = chained.log
        updates: dict[str, str] = dict(chained.updates)
        actor = getattr(choice, "seat", None)
        if not events:  # a plan given that covers no decision yet: the plan alone is written
            res = store.append(owner, version, [], message_id=message_id, meta=updates,
                               plans_version=meta.get(ahead.PV) or "0", plan_log=plan_log)
            if res.ok:
                games.put(game_id, taken)
                return Result(res.outbox_ids, Outcome.PLANNED, game_id)
            if res.status == "duplicate":
                games.put(game_id, taken)
                return Result(res.outbox_ids, Outcome.DUPLICATE, game_id)
            continue  # a conflict: read and decide again
        quiet = quiet_seats(now.page, now.now_ms)
        if mover.by_message and actor in quiet:  # played by SMS after a glance at the page: answered by SMS
            quiet, updates[f"page{actor}"] = quiet - {actor}, "0"
        events, outbox = turn_messages(config, store, players, links, reach, dealer, game_id,
                                       meta, game, events, updates, infos=infos, recent=taken.recent,
                                       actor=actor, movers_before=movers_before, quiet=quiet, notes=chained.notes)
        over = any(isinstance(e, GameEnded) for e in events)
        if over:
            updates.update(status="over", ended=str(now_ms()))
        ttl = int(config.get("OUTBOX_TTL", 172800)) if over else 0
        # a snapshot at each hand's start and when its play begins (the log before it moved out, below)
        hand = not over and (any(isinstance(e, HandStarted) for e in events) or (game.phase == "play" != phase_before))
        res = store.append(owner, version, [to_dict(e) for e in events], message_id=message_id,
                           outbox=outbox, meta=updates, ttl=ttl, claimed=send_now,
                           turn=(game.version, movers_field(game), now.now_ms, actor),
                           snapshot=snapshot.dump(game) if hand else None,
                           plans_version=meta.get(ahead.PV) or "0", plan_log=plan_log)
        if res.ok:
            games.put(game_id, taken, res.last_stream_id, events)
            if over:  # a finished game's log, compressed (store.Store.archive)
                store.archive(game_id)
            elif hand:  # a new snapshot: the log before it compressed, the outbox compacted
                store.keep_in_play(game_id, res.last_stream_id, message_id)
            told = tuple(dict.fromkeys(e["to"] for e in outbox))
            homes = tuple(dict.fromkeys(recipient(e) for e in outbox))  # their homes (a linked address's player)
            prompted = {recipient(e) for e in outbox if e.get("kind") != "news"}  # news of one's own move prompt nothing
            renote = tuple(a for a in homes
                           if a in prompted and (a not in infos or infos[a].life.get("last") != game_id))
            mine = list(zip(res.outbox_ids, outbox)) if send_now else []
            claimed = tuple(dict(e, id=oid) for oid, e in mine if _reaches(infos, e))
            unsendable = tuple(oid for oid, e in mine if not _reaches(infos, e))
            marks = {a: i.record["people"] for a, i in infos.items() if "people" in i.record}
            after = AfterMove(TurnState.of(game, actor), meta.updated(updates), now.life, now.now_ms, told, renote,
                              res.turn, claimed, unsendable, marks)
            metrics.move_applied(mover)
            return Result(res.outbox_ids, Outcome.APPLIED, game_id, after)
        if res.status == "duplicate":
            return Result(res.outbox_ids, Outcome.DUPLICATE, game_id)
        # conflict: someone appended first; the cached state is dropped, read and decide again
    raise RuntimeError(f"gave up on {message_id} after {MAX_ATTEMPTS} conflicts on game {game_id}")


def _consumed_before(store: Store, game_id: str, message_id: str) -> Result | None:
    """The duplicate's result if the game consumed ``message_id`` already (a task delivered again): the outbox
    ids it caused, to dispatch again. Read only when a message changes nothing (a refusal, an answer without a
    move): a move's own append finds a duplicate in the same script that would consume it (``HSETNX``), so the
    hot path reads nothing for it."""
    if not message_id:
        return None
    ids = store.consumed(game_owner(game_id), message_id)
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
    forced = [computer_at(meta, s) or info_of(infos, meta.get(f"seat{s}", ""), config).flag(
        "autoplay", True) for s in (0, 1)]
    return autoplay(game, dealer(game_id, game.version), forced, finish=all(forced))


def svc_decide(dealer: DealerFactory, game_id: str, version: int, game: Game, command: Command) -> list[Event]:
    """``spades.game.decide`` with the game's dealer, folded on ``game`` (the cached copy is dropped unless
    the append succeeds)."""
    events = decide(game, command, dealer(game_id, version))
    fold(events, game)
    return events

"""What happens after a change is committed, in one place: the worker task and the beat both call here.

A change (a person's move from an inbound message, the computer's move, a due reminder, timeout, AUTO move or
invitation expiry) leaves outbox entries and perhaps a new turn. After it:

1. its messages are sent: inline into the local outbox when every channel is local (a Redis write, so they
   are there before anything later runs), else one ``deliver`` task each (:class:`Outlets.dispatch`);
2. each recipient's last prompted game is noted (``#N``-less replies go to it);
3. the new turn is recorded and scheduled: reminders and timeout, or the computer's move
   (:mod:`service.lifecycle.hooks`), and the computer's move is queued (:class:`Outlets.queue_bot`).

The steps decide; they do not write. What they leave to write (the entries settled, the message marked done, the
notes of 1., the items of 3.) is gathered as write intents (:mod:`service.store.after_phase`) and written by one
``Store.write``, one round trip, before the computer's move is queued.

:class:`Outlets` is how a process hands work on: the worker builds one from its Celery app
(``workers``); the tests build one that runs everything inline. Nothing here imports Celery.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import daily_cap, inbound, logs, metrics, receipts
from .addresses import is_bot
from .caches import GameCache, SeatCache
from .context import Config, DealerFactory
from .delivery import UNSENDABLE, WINDOW_CLOSED, all_local, deliver_local_many, local_delivery
from .games import presence
from .games.result import BotTurn
from .inbound import Handlers
from .lifecycle import bot, hooks, invitations, push_fallback, reminders, routing, settings, timeouts
from .records import GameMeta
from .store import InviteLinks, Links, Players, PushSubscriptions, Reach, Store, new_claim_token
from .store.after_phase import MarkInbound, SettleLocal, Write
from .store.due import AUTO, BOT, EXPIRY, REMINDER, RETRY_FAILED_MS, TIMEOUT, Item

log = logging.getLogger(__name__)
DELIVER = "workers.tasks.deliver"
HANDLE_INBOUND = "workers.tasks.handle_inbound"
BOT_MOVE = "workers.beat.bot_move"
RECEIPT = "workers.tasks.receipt"

SendTask = Callable[..., object]  # Celery's ``app.send_task(name, args=[...], countdown=...)``


@dataclass(frozen=True)
class Outlets:
    """How this process hands on what a change left: its outbox entries, and the computer's next move."""

    dispatch: Callable[[list[str]], None]
    queue_bot: Callable[[BotTurn], None]
    #: every channel goes to the local outbox: :func:`send_out` claims, notes and settles a change's messages itself,
    #: in two store calls (:func:`service.delivery.local_delivery`), rather than through :attr:`dispatch`
    local: bool = False


def celery_outlets(config: Config, store: Store, links: Links, push: PushSubscriptions, send_task: SendTask) -> Outlets:
    """The worker's outlets: entries inline into the local outbox when every channel is local (else a
    ``deliver`` task each); the computer's move a ``bot_move`` task ``BOT_DELAY`` seconds from now."""
    delay = float(settings.get(config, "BOT_DELAY"))

    def dispatch(ids: list[str]) -> None:
        if all_local(config, store, links, push):
            deliver_local_many(config, store, ids)
            return
        for oid in ids:
            send_task(DELIVER, args=[oid])

    def queue_bot(turn: BotTurn) -> None:
        send_task(BOT_MOVE, args=[turn.game_id, turn.seat, turn.version], countdown=delay)

    return Outlets(dispatch, queue_bot, all_local(config, store, links, push))


# -- after an inbound message -------------------------------------------------------------------
def handle_inbound(config: Config, store: Store, players: Players, links: Links, reach: Reach, push: PushSubscriptions,
                   invite_links: InviteLinks, games: GameCache, seats: SeatCache, dealer: DealerFactory,
                   handlers: Handlers, message_id: str, sender: str, send_task: SendTask) -> str:
    """Decide a recorded inbound message of ``sender``, then everything after it: its messages sent, the
    message marked done, the new turn scheduled, the computer's move queued. Returns the outcome.

    What follows the move is written at once: its messages settled (locally), the message marked done, the
    prompted games noted, the new turn's reminders and timeout, gathered as write intents
    (:mod:`service.store.after_phase`) and written in one store call, one round trip."""
    outlets = celery_outlets(config, store, links, push, send_task)
    local = outlets.local  # the local outbox is a Redis write: no need for a task per message
    attempt = new_claim_token()  # this handling's own claim on the entries it sends, never the message id
    result = inbound.handle_inbound(config, store, players, links, reach, invite_links, games, seats, dealer, handlers,
                                    message_id, sender, send_now=attempt if local else "")
    after = result.after
    claimed = list(after.claimed) if after else []  # a move's messages, born claimed for this handling
    unsendable = list(after.unsendable) if after else []
    closed = [e["id"] for e in claimed if e.get("window") == "closed"]  # WhatsApp that cannot go (service.channels)
    claimed = [e for e in claimed if e.get("window") != "closed"]
    mine = {e["id"] for e in claimed} | set(unsendable) | set(closed)
    rest = [oid for oid in result.outbox_ids if oid not in mine]
    writes: list[Write] = []  # the last writes, in one round trip: gathered below, written here
    capped: list[tuple[dict[str, Any], str]] = []
    if local:
        # counted toward the day's SMS and spend, and held past the caps, as when a provider sends them
        claimed, capped = daily_cap.split_sms(config, store, claimed, marks=after.people if after else None)
        refused = ([(e["id"], why) for e, why in capped] + [(oid, UNSENDABLE) for oid in unsendable]
                   + [(oid, WINDOW_CLOSED) for oid in closed])
        if claimed or refused:
            writes.append(SettleLocal(tuple(claimed), tuple(refused), attempt))
        if rest:  # any others (replies; a retry's): claimed and checked against STOP first
            writes += local_delivery(config, store, rest, after.told if after else (), by=attempt).writes
    else:
        for outbox_id in result.outbox_ids:
            send_task(DELIVER, args=[outbox_id])
    # the message done, the new turn's reminders and timeout; the computer's move queued after them
    if result.outcome != "missing":
        writes.append(MarkInbound(sender, message_id, "done"))
    turn = hooks.after_handled(config, store, games, result.game_id, result.outbox_ids, writes, after=after,
                               duplicate=result.outcome == "duplicate")
    store.write(writes)  # first: the messages it sends are in the local outbox before the computer's answer
    if turn is not None:  # (if this worker dies now, the beat makes the move: it is scheduled)
        outlets.queue_bot(turn)
    metrics.handled(str(result.outcome))
    logs.handled(message_id, sender, result.game_id, str(result.outcome))
    if local:
        metrics.settled_local(claimed, len(unsendable))
        if closed:
            metrics.settled_local([], len(closed), "window_closed")
        for _entry, why in capped:
            metrics.outbox("", "failed", daily_cap.held_code(why))
        logs.settled(claimed)
    return str(result.outcome)


# -- after the service's own moves and due work ---------------------------------------------------
def send_out(config: Config, store: Store, ids: list[str], outlets: Outlets, writes: Sequence[Write] = (),
             recipients: Iterable[str] = ()) -> None:
    """A change's messages: each recipient's prompted game noted, then sent; ``writes``: the change's own last
    writes (its new turn's items), written first, with the notes. With :attr:`Outlets.local`, in two store calls:
    one claims the messages and reads what their notes and checks need (the marks of ``recipients``, who they
    are likely to be, in the same round trip), one writes it all and settles them
    (:func:`service.delivery.local_delivery`); else the notes are read, written, and the messages dispatched."""
    routed = routing.routed(ids)
    if outlets.local and ids:
        done = local_delivery(config, store, ids, recipients, texts=routed)
        store.write([*writes, *routing.notes_of(done.texts.values()), *done.writes])
        return
    texts = store.outbox_texts(routed) if routed else {}
    store.write([*writes, *routing.notes_of(texts.values())])
    if ids:
        outlets.dispatch(ids)


def bot_move(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
             seats: SeatCache, dealer: DealerFactory, game_id: str, seat: int, version: int,
             outlets: Outlets) -> list[str]:
    """The computer's move at ``version`` (once; nothing if stale) and what follows it: its messages noted and
    sent with its new turn's items written (:func:`send_out`), then its next move queued if it is to move
    again. Returns its outbox ids (sent)."""
    out = bot.move(config, store, players, links, reach, games, seats, dealer, game_id, seat, version)
    writes: list[Write] = []
    turn = hooks.after_move(config, store, out, writes)
    meta = out.after.meta if out.after is not None else GameMeta()
    send_out(config, store, out.outbox_ids, outlets, writes,  # its messages go to the person it plays, likely
             [a for a in meta.seats if a and not is_bot(a)])
    if turn is not None:  # after its turn's items: if this worker dies now, the beat makes the move
        outlets.queue_bot(turn)
    return out.outbox_ids


Done = tuple[int | None, list[str]]  # a step's answer: a time in ms to try again (None: done), the outbox ids it left
#: a due item's step, its dependencies bound (:mod:`service.bootstrap`): the item, the time, the outlets
Step = Callable[[Item, int, Outlets], Done]
#: :data:`STEPS` bound, by kind
Steps = Mapping[str, Step]


def _alone(step: Callable[[Item, int], Done]) -> Step:
    """A step that hands nothing on itself (its messages are sent by :func:`act`)."""
    return lambda item, now_ms, _outlets: step(item, now_ms)


def auto_move(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
              seats: SeatCache, dealer: DealerFactory, item: Item, now_ms: int, outlets: Outlets) -> Done:
    """Reminders ran out: the computer moves for a player with AUTO ON; then the game's new turn scheduled and
    the computer's move queued if it is next."""
    out = timeouts.on_auto_due(config, store, players, links, reach, games, seats, dealer, item, now_ms)
    if store.meta(item.game_id).get("status") == "active":
        turn = hooks.after_game_change(config, store, item.game_id, games.load(item.game_id))
        if turn is not None:
            outlets.queue_bot(turn)
    return out


def computer_move(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                  seats: SeatCache, dealer: DealerFactory, item: Item, now_ms: int, outlets: Outlets) -> Done:
    """The computer's move (the backstop of its Celery task: :func:`bot_move`, which sends its messages)."""
    bot_move(config, store, players, links, reach, games, seats, dealer, item.game_id, item.seat, item.version, outlets)
    return None, []


#: what each kind of due item does (:mod:`service.store.due`): a reminder, the turn's timeout (the waiting player
#: may CLAIM), an AUTO move, the computer's move, an invitation's expiry, a player back from their game page (the
#: prompt they owe, by their channel)
#: (each a function of the dependencies it names, the item and the time, and the outlets unless it is ALONE)
STEPS: dict[str, Callable[..., Done]] = {
    REMINDER: reminders.send_reminder, TIMEOUT: timeouts.on_timeout_due, AUTO: auto_move, BOT: computer_move,
    EXPIRY: invitations.on_expiry_due, presence.BACK: presence.back_from_page,
    push_fallback.KIND: push_fallback.on_due}  # a prompt by push not seen
#: the steps that hand nothing on themselves (no outlets)
ALONE = frozenset({REMINDER, TIMEOUT, EXPIRY, presence.BACK, push_fallback.KIND})


def bound_steps(bind: Callable[[Callable[..., Done]], Callable[..., Done]]) -> Steps:
    """:data:`STEPS` with their dependencies bound by ``bind`` (:func:`service.bootstrap.inject`)."""
    return {kind: _alone(bind(fn)) if kind in ALONE else bind(fn) for kind, fn in STEPS.items()}


def act(config: Config, store: Store, steps: Steps, item: Item, now_ms: int, outlets: Outlets) -> int | None:
    """Do one due item (its :data:`STEPS`) and send what it left; returns a time (ms) to try again, or None when it
    is done."""
    resolved, again = reminders.current(config, store, item, now_ms)  # a ``now`` item: the turn its seat owes now
    if resolved is None:
        return again
    step = steps.get(resolved.kind)
    again, ids = step(resolved, now_ms, outlets) if step is not None else (None, [])
    send_out(config, store, ids, outlets)
    return again


def tick(config: Config, store: Store, steps: Steps, outlets: Outlets, now_ms: int | None = None) -> int | None:
    """One scan of the due items (:func:`act` each); None when another beat holds the lock."""
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    with store.due.scanning(now_ms, lock_ttl_ms=int(settings.get(config, "BEAT_LOCK_TTL")) * 1000) as due:
        if due is None:
            return None
        for item in due:
            try:
                again = act(config, store, steps, item, now_ms, outlets)
            except Exception:  # one failing item must not stop the scan (logged with its traceback)
                log.exception("due item %s failed; retrying later", item.member)
                again = now_ms + RETRY_FAILED_MS
            due.settle(again)
        return due.done


def sweep(config: Config, store: Store, send_task: SendTask) -> int:
    """Dispatch again outbox entries still queued, and inbound messages still unhandled, after
    ``SWEEP_AFTER`` seconds; returns how many."""
    older = float(config["SWEEP_AFTER"])
    stale = store.stale_outbox(older)
    for outbox_id in stale:
        send_task(DELIVER, args=[outbox_id])
    pending = store.stale_inbound(older)  # recorded but never handled: queue them again
    for sender, message_id in pending:
        send_task(HANDLE_INBOUND, args=[message_id, sender])
    return len(stale) + len(pending)


def receipt(config: Config, store: Store, players: Players, links: Links, reach: Reach, push: PushSubscriptions,
            games: GameCache, outbox_id: str, provider_id: str, code: str, send_task: SendTask) -> str:
    """What a failure receipt leads to (:func:`service.receipts.on_failure`), the opponents' notices sent as any
    other message."""
    return receipts.on_failure(config, store, players, links, reach, games, outbox_id,
                               provider_id, code, celery_outlets(config, store, links, push, send_task).dispatch)

"""Beat jobs of the lifecycle, and the computer's moves.

* ``workers.beat.tick`` (every ``BEAT_EVERY`` seconds, default 60): acts on every due item of
  the ``{due:<k>}`` shards (reminders, timeouts, AUTO moves, the computer's moves left behind, invitation
  expiries) under the beat lock, so only one beat acts at a time even with several beat
  processes; each action is idempotent besides.
* ``workers.beat.bot_move`` (queued with ``BOT_DELAY`` as countdown): the computer's move at a
  given game version; it queues the next one while the computer is still to move.

:func:`run_tick` and :func:`run_bot_move` hold the logic without Celery, for the tests;
:func:`queue_bot` queues the computer's move for the handler task. The tick's schedule is set with the
Celery app (``service.celery_init_app``).
"""

from __future__ import annotations

from typing import Callable

from celery import Celery, Task, shared_task
from flask import current_app

from service import clock
from service import store_due as due
from service.context import Services
from service.delivery import all_local, deliver_local_many
from service.games.result import BotTurn
from service.lifecycle import bot, hooks, invitations, reminders, routing, settings, timeouts
from service.store_due import Item

TICK = "workers.beat.tick"
BOT_MOVE = "workers.beat.bot_move"
DELIVER = "workers.tasks.deliver"

Dispatch = Callable[[list[str]], None]
QueueBot = Callable[[BotTurn], None]


def _svc() -> Services:
    return current_app.extensions["slowspades"]  # type: ignore[no-any-return]


def act(svc: Services, item: Item, now_ms: int, dispatch: Dispatch, queue_bot: QueueBot) -> int | None:
    """Do one due item; returns a time (ms) to try again, or None when it is done."""
    if item.kind == "r":
        again, ids = reminders.send_reminder(svc, item, now_ms)
    elif item.kind == "t":
        again, ids = timeouts.on_timeout_due(svc, item, now_ms)
    elif item.kind == "a":
        again, ids = timeouts.on_auto_due(svc, item, now_ms)
        _follow(svc, item.game_id, queue_bot)
    elif item.kind == "b":
        again, ids = None, run_bot_move(svc, item.game_id, item.seat, item.version, queue_bot)
    elif item.kind == "x":
        again, ids = invitations.on_expiry_due(svc, item, now_ms)
    else:
        again, ids = None, []
    if ids:
        routing.note_outbox(svc, ids)
        dispatch(ids)
    return again


def run_tick(svc: Services, dispatch: Dispatch, queue_bot: QueueBot, now_ms: int | None = None) -> int | None:
    """One scan of the due items; None when another beat holds the lock."""
    now_ms = clock.now_ms(svc.redis) if now_ms is None else now_ms
    return due.scan(svc.redis, now_ms, lambda item, t: act(svc, item, t, dispatch, queue_bot),
                    lock_ttl_ms=int(settings.get(svc.config, "BEAT_LOCK_TTL")) * 1000)


def _follow(svc: Services, game_id: str, queue_bot: QueueBot) -> None:
    meta = svc.store.meta(game_id)
    if meta.get("status") != "active":
        return
    turn = hooks.after_game_change(svc, game_id, svc.games.load(game_id))
    if turn is not None:
        queue_bot(turn)


def run_bot_move(svc: Services, game_id: str, seat: int, version: int, queue_bot: QueueBot) -> list[str]:
    """The computer's move at ``version`` (once; nothing if stale); queues its next move if it is to move again."""
    out = bot.move(svc, game_id, seat, version)
    turn = hooks.after_move(svc, out)
    if turn is not None:
        queue_bot(turn)
    return out.outbox_ids


# -- Celery ---------------------------------------------------------------------------------
def _dispatcher(app: Celery, svc: Services | None = None) -> Dispatch:
    """Deliver outbox entries: inline when every channel goes to the local outbox (a Redis write, as
    ``workers.tasks.handle_inbound`` does; so they are in the local outbox before any later task
    runs), else one ``deliver`` task each."""
    def dispatch(ids: list[str]) -> None:
        if svc is not None and all_local(svc):
            deliver_local_many(svc, ids)
            return
        for oid in ids:
            app.send_task(DELIVER, args=[oid])

    return dispatch


def _bot_queuer(app: Celery, svc: Services) -> QueueBot:
    delay = float(settings.get(svc.config, "BOT_DELAY"))

    def queue(turn: BotTurn) -> None:
        app.send_task(BOT_MOVE, args=[turn.game_id, turn.seat, turn.version], countdown=delay)

    return queue


@shared_task(name=TICK, bind=True, ignore_result=True)
def tick(self: Task) -> int:
    """Beat job: act on the due reminders, timeouts, AUTO moves, bot moves and invitation expiries."""
    svc = _svc()
    done = run_tick(svc, _dispatcher(self.app, svc), _bot_queuer(self.app, svc))
    return -1 if done is None else done


@shared_task(name=BOT_MOVE, bind=True, ignore_result=True)
def bot_move(self: Task, game_id: str, seat: int, version: int) -> int:
    """The computer's move in ``game_id`` at ``version``; its messages are queued for delivery."""
    svc = _svc()
    ids = run_bot_move(svc, game_id, seat, version, _bot_queuer(self.app, svc))
    routing.note_outbox(svc, ids)
    _dispatcher(self.app, svc)(ids)
    return len(ids)


def queue_bot(app: Celery, svc: Services, turn: BotTurn | None) -> None:
    """Queue the computer's move (``BOT_DELAY`` seconds from now), if ``turn`` is one."""
    if turn is not None:
        _bot_queuer(app, svc)(turn)

"""Beat jobs of the lifecycle, and the computer's moves: Celery entry points over :mod:`service.after`.

* ``workers.beat.tick`` (every ``BEAT_EVERY`` seconds, default 60): acts on every due item of
  the ``{due:<k>}`` shards (reminders, timeouts, AUTO moves, the computer's moves left behind, invitation
  expiries) under the beat lock, so only one beat acts at a time even with several beat
  processes; each action is idempotent besides.
* ``workers.beat.bot_move`` (queued with ``BOT_DELAY`` as countdown): the computer's move at a
  given game version; it queues the next one while the computer is still to move.

:func:`run_tick` holds the tick without Celery, for the tests. The tick's schedule is set with the Celery
app (``service.celery_init_app``).
"""

from __future__ import annotations

from typing import Callable

from celery import Task, shared_task
from flask import current_app

from service import after, forget, metrics
from service.after import Steps
from service.bootstrap import Dependencies
from service.context import Config
from service.games.result import BotTurn
from service.store import Store

TICK = "workers.beat.tick"
FORGET_INACTIVE = "workers.beat.forget_inactive"
BOT_MOVE = after.BOT_MOVE


def _svc() -> Dependencies:
    svc: Dependencies = current_app.extensions["slowspades"]
    return svc


def run_tick(config: Config, store: Store, steps: Steps, dispatch: Callable[[list[str]], None],
             queue_bot: Callable[[BotTurn], None], now_ms: int | None = None) -> int | None:
    """One scan of the due items (:func:`service.after.tick`); None when another beat holds the lock."""
    return after.tick(config, store, steps, after.Outlets(dispatch, queue_bot), now_ms)


@shared_task(name=TICK, bind=True, ignore_result=True)
def tick(self: Task) -> int:
    """Beat job: act on the due reminders, timeouts, AUTO moves, bot moves and invitation expiries."""
    deps = _svc()
    done = deps.inject(after.tick)(deps.inject(after.celery_outlets)(self.app.send_task))
    metrics.beat_ticked()
    return -1 if done is None else done


@shared_task(name=BOT_MOVE, bind=True, ignore_result=True)
def bot_move(self: Task, game_id: str, seat: int, version: int) -> int:
    """The computer's move in ``game_id`` at ``version``; its messages sent (:func:`service.after.bot_move`)."""
    deps = _svc()
    outlets = deps.inject(after.celery_outlets)(self.app.send_task)
    return len(deps.inject(after.bot_move)(game_id, seat, version, outlets))


@shared_task(name=FORGET_INACTIVE, ignore_result=True)
def forget_inactive() -> int:
    """Beat job, daily when ``SLOWSPADES_FORGET_INACTIVE_DAYS`` is set: forget the players inactive that long
    (:func:`service.forget.forget_inactive`; run twice, the second finds nobody)."""
    deps = _svc()
    days = float(deps.config.get("FORGET_INACTIVE_DAYS") or 0)
    return deps.inject(forget.forget_inactive)(days, deps.store.clock.now_ms())[1]

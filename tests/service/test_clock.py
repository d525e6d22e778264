"""The service's clock (:mod:`service.store.clock`): the offset that the simulator's "Advance clock" and the tests
move is followed only with ``SLOWSPADES_SHARED_CLOCK`` (or the simulator). A deployment keeps real time: it never
reads the offset's key, not even for a move, so nothing written there moves its deadlines."""

from __future__ import annotations

import time
from typing import Any

from service import after
from service.bootstrap import bootstrap
from service.conversation_port import command_text
from service.store import clock, keys

from .chooser import choose
from .helpers import new_sid
from .test_sms_game import ALICE, BOB, load_game, start_sms_game

DAY_MS = 86_400_000


def test_a_deployment_keeps_real_time_and_a_move_never_reads_the_offset(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    deployed = bootstrap(dict(svc.config, SHARED_CLOCK=False, SIMULATOR=False), svc.redis)
    clock.advance(svc.redis, DAY_MS / 1000)  # a day ahead on the shared clock
    assert abs(svc.store.clock.now_ms() - time.time() * 1000 - DAY_MS) < 60_000
    assert abs(deployed.store.clock.now_ms() - time.time() * 1000) < 60_000
    clock.reset(svc.redis)

    gid = start_sms_game(client, svc)
    game = load_game(svc, gid)
    seat = game.movers[0]
    sender = svc.store.meta(gid)[f"seat{seat}"]
    assert sender in (ALICE, BOB)
    # an offset no service could read: the deployed services' move must not touch it
    svc.redis.set(keys.CLOCK_OFFSET, "not a number")
    mid = "sms:" + new_sid()
    fields = {"channel": "sms", "from": sender, "to": "+15550000000", "body": command_text(choose(game, seat)),
              "received": str(int(time.time() * 1000)), "status": "queued"}
    assert deployed.store.record_inbound(sender, mid, fields, 3600) == "new"
    queued: list[Any] = []
    before_ms = int(time.time() * 1000)
    assert deployed.inject(after.handle_inbound)(mid, sender, lambda *a, **k: queued.append((a, k))) == "applied"
    assert load_game(svc, gid).version > game.version  # the move is in the log
    since = int(svc.store.game_life(gid)["since"])  # the new turn began now, in real time
    assert before_ms - 1000 <= since <= int(time.time() * 1000) + 1000
    assert svc.redis.get(keys.CLOCK_OFFSET) in (b"not a number", "not a number")
    svc.redis.delete(keys.CLOCK_OFFSET)

"""A move's task delivered again (Celery is at-least-once): applied once, answered once.

Issue 21: a move's read no longer asks the game whether it consumed the message; the append finds that out in the
script that would consume it (``HSETNX``), and a message that would change nothing (a refusal) asks before it is
answered. These are the cases where the first run applied the move and died before the message's record was dropped,
so the record still says "not handled".
"""

from __future__ import annotations

import pytest

from service.bootstrap import bootstrap
from service.inbound import handle_inbound
from service.store import player_owner
from tests.lifecycle.helpers import inbound, load, local, mover, send_now, start_game


@pytest.mark.parametrize("process", ["the same worker", "another worker"])
def test_a_move_delivered_again_is_not_applied_again_nor_refused(svc, process: str) -> None:  # type: ignore[no-untyped-def]
    """DRAW applied, then delivered again: DRAW is no move any more (the player holds the card drawn), yet they get
    no "not now" reply; the first run's messages are dispatched again and none is added. In another worker process
    (nothing cached) as in the same one (the game cached with the move)."""
    gid = start_game(svc, rules="ALT")
    p = mover(svc, gid)
    mid = inbound(svc, p, "DRAW")
    first = svc.inject(handle_inbound)(mid, p)
    assert first.outcome == "applied" and first.outbox_ids
    send_now(svc, first.outbox_ids)
    version, told = load(svc, gid).version, len(local(svc))
    worker = svc if process == "the same worker" else bootstrap(svc.config, svc.redis)
    again = worker.inject(handle_inbound)(mid, p)
    assert again.outcome == "duplicate" and again.outbox_ids == first.outbox_ids
    send_now(svc, again.outbox_ids)  # dispatched again: each entry is sent once all the same
    assert load(svc, gid).version == version and len(local(svc)) == told
    assert svc.store.consumed(player_owner(p), mid) is None  # no refusal written for the player either

"""Exactly-once sending: an outbox entry is claimed for one delivery attempt by a unique token.

Three handlings of one message at once (the webhook retried, the sweep re-queueing it, a task
delivered again) used to share the message id as their claim, so two of them sent the same entries.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from service.conversation_port import command_text
from service.store import Store, game_owner
from tests.conftest import spawn_worker
from tests.service.chooser import choose
from tests.service.helpers import local_messages, post_sms, wait_for, wait_handled
from tests.service.test_crash_and_races import own_app, started_game
from tests.service.test_sms_game import ALICE, BOB, load_game

pytestmark = pytest.mark.slow


def test_three_concurrent_handlings_of_each_move_send_each_entry_once(redis_url, svc, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    queue = "thrice-" + uuid.uuid4().hex[:6]
    app = own_app(redis_url, queue, app)
    gid = started_game(svc, "g-thrice")
    workers = [spawn_worker(redis_url, tmp_path / f"w{i}.log", QUEUE=queue) for i in range(3)]
    clients = [app.test_client() for _ in range(3)]
    moves = 0
    try:
        for _ in range(24):
            game = load_game(svc, gid)
            if game.phase == "over":
                break
            mover = (ALICE, BOB)[game.movers[0]]
            text, sid = command_text(choose(game, game.movers[0])), "SM" + uuid.uuid4().hex
            barrier = threading.Barrier(3)
            codes: list[int] = []

            def post(c) -> None:  # type: ignore[no-untyped-def]
                barrier.wait(10)
                codes.append(post_sms(c, mover, text, sid=sid)[0].status_code)

            threads = [threading.Thread(target=post, args=(c,)) for c in clients]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert codes == [200, 200, 200]
            wait_handled(svc, "sms:" + sid, timeout=60)
            wait_for(lambda: load_game(svc, gid).version > game.version, 30, "the move applied")
            moves += 1
        wait_for(lambda: all(e["status"] in ("sent", "failed") for e in svc.store.outbox_entries(game_owner(gid))),
                 timeout=60, what="every entry sent")
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(20)
    assert moves >= 20
    sent = Counter(m["id"] for m in local_messages(svc) if m["id"].startswith(game_owner(gid)))
    twice = {oid: n for oid, n in sent.items() if n > 1}
    assert twice == {}, f"{len(twice)} of {len(sent)} entries sent more than once"
    entries = svc.store.outbox_entries(game_owner(gid))
    assert {e["id"] for e in entries} == set(sent)


def test_a_claim_is_one_attempt_s_not_the_message_s(redis_client) -> None:  # type: ignore[no-untyped-def]
    """Born claimed by one handling's token: another handling of the same message takes nothing,
    and only the token's holder may settle the entry (put it in the local outbox)."""
    store = Store(redis_client)
    res = store.append("g:tok", 0, [{"type": "x"}], message_id="m1", outbox=[{"to": "+15550001", "body": "hi"}],
                       claimed="attempt-1")
    [oid] = res.outbox_ids
    assert store.claim_send_many([oid], 60, by="m1") == [None]  # the message id is no claim
    assert store.claim_send_many([oid], 60, by="attempt-2") == [None]  # another attempt, within the lease
    store.settle_local_many([dict(store.outbox_entry(oid), id=oid)], [], token="attempt-2")
    assert store.read_local() == [] and store.outbox_entry(oid)["status"] == "sending"
    store.settle_local_many([dict(store.outbox_entry(oid), id=oid)], [], token="attempt-1")
    assert [m["id"] for _i, m in store.read_local()] == [oid]
    assert store.outbox_entry(oid)["status"] == "sent"
    store.settle_local_many([dict(store.outbox_entry(oid), id=oid)], [], token="attempt-1")  # once only
    assert len(store.read_local()) == 1


def test_a_lease_taken_over_leaves_the_first_attempt_nothing_to_settle(redis_client) -> None:  # type: ignore[no-untyped-def]
    store = Store(redis_client)
    [oid] = store.append("g:lease", 0, [{"type": "x"}], message_id="m1",
                         outbox=[{"to": "+15550001", "body": "hi"}], claimed="slow").outbox_ids
    time.sleep(0.01)
    [entry] = store.claim_send_many([oid], 0, by="sweep")  # the lease is over: the sweep takes it
    assert entry is not None
    store.settle_local_many([entry], [], token="slow")  # the slow first attempt wakes up: not its any more
    assert store.read_local() == []
    store.settle_local_many([entry], [], token="sweep")
    assert len(store.read_local()) == 1

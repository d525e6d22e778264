"""``service.store.Batch``: named parts of one pipeline, the store's own parts read by the store and a caller's parts
(``Batch.part``) handed back as their replies for the caller to read, so the store never calls back up (issue 42)."""

from __future__ import annotations

from typing import Any

from service.store import Batch


def test_parts_get_their_own_replies_after_an_earlier_batch_on_the_same_pipeline(svc: Any) -> None:
    svc.redis.set("batch:a", "1")
    svc.redis.hset("batch:h", mapping={"x": "2"})
    pipe = svc.store.pipeline()
    outer = Batch(pipe)
    outer.add("a", lambda p: p.get("batch:a"), lambda raw: int(raw))
    inner = Batch(pipe)  # a callee's batch on the caller's pipeline counts its parts from here
    with inner.part("h") as p:
        p.hgetall("batch:h")
        p.exists("batch:none")
    replies = pipe.execute()
    assert outer.results(replies) == {"a": 1}
    got = inner.results(replies[inner.base:])
    assert svc.store.owner_meta_from(got["h"][0]) == {"x": "2"}  # the caller reads its part through the store
    assert got["h"][1] == 0


def test_a_store_read_queued_in_a_part_is_read_by_its_caller(svc: Any) -> None:
    batch = Batch(svc.store.pipeline())
    with batch.part("msg") as p:
        read = svc.store.queue_message(p, "+15550009999", "sms:none", "p:+15550009999", with_sender=True,
                                       with_record=True)
    stored = read(batch.run()["msg"])
    assert stored.msg is None and stored.done is None and stored.record == {} and stored.home_mark == [None, None]

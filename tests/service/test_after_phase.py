"""Contract tests of the after-phase's store calls (service.store.after_phase) against a real Redis and a real Redis
Cluster: the write intents written in order in one round trip, and the local claim with its recipients' marks."""

from __future__ import annotations

from typing import Any

import redis as redis_lib

from service.store import Store, game_owner
from service.store.after_phase import Cancel, MarkInbound, NoteLast, Schedule, SettleLocal
from service.store.due import NOW, REMINDER, TIMEOUT, Item
from tests.backends import BOTH

pytestmark = BOTH


class Trips:
    """Counts the pipelines a store executes (its round trips)."""

    def __init__(self, store: Store) -> None:
        self.n = 0
        real = store.r.pipeline

        def counted(*a: Any, **k: Any) -> Any:
            pipe = real(*a, **k)
            execute = pipe.execute

            def run(*ea: Any, **ek: Any) -> Any:
                self.n += 1
                return execute(*ea, **ek)

            pipe.execute = run
            return pipe

        store.r.pipeline = counted  # type: ignore[method-assign]


def test_the_writes_are_written_in_order_in_one_round_trip(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    ids = store.append(game_owner("ga"), 0, [{"type": "bid_made", "v": 1, "seat": 0, "tricks": 1}], message_id="m1",
                       outbox=[{"to": "+15551110001", "body": "a"}, {"to": "+15551110001", "body": "b"}]).outbox_ids
    assert store.record_inbound("+15551110001", "SMa", {"body": "x"}, 60) == "new"
    claimed = store.claim_send_many(ids, 60, "tok")
    assert all(claimed)
    late, stale = Item(TIMEOUT, "ga", 0, NOW), Item(REMINDER, "ga", 0, 3, 1)
    store.due.schedule(stale, 5)
    trips = Trips(store)
    store.write([SettleLocal((dict(claimed[0] or {}),), ((ids[1], "no"),), "tok"),
                 MarkInbound("+15551110001", "SMa", "done"),
                 NoteLast("+15551110001", "ga"),
                 Cancel((stale,)),
                 Schedule(((Item(REMINDER, "ga", 0, NOW, 1), 10), (late, 20))),
                 Schedule(((late, 15),), keep=True)])  # only later: stays at 20
    assert trips.n == 1
    assert store.outbox_entry(ids[0])["status"] == "sent" and store.outbox_entry(ids[1])["error"] == "no"
    assert [m["body"] for _i, m in store.read_local()] == ["a"]
    assert store.inbound("+15551110001", "SMa") == {"status": "done"}
    assert store.player_life_field("+15551110001", "last") == "ga"
    assert store.due.pending("ga") == [(Item(REMINDER, "ga", 0, NOW, 1), 10), (late, 20)]
    trips.n = 0
    store.write([])
    assert trips.n == 0  # nothing to write: no round trip


def test_the_local_claim_reads_the_marks_and_texts_in_its_round_trip(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    ids = store.append(game_owner("gb"), 0, [{"type": "bid_made", "v": 1, "seat": 0, "tricks": 1}], message_id="m1",
                       outbox=[{"to": "+15551110002", "body": "a", "game": "gb"}]).outbox_ids
    store.set_player_life("+15551110002", {"stopped": "1", "people": "0"})
    trips = Trips(store)
    claim = store.claim_local(ids, 60, ["+15551110002", "+15551110003"], texts=ids)
    assert trips.n == 1
    assert [e["id"] for e in claim.entries] == ids and claim.token
    assert claim.marks["+15551110002"].stopped and claim.marks["+15551110002"].people == "0"
    assert not claim.marks["+15551110003"].stopped and claim.marks["+15551110003"].people is None
    assert claim.texts[ids[0]]["body"] == "a"
    again = store.claim_local(ids, 60, [], texts=ids)  # claimed already: not again, the text still read
    assert again.entries == [] and again.texts[ids[0]]["game"] == "gb"
    assert store.player_marks(["+15551110002"])["+15551110002"].stopped

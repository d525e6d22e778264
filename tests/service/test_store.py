"""Contract tests of the Redis event store and outbox (service.store) against a real Redis and a real Redis Cluster."""

from __future__ import annotations

import json
import threading
import zlib

import pytest
import redis as redis_lib
import time_machine

from service.store import ReplicaLagError, Store, game_owner, now_ms, player_owner
from service.store import connect as redis_client_of
from service.store.base import StoredEvent, digested, pack_log, unpack_log
from service.store.keys import game_life, pending_key, shards
from service.store.replica import LAGGED
from tests.backends import BOTH, keys_of

pytestmark = BOTH


def ev(n: int) -> dict:
    return {"type": "bid_made", "v": 1, "seat": n % 2, "tricks": n}


def test_append_checks_version_and_reads_back(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    r1 = store.append(g, 0, [ev(1), ev(2)], message_id="m1", outbox=[{"to": "+1", "body": "hi"}], meta={"status": "active"})
    assert (r1.status, r1.version, r1.outbox_ids) == ("ok", 2, ["g:g1#1"])
    assert store.append(g, 0, [ev(3)], message_id="m2").status == "conflict"
    assert store.version("g1") == 2
    loaded = store.load("g1")
    assert [e.event for e in loaded] == [ev(1), ev(2)]
    assert loaded[0].message_id == "m1" and loaded[0].time_ms and loaded[1].message_id is None
    assert store.load("g1", after=loaded[0].stream_id)[0].event == ev(2)
    assert store.meta("g1")["status"] == "active"
    assert store.outbox_entry("g:g1#1")["status"] == "queued"


def turn_fields(r: redis_lib.Redis, game_id: str) -> dict[bytes, bytes]:
    """The turn's fields of a game's life (in its meta since issue 21: :func:`service.store.keys.game_life`)."""
    return {k: v for k, v in r.hgetall(game_life(game_id)).items()
            if k in (b"v", b"seat", b"since", b"v0", b"v1", b"since0", b"since1")}


def test_an_append_records_the_turn_unless_a_newer_one_is(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    first = store.append(g, 0, [ev(1), ev(2)], message_id="m1", turn=(2, "1", 1000))
    assert first.turn == (1, "-1", "")  # recorded; none before
    assert turn_fields(redis_client, "g1") == {b"v": b"2", b"seat": b"1", b"since": b"1000",
                                               b"v1": b"2", b"since1": b"1000"}  # seat 1's own turn
    redis_client.hset(game_life("g1"), mapping={"v": 9, "seat": "0"})  # a newer turn, recorded meanwhile
    late = store.append(g, 2, [ev(3)], message_id="m2", turn=(3, "0", 2000))
    assert late.ok and late.turn == (0, "9", "0")
    assert redis_client.hget(game_life("g1"), "v") == b"9"
    assert store.append(g, 3, [ev(4)], message_id="m3").turn is None


def test_each_seat_keeps_the_turn_it_owes_while_the_other_moves(redis_client: redis_lib.Redis) -> None:
    """RULES D11: both may owe a move; a seat's own turn begins when it is asked, not when the other moves."""
    store = Store(redis_client)
    g = game_owner("g2")
    store.append(g, 0, [ev(1), ev(2)], message_id="m1", turn=(2, "0", 1000))
    store.append(g, 2, [ev(3)], message_id="m2", turn=(3, "01", 2000, 0))  # seat 0 moved: both owe now
    store.append(g, 3, [ev(4)], message_id="m3", turn=(4, "01", 3000, 0))  # seat 0 again; seat 1 silent
    life = turn_fields(redis_client, "g2")
    assert (life[b"v0"], life[b"since0"]) == (b"4", b"3000")  # seat 0's new draw
    assert (life[b"v1"], life[b"since1"]) == (b"3", b"2000")  # seat 1 still owes the move it was asked at 3
    store.append(g, 4, [ev(5)], message_id="m4", turn=(5, "1", 4000, 0))  # seat 0 done: only seat 1 owes
    life = turn_fields(redis_client, "g2")
    assert life[b"seat"] == b"1" and (life[b"v1"], life[b"since1"]) == (b"3", b"2000")


def test_entries_born_claimed_are_sent_by_their_attempt_only(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    res = store.append(g, 0, [ev(1)], message_id="m1", outbox=[{"to": "+1", "body": "a"}], claimed="t1")
    [oid] = res.outbox_ids
    assert store.outbox_entry(oid)["status"] == "sending"
    assert store.claim_send(oid, 60) is None  # the sweep, before the lease is over: not its to send
    assert store.claim_send_many([oid], 60, by="m2") == [None]  # another message's handling: neither
    assert store.claim_send_many([oid], 60, by="m1") == [None]  # nor the same message's (issue 15)
    assert store.set_status(oid, "sent", token="t2") == "sending"  # only the claim's holder settles it
    assert store.set_status(oid, "sent", token="t1") == "sent"
    assert store.claim_send_many([oid], 60, by="m1") == [None]  # sent: never again
    assert not redis_client.hexists("{g:g1}:outbox", "1:by")
    assert store.stale_outbox(older_than_s=-1) == []


def test_consumed_message_is_a_duplicate_even_at_the_right_version(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    first = store.append(g, 0, [ev(1)], message_id="m1", outbox=[{"body": "a"}, {"body": "b"}])
    again = store.append(g, 1, [ev(1)], message_id="m1", outbox=[{"body": "a"}])
    assert again.status == "duplicate" and again.outbox_ids == first.outbox_ids
    assert store.version("g1") == 1 and len(store.outbox_entries(g)) == 2


def test_conflict_writes_nothing(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    store.append(g, 0, [ev(1)])
    res = store.append(g, 0, [ev(2)], message_id="m9", outbox=[{"body": "x"}], meta={"status": "over"})
    assert res.status == "conflict"
    assert store.consumed(g, "m9") is None and store.outbox_entries(g) == [] and "status" not in store.meta("g1")


def test_two_threads_racing_on_one_version_exactly_one_wins(redis_url: str, redis_client: redis_lib.Redis) -> None:
    for round_ in range(20):
        gid = f"race{round_}"
        barrier = threading.Barrier(2)
        results: list[str] = []

        def worker(i: int) -> None:
            store = Store(redis_client_of({"REDIS_URL": redis_url}))
            barrier.wait()
            results.append(store.append(game_owner(gid), 0, [ev(i)], message_id=f"m{i}",
                                        outbox=[{"body": str(i)}]).status)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == ["conflict", "ok"]
        store = Store(redis_client)
        assert store.version(gid) == 1 and len(store.outbox_entries(game_owner(gid))) == 1


def test_player_replies_are_idempotent_by_message_id(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    p = player_owner("+4790000000")
    a = store.append(p, -1, message_id="SM1", outbox=[{"body": "I did not understand"}])
    b = store.append(p, -1, message_id="SM1", outbox=[{"body": "I did not understand"}])
    assert a.ok and b.status == "duplicate" and a.outbox_ids == b.outbox_ids == ["p:+4790000000#1"]


def test_claim_before_send_and_status_only_moves_forward(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    [oid] = store.append(game_owner("g1"), 0, [ev(1)], outbox=[{"body": "x"}]).outbox_ids
    assert store.claim_send(oid, lease_s=60)["body"] == "x"
    assert store.claim_send(oid, lease_s=60) is None  # being sent
    assert store.set_status(oid, "sent", provider_id="SM123") == "sent"
    assert store.claim_send(oid, lease_s=0) is None  # a sent entry is never sent again
    assert store.set_status(oid, "delivered") == "delivered"
    assert store.set_status(oid, "sent") == "delivered"
    assert store.outbox_entry(oid)["sid"] == "SM123"


def test_a_lapsed_send_lease_can_be_claimed_again(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    [oid] = store.append(game_owner("g1"), 0, [ev(1)], outbox=[{"body": "x"}]).outbox_ids
    assert store.claim_send(oid, lease_s=60)
    redis_client.hset("{g:g1}:outbox", "1:t", 0)
    assert store.claim_send(oid, lease_s=60)


def test_sweep_finds_entries_left_queued(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    ids = store.append(game_owner("g1"), 0, [ev(1)], outbox=[{"body": "x"}, {"body": "y"}]).outbox_ids
    assert store.stale_outbox(older_than_s=60) == []
    assert sorted(store.stale_outbox(older_than_s=-1)) == sorted(ids)
    for oid in ids:
        store.claim_send(oid, 60)
        store.set_status(oid, "sent")
    assert store.stale_outbox(older_than_s=-1) == []
    assert sum(redis_client.zcard(k) for k in shards("dirty")) == 0


def test_sweep_finds_an_entry_left_queued_in_a_game_that_keeps_moving(redis_client: redis_lib.Redis) -> None:
    """An entry whose task was lost is found by its own age, not only once its game is quiet: every move of a game
    played quickly (two people at their phones, or against the computer) refreshes the game's dirty mark."""
    store = Store(redis_client)
    [old] = store.append(game_owner("g1"), 0, [ev(1)], outbox=[{"body": "lost"}]).outbox_ids
    redis_client.zadd("{g:g1}:outq", {old.rsplit("#", 1)[1]: now_ms() - 120_000})  # queued two minutes ago
    [new] = store.append(game_owner("g1"), 1, [ev(2)], outbox=[{"body": "just now"}]).outbox_ids  # a move since
    assert store.stale_outbox(older_than_s=60) == [old]
    assert sorted(store.stale_outbox(older_than_s=-1)) == sorted([old, new])


def test_inbound_recorded_once(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    assert store.record_inbound("+15551110001", "SM1", {"body": "KEEP"}, 60) == "new"
    assert store.record_inbound("+15551110001", "SM1", {"body": "changed"}, 60) == "pending"  # a retry
    assert store.inbound("+15551110001", "SM1")["body"] == "KEEP"
    assert store.inbound("+15551110002", "SM1") is None  # claims are per sender
    keys = [k.decode() for k in keys_of(redis_client, "*SM1*")] + [k.decode() for k in keys_of(redis_client, "*:seen:*")]
    assert keys and all(k.startswith("{p:+15551110001}:") for k in keys)


def test_a_handled_message_keeps_only_an_eight_byte_claim(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client, dedupe_window_s=3600)
    sender = "+15551110003"
    for i in range(300):
        assert store.record_inbound(sender, f"sms:SM{i:032x}", {"body": "KEEP", "status": "queued"}, 600) == "new"
        store.mark_inbound(sender, f"sms:SM{i:032x}", "done")
    assert store.inbound(sender, "sms:SM" + "0" * 32) == {"status": "done"}
    assert store.record_inbound(sender, "sms:SM" + "0" * 32, {"body": "again"}, 600) == "done"  # a retry: dropped
    assert store.inbound(sender, "sms:SM" + "0" * 32) == {"status": "done"}  # and not recorded again
    assert keys_of(redis_client, f"{{p:{sender}}}:in:*") == []
    [seen] = keys_of(redis_client, f"{{p:{sender}}}:seen:*")
    assert redis_client.object("encoding", seen) == b"intset"  # 8 bytes a message
    assert int(redis_client.memory_usage(seen)) < 300 * 10  # the key and its set included
    assert 0 < redis_client.ttl(seen) <= 3 * 3600
    assert redis_client.zcard(pending_key(sender)) == 0


def test_a_claim_lasts_its_window_and_the_next(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client, dedupe_window_s=600)
    sender = "+15551110004"
    with time_machine.travel(1_800_000_000, tick=False) as clock:  # the start of a window
        assert store.record_inbound(sender, "m1", {"body": "x"}, 600) == "new"
        store.mark_inbound(sender, "m1", "done")
        clock.shift(1199)  # the end of the next window: still a duplicate
        assert store.record_inbound(sender, "m1", {"body": "x"}, 600) == "done"
        clock.shift(1)  # two windows on: forgotten
        assert store.record_inbound(sender, "m1", {"body": "x"}, 600) == "new"


def test_marking_never_recreates_and_the_sweep_finds_what_is_pending(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    store.mark_inbound("+15551110005", "SM4", "done")  # never re-created
    assert store.inbound("+15551110005", "SM4") is None
    store.mark_inbound("+15551110005", "SM4", "failed")
    assert store.inbound("+15551110005", "SM4") is None
    assert store.record_inbound("+15551110005", "SM5", {"body": "x"}, 600) == "new"
    assert store.record_inbound("+15551110006", "SM6", {"body": "y"}, 600) == "new"
    store.mark_inbound("+15551110006", "SM6", "done")
    redis_client.zadd(pending_key("+15551110007"), {"+15551110007 SM7": 1})  # recorded, then expired unhandled
    assert store.stale_inbound(older_than_s=-60) == [("+15551110005", "SM5")]
    pending = [m for k in shards("inpend") for m in redis_client.zrange(k, 0, -1)]
    assert pending == [b"+15551110005 SM5"]  # the others: tidied


def test_all_keys_of_a_game_share_a_hash_tag(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    store.append(game_owner("g7"), 0, [ev(1)], message_id="m", outbox=[{"body": "x"}], meta={"a": "b"})
    keys = [k.decode() for k in keys_of(redis_client, "*g7*")]
    assert len(keys) >= 4 and all(k.startswith("{g:g7}:") for k in keys)


def test_an_archived_game_reads_the_same_and_refuses_appends(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    store.append(g, 0, [ev(1), ev(2)], message_id="m1")
    store.append(g, 2, [ev(3)], message_id="m2")
    before = store.load("g1")
    assert store.archive("g1")
    assert not redis_client.exists("{g:g1}:ev") and store.version("g1") == 3
    assert store.load("g1") == digested(before)  # the message ids kept as their digests
    assert store.load("g1", after=before[0].stream_id) == digested(before[1:])
    assert store.consumed_in_archive("g1", "m2") and not store.consumed_in_archive("g1", "m3")
    assert store.append(g, 3, [ev(4)], message_id="m3").status == "conflict"
    assert store.append(g, 0, [ev(4)], message_id="m4").status == "conflict"
    assert store.load("g1") == digested(before) and not store.archive("g1")


def test_a_write_waits_for_a_replica_when_asked(redis_client: redis_lib.Redis, backend: str) -> None:
    """SLOWSPADES_REPLICA_WAIT_MS: the cluster's masters each have a replica (WAIT answers 1); the single Redis
    has none: the append raises ReplicaLagError (the task retries), and so does the webhook's record (the web
    spools the message), each counted; the record's retry (the spool's hand-over) is not taken either."""
    store = Store(redis_client, replica_wait_ms=300)
    before = dict(LAGGED)
    if backend == "cluster":
        assert store.append(game_owner("gw"), 0, [ev(1)], message_id="m1", outbox=[{"body": "x"}]).ok
        assert store.record_inbound("+15551110009", "SMw", {"body": "x"}, 60) == "new"
        assert dict(LAGGED) == before
        return
    with pytest.raises(ReplicaLagError):
        store.append(game_owner("gw"), 0, [ev(1)], message_id="m1", outbox=[{"body": "x"}])
    assert store.version("gw") == 1  # written on the master all the same
    with pytest.raises(ReplicaLagError):
        store.record_inbound("+15551110009", "SMw", {"body": "x"}, 60)
    with pytest.raises(ReplicaLagError):  # recorded on the master ("pending"), still on no replica
        store.record_inbound("+15551110009", "SMw", {"body": "x"}, 60)
    assert LAGGED["append"] == before.get("append", 0) + 1
    assert LAGGED["inbound record"] == before.get("inbound record", 0) + 2


def test_a_replicated_write_and_its_index_entry_go_to_one_master(redis_client: redis_lib.Redis, backend: str) -> None:
    """With SLOWSPADES_REPLICA_WAIT_MS the dirty-owner and pending-message marks are written in the round trip of
    the write they index: on a cluster in a shard served by the write's master (the sweeps scan every shard),
    and a sweep finds, and tidies, an owner in whichever shard it is."""
    store = Store(redis_client, replica_wait_ms=300 if backend == "cluster" else 0)  # one Redis: no replica

    def master(key: str) -> str:
        if backend != "cluster":
            return "the one server"
        return str(redis_client.nodes_manager.slots_cache[redis_client.keyslot(key)][0].name)

    def holders(kind: str, member: str) -> list[str]:
        return [k for k in shards(kind) if redis_client.zscore(k, member) is not None]

    owners = [game_owner(f"gi{n}") for n in range(12)]
    for owner in owners:
        assert store.append(owner, 0, [ev(1)], message_id="m1", outbox=[{"to": "+1", "body": "hi"}]).ok
        (shard,) = holders("dirty", owner)
        assert master(shard) == master("{" + owner + "}:ev")
    senders = [f"+1555111{n:04d}" for n in range(12)]
    for sender in senders:
        assert store.record_inbound(sender, "SMi", {"body": "x"}, 60) == "new"
        (shard,) = holders("inpend", f"{sender} SMi")
        assert master(shard) == master("{p:" + sender + "}:in:SMi")
        store.mark_inbound(sender, "SMi", "done")
        assert holders("inpend", f"{sender} SMi") == []

    # an owner left in another shard (a reshard moved the slots in between): the sweep finds it and tidies it
    owner = owners[0]
    (here,) = holders("dirty", owner)
    other = next(k for k in shards("dirty") if k != here)
    redis_client.zadd(other, {owner: redis_client.zscore(here, owner)})
    redis_client.zrem(here, owner)
    assert sorted(store.stale_outbox(older_than_s=-1)) == sorted(f"{o}#1" for o in owners)
    for o in owners:
        store.claim_send(f"{o}#1", 60)
        store.set_status(f"{o}#1", "sent")
    assert store.stale_outbox(older_than_s=-1) == []
    assert [holders("dirty", o) for o in owners] == [[] for _ in owners]


def test_pipelined_scripts_cost_no_extra_round_trip(redis_client: redis_lib.Redis, backend: str) -> None:
    """A cluster pipeline that holds an EVAL finds its node from the script's keys, as a single call does, not by
    asking a server ``COMMAND GETKEYS`` first (redis-py 8 does that for every EVAL left to its routing: a round
    trip each on every move's append, inbound record and settle)."""
    store = Store(redis_client)
    nodes = redis_client.get_primaries() if backend == "cluster" else [None]

    def getkeys_calls() -> int:
        stats = [redis_client.info("commandstats", target_nodes=n) if n else redis_client.info("commandstats")
                 for n in nodes]
        return sum(int(st.get("cmdstat_command|getkeys", {}).get("calls", 0)) for st in stats)

    before = getkeys_calls()
    ids = store.append(game_owner("gk"), 0, [ev(1)], message_id="m1", outbox=[{"body": "x"}]).outbox_ids
    assert store.record_inbound("+15551110042", "SMk", {"body": "x"}, 60) == "new"
    store.mark_inbound("+15551110042", "SMk", "processing")
    store.mark_inbound("+15551110042", "SMk", "done")
    pipe = store.pipeline()
    store.settle_local_many([{"id": ids[0], "to": "+1", "body": "x"}], [], tail=pipe, token="t")
    pipe.execute()
    assert getkeys_calls() == before
    assert store.inbound("+15551110042", "SMk") == {"status": "done"}


def test_the_local_outbox_merges_every_owner_s_stream_and_pages_without_a_gap(redis_client: redis_lib.Redis) -> None:
    """Two owners' streams may give one stream id: the cursor (``<id>@<owner>``) tells them apart."""
    store = Store(redis_client)
    for n in range(30):
        store.push_local({"to": f"+1{n}", "body": str(n), "id": f"g:o{n % 3}#{n}"})
    every = store.read_local(count=1000)
    assert sorted(int(m["body"]) for _i, m in every) == list(range(30))
    seen, cursor = [], "-"
    while True:
        page = store.read_local(count=4, after=cursor)
        if not page:
            break
        seen += [m["body"] for _i, m in page]
        cursor = "(" + page[-1][0]
    assert seen == [m["body"] for _i, m in every]


def test_a_head_moves_out_of_the_stream_and_every_read_still_sees_the_whole_log(redis_client: redis_lib.Redis) -> None:
    store = Store(redis_client)
    g = game_owner("g1")
    store.append(g, 0, [ev(1), ev(2)], message_id="m1", outbox=[{"to": "+1", "body": "a"}])
    snap = store.append(g, 2, [ev(3)], message_id="m2", snapshot={"format": "x", "n": 3})
    store.append(g, 3, [ev(4), ev(5)], message_id="m3")
    before = store.load("g1")
    store.set_status("g:g1#1", "sent")
    assert store.keep_in_play("g1", snap.last_stream_id, "m3") == 3
    assert store.keep_in_play("g1", snap.last_stream_id) == 0  # once only
    assert redis_client.xlen("{g:g1}:ev") == 2 and store.meta("g1")["head"] == "3"
    assert store.version("g1") == 5 and store.load("g1") == digested(before[:3]) + before[3:]  # the head: digests
    assert store.load("g1", after=before[1].stream_id) == digested(before[2:3]) + before[3:]
    assert [e["tricks"] for e in store.newest_events("g1", 4)] == [2, 3, 4, 5]
    assert store.outbox_entry("g:g1#1") is not None  # the last entry to "+1" stays
    assert store.append(g, 4, [ev(6)], message_id="m4").status == "conflict"
    assert store.append(g, 5, [ev(6)], message_id="m4").version == 6
    assert store.append(g, 5, [ev(6)], message_id="m3").status == "duplicate"  # m3's consumed id kept
    whole = store.load("g1")
    assert store.archive("g1") and store.load("g1") == digested(whole)
    assert not redis_client.exists("{g:g1}:head", "{g:g1}:snap", "{g:g1}:ev") and store.version("g1") == 6


def v1_log(events: list[StoredEvent]) -> bytes:
    """A log packed as before format 2 (JSON lines ``[stream id, event, t, m]``, the real message ids)."""
    return zlib.compress("\n".join(json.dumps([e.stream_id, e.event, e.time_ms, e.message_id]) for e in events).encode())


def test_a_log_packs_columnar_with_digests_and_a_format_1_log_is_still_read(redis_client: redis_lib.Redis) -> None:
    events = [StoredEvent("1700000000000-0", ev(1), 1700000000003, "SM" + "ab" * 16), StoredEvent("1700000000000-1", ev(2)),
              StoredEvent("1700000005000-0", ev(3), None, "bot:g1:2")]
    packed = pack_log(events)
    assert json.loads(zlib.decompress(packed))["f"] == 2 and unpack_log(packed) == digested(events)
    assert unpack_log(pack_log(unpack_log(packed))) == digested(events)  # a digest packs as itself
    assert unpack_log(v1_log(events)) == events and unpack_log(None) == []
    store = Store(redis_client)
    g = game_owner("g1")
    store.append(g, 0, [ev(1), ev(2)], message_id="m1", outbox=[{"to": "+1", "body": "a"}])
    snap = store.append(g, 2, [ev(3)], message_id="m2", snapshot={"format": "x", "n": 3})
    store.append(g, 3, [ev(4)], message_id="m3", outbox=[{"to": "+1", "body": "b"}])
    old = store.load("g1")
    redis_client.set("{g:g1}:head", v1_log(old[:1]))  # a head of format 1, as an older service left it
    redis_client.xtrim("{g:g1}:ev", minid=old[1].stream_id, approximate=False)
    redis_client.hset("{g:g1}:meta", "head", 1)
    assert store.load("g1") == old and store.read_head("g1") == old[:1]
    assert store.keep_in_play("g1", snap.last_stream_id) == 2  # the format-1 head read, repacked as format 2
    assert store.read_head("g1") == digested(old[:3]) and store.load("g1") == digested(old[:3]) + old[3:]
    store.set_status("g:g1#1", "sent")
    store.set_status("g:g1#2", "sent")
    assert store.archive("g1") and store.load("g1") == digested(old)
    assert store.consumed(g, "m1") is None and store.consumed(g, "m3") == ["g:g1#2"]  # m1 known by its digest only
    assert store.consumed_in_archive("g1", "m1") and store.consumed_in_archive("g1", "m3")
    redis_client.set("{g:g1}:archive", v1_log(old))  # an archive of format 1
    assert store.load("g1") == old and store.consumed_in_archive("g1", "m1")
    assert not store.consumed_in_archive("g1", "m9")


def test_the_flood_counter_counts_each_message_of_a_minute_and_expires(redis_client: redis_lib.Redis) -> None:
    """The first message of a minute is one SET NX with the expiry, the next ones INCR: counted 1, 2, 3 all the same,
    and the minute's counter never outlives two minutes."""
    store = Store(redis_client)
    assert [store.count_message("+15551110077", 29_000_000) for _ in range(3)] == [1, 2, 3]
    assert store.count_message("+15551110077", 29_000_001) == 1  # the next minute starts again
    assert store.count_message("+15551110078", 29_000_000) == 1  # per sender
    [key] = [k for k in keys_of(redis_client, "*+15551110077*") if b"29000000" in k]
    assert redis_client.get(key) == b"3" and 0 < redis_client.ttl(key) <= 120

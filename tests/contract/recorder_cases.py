"""The game log recorder's behaviour (``service.store.recorder``), one abstract class of tests that each backend runs:
a subclass supplies only :meth:`RecorderContract.create_recorder` (pyeventsourcing's recorder test cases are the
model: ``eventsourcing/tests/persistence.py``). ``tests/contract/test_recorders.py`` runs it on the in-memory
recorder, one Redis and a Redis Cluster: the same assertions on all three."""

from __future__ import annotations

import sys
import threading
import time
import uuid
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterator, TypeVar

import pytest

from service.store import game_owner
from service.store.recorder import SnapshottingRecorder, sid_key


def ev(n: int) -> dict[str, Any]:
    """An event as the engine's ``to_dict`` gives one (the recorder never looks inside)."""
    return {"type": "bid_made", "v": 1, "seat": n % 2, "tricks": n}


T = TypeVar("T")
RACE_S = 0.4  # how long writers race (a missing lock in an in-memory recorder shows in about this)


def race(n: int, act: Callable[[int], T]) -> list[T]:
    """``act(i)`` in ``n`` threads let go together (a tiny switch interval: they interleave as much as Python lets
    them), the results in thread order."""
    barrier = threading.Barrier(n)
    results: list[T | None] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        results[i] = act(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        sys.setswitchinterval(interval)
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


class RecorderContract(ABC):
    """What any game log recorder does; a backend's subclass gives :meth:`create_recorder`."""

    @abstractmethod
    def create_recorder(self, request: pytest.FixtureRequest) -> SnapshottingRecorder:
        """A recorder holding no game yet."""

    @pytest.fixture()
    def log(self, request: pytest.FixtureRequest) -> Iterator[SnapshottingRecorder]:
        yield self.create_recorder(request)

    @pytest.fixture()
    def gid(self) -> str:
        return "c" + uuid.uuid4().hex[:10]

    def test_an_append_is_read_back_with_its_envelope_on_its_first_event(self, log: SnapshottingRecorder,
                                                                         gid: str) -> None:
        before = int(time.time() * 1000)
        res = log.append(game_owner(gid), 0, [ev(1), ev(2), ev(3)], message_id="m1",
                         outbox=[{"to": "+15550001", "body": "your turn"}])
        after = int(time.time() * 1000)
        assert (res.status, res.ok, res.version, res.outbox_ids) == ("ok", True, 3, [f"g:{gid}#1"])
        loaded = log.load(gid)
        assert [e.event for e in loaded] == [ev(1), ev(2), ev(3)]
        assert res.last_stream_id == loaded[-1].stream_id
        assert loaded[0].message_id == "m1" and loaded[0].time_ms is not None
        assert before <= loaded[0].time_ms <= after
        assert [(e.time_ms, e.message_id) for e in loaded[1:]] == [(None, None), (None, None)]
        assert log.version(gid) == 3

    def test_an_append_without_a_message_id_has_none_in_its_envelope(self, log: SnapshottingRecorder,
                                                                     gid: str) -> None:
        res = log.append(game_owner(gid), 0, [ev(1)])
        [stored] = log.load(gid)
        assert res.ok and res.outbox_ids == [] and stored.message_id is None and stored.time_ms is not None
        assert [log.append(game_owner(gid), v, [ev(v)], message_id="").status for v in (1, 2)] == ["ok", "ok"]
        assert [s.message_id for s in log.load(gid)] == [None, None, None]  # an empty id is none: never a duplicate

    def test_an_append_of_no_events_keeps_the_version_and_names_no_stream_id(self, log: SnapshottingRecorder,
                                                                             gid: str) -> None:
        log.append(game_owner(gid), 0, [ev(1)])
        res = log.append(game_owner(gid), 1, [], message_id="plan", outbox=[{"body": "plan noted"}])
        assert (res.status, res.version, res.last_stream_id, res.outbox_ids) == ("ok", 1, "", [f"g:{gid}#1"])
        assert log.version(gid) == 1 and len(log.load(gid)) == 1
        assert log.append(game_owner(gid), 1, [], message_id="plan").status == "duplicate"

    def test_a_stale_expected_version_is_refused_and_nothing_is_written(self, log: SnapshottingRecorder,
                                                                        gid: str) -> None:
        owner = game_owner(gid)
        log.append(owner, 0, [ev(1), ev(2)], message_id="m1")
        written = log.load(gid)
        for expected in (0, 1, 3):  # behind, and ahead
            res = log.append(owner, expected, [ev(9)], message_id="m2", outbox=[{"body": "x"}],
                             meta={"status": "over"}, snapshot={"whole": "state"})
            assert (res.status, res.ok, res.version, res.outbox_ids, res.last_stream_id) == ("conflict", False, 2,
                                                                                             [], "")
        assert log.load(gid) == written and log.version(gid) == 2
        assert log.state(gid).snapshot is None  # the refused append's snapshot was not kept either
        # the refused message was not consumed: decided again at the right version, it is applied, and the outbox
        # numbers go on from the last written (the refused entries took none)
        res = log.append(owner, 2, [ev(3)], message_id="m2", outbox=[{"body": "y"}])
        assert (res.status, res.version, res.outbox_ids) == ("ok", 3, [f"g:{gid}#1"])

    def test_expected_version_minus_one_is_no_check(self, log: SnapshottingRecorder, gid: str) -> None:
        log.append(game_owner(gid), 0, [ev(1)])
        res = log.append(game_owner(gid), -1, [ev(2)])
        assert (res.status, res.version) == ("ok", 2)

    def test_the_same_message_applied_twice_is_applied_once(self, log: SnapshottingRecorder, gid: str) -> None:
        owner = game_owner(gid)
        first = log.append(owner, 0, [ev(1)], message_id="m1", outbox=[{"body": "a"}, {"body": "b"}])
        assert first.outbox_ids == [f"g:{gid}#1", f"g:{gid}#2"]
        for expected in (0, 1, -1):  # the version it was decided against, the version now, no check
            again = log.append(owner, expected, [ev(1)], message_id="m1", outbox=[{"body": "a"}])
            assert (again.status, again.ok, again.version, again.outbox_ids, again.last_stream_id) == (
                "duplicate", False, 1, first.outbox_ids, "")
        assert [e.event for e in log.load(gid)] == [ev(1)] and log.version(gid) == 1
        nxt = log.append(owner, 1, [ev(2)], message_id="m2", outbox=[{"body": "c"}])
        assert nxt.outbox_ids == [f"g:{gid}#3"]  # the duplicates wrote no entry

    def test_a_plans_version_given_since_is_a_conflict(self, log: SnapshottingRecorder, gid: str) -> None:
        owner = game_owner(gid)
        assert log.append(owner, 0, [ev(1)], plans_version="0", meta={"pv": "1"}).ok
        assert log.append(owner, 1, [ev(2)], message_id="m2", plans_version="0").status == "conflict"
        assert log.append(owner, 1, [ev(2)], message_id="m2", plans_version="1").ok

    def test_reads_after_a_position_give_what_follows_it(self, log: SnapshottingRecorder, gid: str) -> None:
        owner = game_owner(gid)
        for i in range(5):
            log.append(owner, 2 * i, [ev(2 * i), ev(2 * i + 1)], message_id=f"m{i}")
        every = log.load(gid)
        assert [e.event for e in every] == [ev(n) for n in range(10)]
        for i, stored in enumerate(every):
            assert log.load(gid, after=stored.stream_id) == every[i + 1:]
        assert log.load(gid, after=every[-1].stream_id) == []

    def test_a_game_never_appended_to_is_empty_at_version_zero(self, log: SnapshottingRecorder, gid: str) -> None:
        assert log.version(gid) == 0 and log.load(gid) == []
        read = log.state(gid)
        assert (read.snapshot, read.snapshot_sid, read.events) == (None, "", [])
        assert log.append(game_owner(gid), 1, [ev(1)]).status == "conflict"  # expecting a version it never had
        assert log.version(gid) == 0

    def test_the_events_of_two_games_never_mix(self, log: SnapshottingRecorder, gid: str) -> None:
        other = gid + "b"
        for i in range(3):
            a = log.append(game_owner(gid), i, [ev(i)], message_id=f"m{i}", outbox=[{"body": "a"}])
            b = log.append(game_owner(other), 2 * i, [ev(100 + i), ev(200 + i)], message_id=f"m{i}",
                           outbox=[{"body": "b"}])  # the same message ids, each game its own
            assert (a.status, a.outbox_ids, b.status, b.outbox_ids) == (
                "ok", [f"g:{gid}#{i + 1}"], "ok", [f"g:{other}#{i + 1}"])
        assert [e.event for e in log.load(gid)] == [ev(0), ev(1), ev(2)]
        assert [e.event for e in log.load(other)] == [ev(n) for i in range(3) for n in (100 + i, 200 + i)]
        assert (log.version(gid), log.version(other)) == (3, 6)
        assert log.version(gid[:-1]) == 0 and log.version(gid + "x") == 0

    def test_stream_ids_increase_with_every_event(self, log: SnapshottingRecorder, gid: str) -> None:
        owner = game_owner(gid)
        results = [log.append(owner, i, [ev(i)]) for i in range(50)]  # many in one millisecond
        assert [r.version for r in results] == list(range(1, 51))
        loaded = log.load(gid)
        keys = [sid_key(e.stream_id) for e in loaded]
        assert keys == sorted(keys) and len(set(keys)) == 50
        assert [r.last_stream_id for r in results] == [e.stream_id for e in loaded]

    def test_a_large_batch_is_one_append(self, log: SnapshottingRecorder, gid: str) -> None:
        batch = [dict(ev(n), text="é♠" * (n % 7), cards=[f"{n % 13}S", "AH"]) for n in range(3000)]
        res = log.append(game_owner(gid), 0, batch, message_id="big")
        loaded = log.load(gid)
        assert (res.status, res.version, len(loaded)) == ("ok", 3000, 3000)
        assert [e.event for e in loaded] == batch and res.last_stream_id == loaded[-1].stream_id
        assert log.load(gid, after=loaded[2499].stream_id) == loaded[2500:]

    def test_events_come_back_as_json_gives_them(self, log: SnapshottingRecorder, gid: str) -> None:
        event: dict[str, Any] = {"type": "hand_dealt", "v": 1, "cards": ("AS", "KH"), "score": {"0": 10}}
        log.append(game_owner(gid), 0, [event])
        event["score"]["0"] = 99  # the writer's object changed afterwards: the log is not
        [stored] = log.load(gid)
        assert stored.event == {"type": "hand_dealt", "v": 1, "cards": ["AS", "KH"], "score": {"0": 10}}

    def test_two_writers_at_one_version_exactly_one_wins(self, log: SnapshottingRecorder, gid: str) -> None:
        for round_ in range(15):
            owner = game_owner(f"{gid}r{round_}")
            results = race(2, lambda i: log.append(owner, 0, [ev(i), ev(i)], message_id=f"m{i}",
                                                   outbox=[{"body": str(i)}]))
            assert sorted(r.status for r in results) == ["conflict", "ok"], round_
            [won] = [r for r in results if r.ok]
            [lost] = [r for r in results if not r.ok]
            assert (won.version, won.outbox_ids, lost.version, lost.outbox_ids) == (2, [f"{owner}#1"], 2, [])
            assert len(log.load(f"{gid}r{round_}")) == 2

    def test_writers_racing_never_win_one_version_twice(self, log: SnapshottingRecorder, gid: str) -> None:
        owner = game_owner(gid)

        def writer(i: int) -> list[tuple[int, dict[str, Any]]]:
            won, k = [], 0
            until = time.monotonic() + RACE_S
            while time.monotonic() < until:
                k += 1
                event = dict(ev(i), k=k)
                res = log.append(owner, log.version(gid), [event], message_id=f"w{i}.{k}")
                if res.ok:
                    won.append((res.version, event))
            return won

        won = sorted(w for wins in race(4, writer) for w in wins)
        assert len(won) >= 4  # the writers got on
        assert [v for v, _ in won] == list(range(1, len(won) + 1))  # each version won once, none skipped
        assert [e.event for e in log.load(gid)] == [event for _, event in won] and log.version(gid) == len(won)

    def test_one_message_handled_twice_at_once_is_applied_once(self, log: SnapshottingRecorder, gid: str) -> None:
        for round_ in range(15):
            owner = game_owner(f"{gid}r{round_}")
            results = race(2, lambda i: log.append(owner, 0, [ev(1)], message_id="m", outbox=[{"body": "a"}]))
            assert sorted(r.status for r in results) == ["duplicate", "ok"], round_
            assert results[0].outbox_ids == results[1].outbox_ids == [f"{owner}#1"]
            assert log.version(f"{gid}r{round_}") == 1

    def test_a_reader_behind_the_snapshot_starts_from_it(self, log: SnapshottingRecorder, gid: str) -> None:
        owner = game_owner(gid)
        log.append(owner, 0, [ev(0), ev(1)])
        assert log.state(gid).snapshot is None and [e.event for e in log.state(gid).events] == [ev(0), ev(1)]
        snap = log.append(owner, 2, [ev(2), ev(3)], snapshot={"hand": 2, "seen": ["AS"]})
        log.append(owner, 4, [ev(4)])
        log.append(owner, 5, [], snapshot={"hand": 99})  # no event: no snapshot written
        every = log.load(gid)
        for after in (None, every[0].stream_id, every[2].stream_id):  # cold, and behind the snapshot
            read = log.state(gid, after)
            assert (read.snapshot, read.snapshot_sid) == ({"hand": 2, "seen": ["AS"]}, snap.last_stream_id)
            assert read.events == every[4:]
        for i in (3, 4):  # at the snapshot or after it: only what follows the reader's own
            read = log.state(gid, every[i].stream_id)
            assert (read.snapshot, read.snapshot_sid, read.events) == (None, "", every[i + 1:])
        log.append(owner, 5, [ev(5)], snapshot={"hand": 3})  # a newer snapshot replaces it
        read = log.state(gid, every[4].stream_id)
        assert (read.snapshot, read.events) == ({"hand": 3}, [])

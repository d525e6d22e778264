"""A move's read and write on each backend (one Redis, a Redis Cluster: ``tests.backends.BOTH``), the store alone:
``Store.read_move`` gives one flat :class:`~service.store.MoveRecords` in one round trip when the caller's guesses
hold, and reads what they missed itself (the players the meta seats, the home a linked sender acts for, the
receipts' mark); ``Store.append_move`` is the append with what follows it in the store (after a snapshot the log
before it moved into the head; at a game's end the archive)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from service.store import Links, Reach, Store, game_owner
from service.store.move_read import MoveRecords
from tests.backends import BOTH
from tests.contract.recorder_cases import ev

pytestmark = BOTH

ANA, BO, LINKED = "+4790001001", "+4790001002", "+4790001003"


@pytest.fixture
def store(redis_client: Any) -> Store:
    return Store(redis_client)


@pytest.fixture
def gid(store: Store) -> str:
    """A game seating ANA and BO, three events long, ANA's records written."""
    game_id = uuid.uuid4().hex[:12]
    res = store.append(game_owner(game_id), 0, [ev(1), ev(2), ev(3)],
                       meta={"status": "active", "seat0": ANA, "seat1": BO, "page1": "99"})
    assert res.ok
    return game_id


def trips(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pipelines the store executes from here on (one a round trip), by their length."""
    out: list[int] = []
    make = store.pipeline

    def pipeline() -> Any:
        pipe = make()
        run = pipe.execute
        pipe.execute = lambda *a, **k: out.append(len(pipe)) or run(*a, **k)  # type: ignore[method-assign]
        return pipe

    monkeypatch.setattr(store, "pipeline", pipeline)
    return out


def message(store: Store, sender: str) -> str:
    mid = "SM" + uuid.uuid4().hex
    assert store.record_inbound(sender, mid, {"from": sender, "body": "DRAW", "channel": "sms"}, 3600) == "new"
    return mid


def test_a_message_and_its_game_in_one_round_trip(store: Store, gid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    mid = message(store, ANA)
    made = trips(store, monkeypatch)
    got = store.read_move(gid, seats=(ANA, BO), sender=ANA, message_id=mid, home=ANA)
    assert len(made) == 1
    assert isinstance(got, MoveRecords)
    assert (got.actor, got.msg and got.msg["body"], got.done, got.unreachable) == (ANA, "DRAW", None, False)
    assert got.game_id == gid and got.meta["seat1"] == BO and set(got.players) == {ANA, BO}
    assert got.record == got.players[ANA] and got.page == {1: 99} and got.now_ms > 0
    assert [e.event for e in got.events] == [ev(1), ev(2), ev(3)] and got.snapshot is None
    after = store.read_move(gid, seats=(ANA, BO), after=got.events[1].stream_id)
    assert [e.event for e in after.events] == [ev(3)] and after.msg is None and after.actor == ""


def test_what_the_guesses_missed_is_read_here(store: Store, gid: str, redis_client: Any) -> None:
    mid = message(store, LINKED)
    Links(redis_client).attach(ANA, LINKED)
    Reach(redis_client).mark_unreachable(LINKED, "30003", 1)
    got = store.read_move(gid, seats=("+4790001999", BO), sender=LINKED, message_id=mid, home=LINKED)
    assert got.actor == ANA and got.unreachable  # the home it acts for: the caller asks again as ANA's
    assert set(got.players) == {ANA, BO}  # the seats the meta names, not the ones guessed
    alone = store.read_move(sender=LINKED, message_id=mid, home=ANA)  # no game guessed
    assert alone.actor == ANA and alone.msg is not None and alone.record is not None and alone.game_id == ""
    assert store.read_move(sender=ANA, message_id="SMnone", home=ANA).msg is None


def test_the_append_of_a_move_does_what_follows_it(store: Store, gid: str) -> None:
    res = store.append_move(gid, 3, [ev(4), ev(5)], message_id="m4", snapshot={"hand": 2})
    assert res.ok and len(store.read_head(gid)) == 5  # the log up to the snapshot moved into the head
    assert store.game_consumed(gid, "m4") == []
    assert store.append_move(gid, 3, [ev(9)], message_id="m5").status == "conflict"
    done = store.append_move(gid, 5, [ev(6)], message_id="m6", outbox=[{"to": ANA, "body": "x"}], finished=True,
                             meta={"status": "over"}, ttl=60)
    assert done.ok and store.meta(gid).get("archived") == "6"  # archived
    assert [e.event for e in store.load(gid)] == [ev(n) for n in range(1, 7)]

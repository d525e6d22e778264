"""The recorder contract (:mod:`tests.contract.recorder_cases`) run on each of the game log's recorders: in process
memory, one real Redis, a real Redis Cluster (``tests/conftest.py`` starts both; each test starts from an empty one).
A subclass supplies only the recorder; the cluster's also checks the rule that lets a script run there at all."""

from __future__ import annotations

from typing import Any

import pytest

from service.store import Store, game_owner
from service.store.memory import MemoryGameLog
from service.store.recorder import SnapshottingRecorder
from tests.backends import keys_of
from tests.contract.recorder_cases import RecorderContract, ev


class TestMemoryRecorder(RecorderContract):
    def create_recorder(self, request: pytest.FixtureRequest) -> SnapshottingRecorder:
        return MemoryGameLog()


class TestRedisRecorder(RecorderContract):
    def create_recorder(self, request: pytest.FixtureRequest) -> SnapshottingRecorder:
        return Store(request.getfixturevalue("redis_client"))


@pytest.mark.usefixtures("backend")  # the recorder asks for its client by name: the parameter needs a user
@pytest.mark.parametrize("backend", ["cluster"], indirect=True)
class TestRedisClusterRecorder(RecorderContract):
    def create_recorder(self, request: pytest.FixtureRequest) -> SnapshottingRecorder:
        return Store(request.getfixturevalue("redis_client"))

    def test_every_key_of_a_game_is_in_one_slot(self, redis_client: Any, gid: str) -> None:
        store = Store(redis_client)
        store.append(game_owner(gid), 0, [ev(1)], message_id="m1", outbox=[{"body": "a"}], meta={"status": "active"},
                     snapshot={"hand": 1})
        keys = keys_of(redis_client, f"*{{g:{gid}}}*")
        assert len(keys) >= 5  # the stream, meta, consumed ids, outbox, its queue, the snapshot
        assert len({redis_client.keyslot(k) for k in keys}) == 1

"""Fixtures of the safety tests: :func:`one_minute` keeps a test's flood count in one minute of the limit;
:func:`own_redis`, a redis-server of the test's own to kill and start again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import time_machine

from .redis_proc import RedisProc


@pytest.fixture
def one_minute() -> Iterator[None]:
    """Start the test's clock at the top of the current minute, ticking: the flood limit counts messages per
    minute (``int(now // 60)``), so a burst that straddles a minute's end would be counted in two windows."""
    with time_machine.travel(time.time() // 60 * 60, tick=True):
        yield


@pytest.fixture()
def own_redis(tmp_path: Path) -> Iterator[RedisProc]:
    r = RedisProc(tmp_path / "redis")
    r.start()
    yield r
    r.stop()

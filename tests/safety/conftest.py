"""Fixtures of the safety tests: :func:`one_minute` keeps a test's flood count in one minute of the limit."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import time_machine


@pytest.fixture
def one_minute() -> Iterator[None]:
    """Start the test's clock at the top of the current minute, ticking: the flood limit counts messages per
    minute (``int(now // 60)``), so a burst that straddles a minute's end would be counted in two windows."""
    with time_machine.travel(time.time() // 60 * 60, tick=True):
        yield

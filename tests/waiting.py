"""Waiting in tests for something a real process does (a worker handling a message, a page updating)."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_for(what: str, check: Callable[[], Any], timeout: float = 20.0, interval: float = 0.02,
             ignore: tuple[type[Exception], ...] = ()) -> Any:
    """``check()``'s first truthy value, polling every ``interval`` s; fails the test after ``timeout`` s.
    ``ignore``: errors of ``check()`` that count as "not yet" (a read during a failover, say)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = check()
        except ignore:
            got = None
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)

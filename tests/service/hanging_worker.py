"""A Celery worker app for the crash tests: ``workers.celery_app``'s, with a fault injected from here.

``TEST_HANG=<point>:<marker dir>`` (``before_append`` or ``after_append``) makes the worker hang once,
at that point of a move's append to a game (``Store.append`` of a ``g:`` owner with a message id),
if ``<marker dir>/armed`` exists: the test then kills it there (SIGKILL).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from service.store import AppendResult, Store
from workers.celery_app import celery

_append = Store.append


def _hang_once(point: str) -> None:
    spec = os.environ.get("TEST_HANG", "")
    if not spec.startswith(point + ":"):
        return
    d = Path(spec.split(":", 1)[1])
    try:
        (d / "armed").unlink()
    except FileNotFoundError:
        return
    (d / f"reached-{os.getpid()}").write_text(point)
    time.sleep(3600)


def _append_with_fault(self: Store, owner: str, expected_version: int, *args: Any, **kwargs: Any) -> AppendResult:
    move = owner.startswith("g:") and expected_version >= 0 and bool(kwargs.get("message_id"))
    if move:
        _hang_once("before_append")
    res = _append(self, owner, expected_version, *args, **kwargs)
    if move and res.ok:
        _hang_once("after_append")
    return res


Store.append = _append_with_fault  # type: ignore[method-assign]

__all__ = ["celery"]

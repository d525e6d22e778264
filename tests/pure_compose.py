"""The check that composing a move's messages calls no gateway (issue 42: read -> decide -> compose -> write): while
:func:`service.games.apply`'s compose step (``turn_messages``) runs in a thread, any Redis command that thread sends,
directly, in a pipeline or a script, on the single Redis or the cluster, is a violation. The test that saw one fails
(:func:`pure_compose_checked`, autouse in ``tests/conftest.py``), so every move the suite plays is checked: a read
or a write reintroduced in the middle of composing fails the tests that play such a move."""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import redis.client
import redis.cluster

_state = threading.local()
violations: list[str] = []  # what was sent while composing (read, and emptied, by each test)
_installed: list[bool] = []


@contextmanager
def composing() -> Iterator[None]:
    """Mark the current thread as composing a move's messages: a Redis command it sends meanwhile is a violation."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1


def _guarded(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(_state, "depth", 0):
            what = f"{type(self).__name__}.{original.__name__}{args[:1]!r}"
            violations.append(what)
            raise AssertionError(f"a Redis command while composing a move's messages: {what}")
        return original(self, *args, **kwargs)
    return call


def install() -> None:
    """Guard the Redis clients' I/O and mark the move's compose step (once a process)."""
    if _installed:
        return
    _installed.append(True)
    for cls, name in ((redis.client.Redis, "execute_command"), (redis.client.Pipeline, "execute"),
                      (redis.cluster.RedisCluster, "execute_command"), (redis.cluster.ClusterPipeline, "execute")):
        setattr(cls, name, _guarded(getattr(cls, name)))
    from service.games import apply

    compose = apply.turn_messages

    @functools.wraps(compose)
    def pure(*args: Any, **kwargs: Any) -> Any:
        with composing():
            return compose(*args, **kwargs)

    apply.turn_messages = pure  # type: ignore[assignment]

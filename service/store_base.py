"""What the store's parts share: the clock of the store, queueing a Lua script on a pipeline, a stream entry."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from redis.client import Pipeline
from redis.commands.core import AsyncScript, Script


def now_ms() -> int:
    return int(time.time() * 1000)


def queue_script(pipe: Pipeline, script: Script | AsyncScript, keys: list[Any], args: list[Any]) -> None:
    """Queue a Lua script on a pipeline as ``EVAL`` of its text: redis-py's own way (``client=pipe``) asks
    ``SCRIPT EXISTS`` first, one more round trip per pipeline; EVAL never meets a missing script and
    the server keeps the compiled script by its hash anyway."""
    pipe.eval(script.script, len(keys), *keys, *args)


def sid_key(stream_id: str) -> tuple[int, int]:
    ms, _, seq = stream_id.partition("-")
    return int(ms), int(seq or 0)


@dataclass(frozen=True)
class StoredEvent:
    """One stream entry: the stream id, the engine event dict, and the envelope (only on a batch's first)."""

    stream_id: str
    event: dict[str, Any]
    time_ms: int | None = None
    message_id: str | None = None

"""What the store's parts share: the client type (one Redis or a Redis Cluster), the clock of the store, queueing a
Lua script on a pipeline, a stream entry, a compressed log (an archive, a game's head), every primary of a cluster
for the operator's scans."""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Union

import redis
from redis.client import Pipeline
from redis.cluster import RedisCluster
from redis.commands.core import AsyncScript, Script

from .codec import text

Client = Union[redis.Redis, RedisCluster]  # every store part takes either: keys of one script share a slot


def is_cluster(cfg: Mapping[str, Any]) -> bool:
    """Whether the service's Redis is a Redis Cluster (``redis+cluster://`` or ``SLOWSPADES_REDIS_CLUSTER``)."""
    return str(cfg.get("REDIS_URL", "")).startswith("redis+cluster://") or bool(cfg.get("REDIS_CLUSTER"))


def now_ms() -> int:
    return int(time.time() * 1000)


def queue_script(pipe: Pipeline, script: Script | AsyncScript, keys: list[Any], args: list[Any]) -> None:
    """Queue a Lua script on a pipeline as ``EVAL`` of its text: redis-py's own way (``client=pipe``) asks
    ``SCRIPT EXISTS`` first, one more round trip per pipeline; EVAL never meets a missing script and
    the server keeps the compiled script by its hash anyway. (``execute_command``: a cluster pipeline has no
    ``eval`` of its own; it routes EVAL by its keys.)"""
    pipe.execute_command("EVAL", script.script, len(keys), *keys, *args)


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


def scan_keys(client: Client, match: str, count: int = 1000) -> Iterator[Any]:
    """SCAN for ``match`` on one Redis, or on every primary of a cluster (operator use: walks the keyspace)."""
    if isinstance(client, RedisCluster):
        return client.scan_iter(match=match, count=count, target_nodes=RedisCluster.PRIMARIES)
    return client.scan_iter(match=match, count=count)


def pack_log(events: list[StoredEvent], level: int = 9) -> bytes:
    """Events as one compressed value (zlib of JSON lines ``[stream id, event, t, m]``): an archive, a head."""
    lines = "\n".join(json.dumps([e.stream_id, e.event, e.time_ms, e.message_id], separators=(",", ":"))
                      for e in events)
    return zlib.compress(lines.encode(), level)


def unpack_log(raw: bytes | None) -> list[StoredEvent]:
    """:func:`pack_log`'s events back (none for ``None``)."""
    if not raw:
        return []
    return [StoredEvent(sid, event, t, m)
            for sid, event, t, m in (json.loads(line) for line in zlib.decompress(raw).decode().split("\n"))]


def stream_entries(entries: list[Any]) -> list[StoredEvent]:
    """An XRANGE reply as stored events (redis-py's, fields as a dict, or a script's, as a flat list)."""
    out = []
    for sid, fields in entries:
        pairs = fields.items() if isinstance(fields, dict) else zip(fields[::2], fields[1::2])
        f = {text(a): text(b) for a, b in pairs}
        out.append(StoredEvent(text(sid), json.loads(f["e"]), int(f["t"]) if "t" in f else None, f.get("m") or None))
    return out

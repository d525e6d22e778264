"""What the store's parts share: the client type (one Redis or a Redis Cluster), the clock of the store, queueing a
Lua script on a pipeline, a stream entry, a compressed log (an archive, a game's head), every primary of a cluster
for the operator's scans."""

from __future__ import annotations

import base64
import json
import time
import zlib
from dataclasses import replace
from typing import Any, Iterable, Iterator, Mapping, Union

import redis
from redis.client import Pipeline
from redis.cluster import ClusterPipeline, RedisCluster
from redis.commands.core import AsyncScript, Script

from .codec import text_entries
from .keys import message_digest
from .recorder import StoredEvent as StoredEvent  # the recorder's records (service.store.recorder), here as before
from .recorder import sid_key as sid_key

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
    ``eval`` of its own; :func:`queue_eval` addresses it to its keys' node.)"""
    body = script.script
    queue_eval(pipe, body if isinstance(body, str) else bytes(body).decode(), keys, args)


def queue_eval(pipe: Pipeline, body: str, keys: list[Any], args: list[Any]) -> None:
    """Queue ``EVAL body`` on a pipeline; on a cluster pipeline addressed to the node of its first key: left
    to find its node itself, a cluster pipeline of redis-py 8 asks a server ``COMMAND GETKEYS`` for every
    EVAL it holds (a round trip each, before the pipeline is even sent), where a plain ``RedisCluster`` call
    reads the keys from the arguments. (A MOVED reply is followed all the same: the retry routes by key.)"""
    if isinstance(pipe, ClusterPipeline):
        pipe.execute_command("EVAL", body, len(keys), *keys, *args, target_nodes=pipe.get_node_from_key(keys[0]))
    else:
        pipe.execute_command("EVAL", body, len(keys), *keys, *args)


def scan_keys(client: Client, match: str, count: int = 1000) -> Iterator[Any]:
    """SCAN for ``match`` on one Redis, or on every primary of a cluster (operator use: walks the keyspace)."""
    if isinstance(client, RedisCluster):
        return client.scan_iter(match=match, count=count, target_nodes=RedisCluster.PRIMARIES)
    return client.scan_iter(match=match, count=count)


LOG_FORMAT = 2  # 1: JSON lines ``[stream id, event, t, m]`` (still read); 2: one columnar JSON object
DIGEST_MARK = "#"  # a logged message id that starts with it is the 64-bit digest of the id (format 2)


def log_digest(message_id: str) -> str:
    """How a format-2 log keeps ``message_id``: ``#`` and the 16 hex digits of its 64-bit blake2b digest (the
    inbound claims' :func:`service.store.keys.message_digest`); a digest stays as it is."""
    if message_id.startswith(DIGEST_MARK):
        return message_id
    return DIGEST_MARK + format(message_digest(message_id) & 0xFFFF_FFFF_FFFF_FFFF, "016x")


def same_message(logged: str | None, message_id: str) -> bool:
    """Whether a log's message id (a real one, or a digest: :func:`log_digest`) is ``message_id``'s."""
    if not logged:
        return False
    return logged == message_id or (logged.startswith(DIGEST_MARK) and logged == log_digest(message_id))


def real_ids(logged: Iterable[str | None], known: Iterable[str]) -> list[str]:
    """The message ids of a log as real ids: a digest becomes the id of ``known`` (e.g. a consumed hash's
    fields) it is the digest of; a digest of none of them is left out. In order, once each."""
    wanted = [m for m in dict.fromkeys(logged) if m]
    by_digest = {log_digest(m): m for m in known} if any(m.startswith(DIGEST_MARK) for m in wanted) else {}
    out = [by_digest.get(m) if m.startswith(DIGEST_MARK) else m for m in wanted]
    return list(dict.fromkeys(m for m in out if m))


def digested(events: Iterable[StoredEvent]) -> list[StoredEvent]:
    """``events`` as a format-2 log gives them back (their message ids as digests)."""
    return [replace(e, message_id=log_digest(e.message_id)) if e.message_id else e for e in events]


def pack_log(events: list[StoredEvent], level: int = 9) -> bytes:
    """Events as one compressed value (an archive, a head): zlib of one JSON object, column by column
    (``{"f": 2, "s": [[ms - previous ms, seq], ...], "t": [time ms - stream ms, or null], "k": [1 if the event
    has a message id, else 0], "m": base64 of the 8-byte digests of those ids, one after the other, "e": [event,
    ...]}``). The message ids (mostly a provider's random ids: pure entropy) are kept as 64-bit digests, enough
    to recognise a retry (:func:`same_message`); base64 compresses to some 8.6 bytes a digest, where 16 hex
    digits in a JSON list took 11. Format 1 (JSON lines ``[stream id, event, t, m]``) is still read."""
    sids, prev = [], 0
    for e in events:
        ms, seq = sid_key(e.stream_id)
        sids.append([ms - prev, seq])
        prev = ms
    doc = {"f": LOG_FORMAT, "s": sids,
           "t": [None if e.time_ms is None else e.time_ms - sid_key(e.stream_id)[0] for e in events],
           "k": [1 if e.message_id else 0 for e in events],
           "m": base64.b64encode(b"".join(bytes.fromhex(log_digest(e.message_id)[1:])
                                          for e in events if e.message_id)).decode(),
           "e": [e.event for e in events]}
    return zlib.compress(json.dumps(doc, separators=(",", ":")).encode(), level)


def unpack_log(raw: bytes | str | None) -> list[StoredEvent]:
    """:func:`pack_log`'s events back, of either format (none for ``None``); a digest as ``#<hex>``."""
    if not raw:
        return []
    if isinstance(raw, str):
        raw = raw.encode()
    data = zlib.decompress(raw)
    if not data.startswith(b"{"):  # format 1: JSON lines, each a list
        return [StoredEvent(sid, event, t, m)
                for sid, event, t, m in (json.loads(line) for line in data.decode().split("\n") if line)]
    doc = json.loads(data)
    if doc.get("f") != LOG_FORMAT:
        raise ValueError(f"unknown log format {doc.get('f')!r}")
    digests = iter(DIGEST_MARK + d.hex() for d in batched(base64.b64decode(doc["m"]), 8))
    out, ms = [], 0
    for (delta, seq), t, k, event in zip(doc["s"], doc["t"], doc["k"], doc["e"]):
        ms += delta
        out.append(StoredEvent(f"{ms}-{seq}", event, None if t is None else ms + t, next(digests) if k else None))
    return out


def batched(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in pieces of ``size`` bytes."""
    return (data[i:i + size] for i in range(0, len(data), size))


def stream_entries(entries: list[Any]) -> list[StoredEvent]:
    """An XRANGE reply as stored events (redis-py's, fields as a dict, or a script's, as a flat list)."""
    return [StoredEvent(sid, json.loads(f["e"]), int(f["t"]) if "t" in f else None, f.get("m") or None)
            for sid, f in text_entries(entries)]

"""A write acknowledged only once a replica has it: the write and ``WAIT 1 <ms>`` in one round trip on one
connection (``SLOWSPADES_REPLICA_WAIT_MS``; off, 0, for a single Redis without replicas).

``WAIT`` counts the replicas that acknowledged the writes of *its own connection*, so it goes in the same
pipeline as the write, to the node holding the write's slot: on a Redis Cluster, that node's own client
(``RedisCluster.get_redis_connection``); a pipeline of one node, so its commands must all be served by
that node: the write's slot, and at most the index entry below.

An owner's entry in a formerly global index (its ``{dirty:<k>}`` shard, a message's ``{inpend:<k>}``) has to
be written *before* the write it indexes, and an index shard lies in a slot of its own: on a cluster
:func:`registry_shard` picks, among the shards of that index, one served by the same master as the write
(the beat and the sweeps scan every shard, so any shard will do), and the index entry goes in the same
pipeline, ahead of the write and the ``WAIT``: one round trip, not two. With no such shard (or a topology
this client has not caught up with) the entry goes first on its own, as it did before.

The policy when no replica answers in time is the caller's: :func:`run_replicated` returns how many did.
A write no replica acknowledged is not taken as done: on the minority side of a partition, a master keeps
taking writes until ``cluster-node-timeout`` passes (or ``min-replicas-max-lag``, with ``min-replicas-to-write``),
and they are gone once its replica, promoted by the majority, is master and it a replica again (docs/scaling.md).
``Store.append`` raises :class:`ReplicaLagError` (a ``RuntimeError``: the handler task retries, and the
retried append is a duplicate that waits again); so does the webhook's record (``Store.record_inbound``): the
web keeps the message in its spool on disk, as when Redis does not answer, and hands it over once a master
with a replica takes it (:mod:`service.spool`). Both are counted (:data:`LAGGED`).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any, Callable

import redis
from redis.client import Pipeline
from redis.cluster import RedisCluster
from redis.crc import key_slot

from .base import Client
from .keys import shards

log = logging.getLogger(__name__)
LAGGED: Counter[str] = Counter()  # writes no replica acknowledged in time, by kind (this process)
MOVED_RETRIES = 5
# the node no longer serves the slot, or not now (redis-py parses these replies into their own classes, without
# the word in the message)
MOVED = (redis.exceptions.MovedError, redis.exceptions.AskError, redis.exceptions.TryAgainError,
         redis.exceptions.ClusterDownError)


class ReplicaLagError(RuntimeError):
    """A write reached its master but no replica acknowledged it within ``SLOWSPADES_REPLICA_WAIT_MS``."""


def run_replicated(client: Client, key: str, wait_ms: int, queue: Callable[[Pipeline], None],
                   index: tuple[str, str, int, bool] | None = None) -> tuple[list[Any], int]:
    """Run the commands ``queue`` puts on a pipeline (all of ``key``'s slot), then ``WAIT 1 wait_ms``, in one
    round trip on the connection of ``key``'s node; returns (their replies, the replicas that acknowledged).

    ``index``: (shard key, member, score ms, NX) of a sorted-set entry written first (:func:`registry_shard`):
    in the same pipeline when its shard is served by the same node, else on its own before."""
    attempt = 0
    while True:
        node_client = (client.get_redis_connection(client.get_node_from_key(key)) if isinstance(client, RedisCluster)
                       else client)
        pipe = node_client.pipeline(transaction=False)
        joined = index is not None and same_node(client, index[0], key)
        if index is not None:
            (pipe if joined else client).zadd(index[0], {index[1]: index[2]}, nx=index[3])
        queue(pipe)
        pipe.execute_command("WAIT", 1, int(wait_ms))
        replies = pipe.execute(raise_on_error=False)
        moved = [r for r in replies if isinstance(r, MOVED)
                 or (isinstance(r, redis.ResponseError) and str(r).startswith(("MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN")))]
        # a node that became a replica (a failover) answers MOVED to the writes and an error to the WAIT
        errors = [r for r in replies if isinstance(r, Exception) and r not in moved
                  and not (moved and "replica" in str(r) and r is replies[-1])]
        if errors:
            raise errors[0]
        if joined and moved == replies[:1] and index is not None:  # only the index's shard moved: the write ran
            client.zadd(index[0], {index[1]: index[2]}, nx=index[3])  # so the index goes after it, through the
            moved = []  # cluster client (the writer is alive: it is about to act on the write itself)
        if moved:  # a slot moved (a failover, a reshard): ask the cluster again and redo it all (idempotent)
            if not isinstance(client, RedisCluster) or attempt == MOVED_RETRIES:
                raise moved[0]
            client.nodes_manager.initialize()
            attempt += 1
            time.sleep(0.1 * attempt)
            continue
        first = 1 if joined else 0
        return replies[first:-1], int(replies[-1])


def master_of(client: RedisCluster, key: str, slot: int | None = None) -> str | None:
    """The name of the master serving ``key``'s slot (``slot``, if known), as far as this client knows (None: a
    slot it has no node for)."""
    nodes = client.nodes_manager.slots_cache.get(key_slot(key.encode()) if slot is None else slot)
    return nodes[0].name if nodes else None


SHARD_SLOTS = {kind: [(key, key_slot(key.encode())) for key in shards(kind)] for kind in ("dirty", "inpend")}


def same_node(client: Client, a: str, b: str) -> bool:
    """Whether keys ``a`` and ``b`` are served by one master (always, on a single Redis), as far as this client knows."""
    if not isinstance(client, RedisCluster):
        return True
    here = master_of(client, a)
    return here is not None and here == master_of(client, b)


def registry_shard(client: Client, kind: str, key: str, default: str) -> str:
    """The shard of index ``kind`` (``dirty`` or ``inpend``, :func:`~service.store.keys.shards`) to hold the entry of
    the write to ``key``: on a Redis Cluster, one served by the master that serves ``key`` (chosen among them by
    ``default``'s place among the shards, ``default`` being the shard :mod:`service.store.keys` gives the entry, so
    that an entry keeps its shard while the topology stays); else, or if no shard is on that master, ``default``.

    Only the shard an entry was written to may be asked to drop it: a reshard in between leaves it where it
    was, and the sweep that finds it there removes it (``stale_outbox``, ``stale_inbound``)."""
    if not isinstance(client, RedisCluster):
        return default
    master = master_of(client, key)
    every = SHARD_SLOTS[kind]
    near = [k for k, slot in every if master is not None and master_of(client, k, slot) == master]
    return near[[k for k, _ in every].index(default) % len(near)] if near else default


def lagged(kind: str, key: str, wait_ms: int) -> None:
    """Log and count a write no replica acknowledged within ``wait_ms``."""
    LAGGED[kind] += 1
    log.warning("%s of %s: no replica acknowledged it within %d ms (SLOWSPADES_REPLICA_WAIT_MS); %d so far",
                kind, key, wait_ms, LAGGED[kind])

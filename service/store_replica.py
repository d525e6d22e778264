"""A write acknowledged only once a replica has it: the write and ``WAIT 1 <ms>`` in one round trip on one
connection (``SLOWSPADES_REPLICA_WAIT_MS``; off, 0, for a single Redis without replicas).

``WAIT`` counts the replicas that acknowledged the writes of *its own connection*, so it goes in the same
pipeline as the write, to the node holding the write's slot: on a Redis Cluster, that node's own client
(``RedisCluster.get_redis_connection``); a pipeline of one node, so its commands must all be of the
write's slot (anything else goes through the cluster client before).

The policy when no replica answers in time is the caller's: :func:`run_replicated` returns how many did.
``Store.append`` raises :class:`ReplicaLagError` (a ``RuntimeError``: the handler task retries, and the
retried append is a duplicate that waits again); the webhook's record only logs and counts it
(:data:`LAGGED`), since its 200 must come quickly and Twilio does not retry a message anyway.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any, Callable

import redis
from redis.client import Pipeline
from redis.cluster import RedisCluster

from .store_base import Client

log = logging.getLogger(__name__)
LAGGED: Counter[str] = Counter()  # writes no replica acknowledged in time, by kind (this process)
MOVED_RETRIES = 5


class ReplicaLagError(RuntimeError):
    """A write reached its master but no replica acknowledged it within ``SLOWSPADES_REPLICA_WAIT_MS``."""


def run_replicated(client: Client, key: str, wait_ms: int, queue: Callable[[Pipeline], None]) -> tuple[list[Any], int]:
    """Run the commands ``queue`` puts on a pipeline (all of ``key``'s slot), then ``WAIT 1 wait_ms``, in one
    round trip on the connection of ``key``'s node; returns (their replies, the replicas that acknowledged)."""
    attempt = 0
    while True:
        node_client: redis.Redis = client
        if isinstance(client, RedisCluster):
            node_client = client.get_redis_connection(client.get_node_from_key(key))
        pipe = node_client.pipeline(transaction=False)
        queue(pipe)
        pipe.execute_command("WAIT", 1, int(wait_ms))
        try:
            replies = pipe.execute()
        except redis.ResponseError as exc:  # the slot moved (a failover): nothing ran; ask the cluster again
            if not isinstance(client, RedisCluster) or not str(exc).startswith(("MOVED", "ASK", "CLUSTERDOWN")) \
                    or attempt == MOVED_RETRIES:
                raise
            client.nodes_manager.initialize()
            attempt += 1
            time.sleep(0.1 * attempt)
            continue
        return replies[:-1], int(replies[-1])


def lagged(kind: str, key: str, wait_ms: int) -> None:
    """Log and count a write no replica acknowledged within ``wait_ms``."""
    LAGGED[kind] += 1
    log.warning("%s of %s: no replica acknowledged it within %d ms (SLOWSPADES_REPLICA_WAIT_MS); %d so far",
                kind, key, wait_ms, LAGGED[kind])

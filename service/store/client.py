"""The connection to Redis: one server or a Redis Cluster, the errors that mean "Redis does not answer",
and the pipeline type the rest of the service queues reads and writes on."""

from __future__ import annotations

from typing import Any, Mapping

import redis
from redis._parsers.base import BaseParser
from redis.backoff import ExponentialBackoff
from redis.client import Pipeline
from redis.cluster import RedisCluster
from redis.retry import Retry

from .base import Client, is_cluster


class NoReplicasError(redis.exceptions.ResponseError):
    """``NOREPLICAS``: a master with ``min-replicas-to-write`` refused a write, no replica having acknowledged it
    within ``min-replicas-max-lag`` (cut off from its replica by a partition, say: docs/scaling.md)."""


BaseParser.EXCEPTION_CLASSES["NOREPLICAS"] = NoReplicasError  # redis-py raises a bare ResponseError otherwise

# Redis does not answer, or does not take writes now (a restart, a failover under way, a master cut off from its
# replica or from the cluster's majority): the caller keeps the work for later
UNREACHABLE: tuple[type[Exception], ...] = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                                            redis.exceptions.ClusterDownError, NoReplicasError)
# what a worker task retries (a Lua script's RuntimeError too: the service's own conflict signal)
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (*UNREACHABLE, RuntimeError)

__all__ = ["TRANSIENT_ERRORS", "UNREACHABLE", "Client", "NoReplicasError", "Pipeline", "connect", "describe", "is_cluster"]


def connect(config: Mapping[str, Any]) -> Client:
    """The client of ``REDIS_URL``: a ``RedisCluster`` for ``redis+cluster://host:port`` (or with
    ``REDIS_CLUSTER``; it finds the other nodes from that one), else one ``Redis``."""
    url = str(config["REDIS_URL"])
    if is_cluster(config):
        url = "redis://" + url[len("redis+cluster://"):] if url.startswith("redis+cluster://") else url
        # retried across a failover (a replica takes over a master's slots within seconds)
        return RedisCluster.from_url(url, decode_responses=False, socket_timeout=10, socket_connect_timeout=2,
                                     retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), 20))
    return redis.Redis.from_url(url, decode_responses=False, health_check_interval=30, socket_timeout=10)


def describe(client: Client) -> str:
    """The Redis the CLI reads, as ``redis://host:port/db`` (a password left out), so an operator sees which one;
    a cluster as ``redis+cluster://host:port/`` (the node it was reached by) and its number of primaries."""
    if isinstance(client, RedisCluster):
        node = next(iter(client.nodes_manager.startup_nodes.values()), None) or client.get_default_node()
        return f"redis+cluster://{node.host}:{node.port}/ ({len(client.get_primaries())} primaries)"
    kw = client.connection_pool.connection_kwargs
    if kw.get("path"):
        return f"unix://{kw['path']}?db={kw.get('db', 0)}"
    return f"redis://{kw.get('host', 'localhost')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"

"""Celery's Redis transport, made to survive a Redis restart (issue 22 case 4): kombu's own, except that a channel
does not try to put its unacknowledged messages back when it is closed, and that a channel whose connection was
lost says so (a connection error, which Celery handles) instead of rebuilding a pool from nothing.

When the worker loses Redis with a task in flight (acknowledged late), Celery 5.7 collects the connection (its
transport forgets the connection's parameters) and then closes it; closing the task channel restores the
unacknowledged message through a connection pool rebuilt from those parameters, and the worker dies with
``AttributeError: 'NoneType' object has no attribute 'hostname'``. Redis needs no such restore: the message stays
in kombu's unacked index and ``restore_visible`` gives it again once ``SLOWSPADES_VISIBILITY_TIMEOUT`` is over
(every ``unacked_restore_interval`` seconds the transport looks), exactly as for a worker that was killed.
Likewise a task that finishes after the loss is acknowledged on the closed channel: that raised the same
``AttributeError`` (``'NoneType' object has no attribute 'client'``); it is now a lost connection, which Celery
logs ("Couldn't ack"), and the task comes back after the visibility timeout (its message id makes it a no-op).

And a channel keeps its publishing client: kombu builds a new ``redis.Redis`` (and its table of reply callbacks)
for every message it publishes, which was a tenth of the webhook's CPU; the client is only a handle on the
channel's connection pool, so one per pool does the same work.

Selected by ``broker_transport`` (:func:`service.config.finish_config`) for ``redis://`` brokers.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(redis.Channel):
    """kombu's Redis channel without the restore at close (``do_restore``), and without a pool once its
    connection is gone: see the module's note."""

    do_restore = False

    def _get_pool(self, asynchronous: bool = False) -> Any:
        transport = self.connection
        if transport is None or transport.client is None:  # closed, or its connection collected after a loss
            raise RedisConnectionError("the broker connection of this channel was lost")
        return super()._get_pool(asynchronous=asynchronous)

    def _create_client(self, asynchronous: bool = False) -> Any:
        """The publishing client, one per connection pool (kombu's makes one per message)."""
        if asynchronous:
            return super()._create_client(asynchronous=True)
        pool = self.pool
        client = self.__dict__.get("_publish_client")
        if client is None or client.connection_pool is not pool:
            client = self.__dict__["_publish_client"] = super()._create_client()
        return client


class Transport(redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel

"""Celery's Redis transport, made to survive a Redis restart (issue 22 case 4): kombu's own, except that a channel
does not try to put its unacknowledged messages back when it is closed.

When the worker loses Redis with a task in flight (acknowledged late), Celery 5.7 collects the connection (its
transport forgets the connection's parameters) and then closes it; closing the task channel restores the
unacknowledged message through a connection pool rebuilt from those parameters, and the worker dies with
``AttributeError: 'NoneType' object has no attribute 'hostname'``. Redis needs no such restore: the message stays
in kombu's unacked index and ``restore_visible`` gives it again once ``SLOWSPADES_VISIBILITY_TIMEOUT`` is over
(every ``unacked_restore_interval`` seconds the transport looks), exactly as for a worker that was killed.
Selected by ``broker_transport`` (:func:`service.config.finish_config`) for ``redis://`` brokers.
"""

from __future__ import annotations

from kombu.transport import redis


class Channel(redis.Channel):
    """kombu's Redis channel without the restore at close (``do_restore``): see the module's note."""

    do_restore = False


class Transport(redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel

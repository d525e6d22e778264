"""Celery's broker settings, from the service's config (:func:`service.config.finish_config` puts them in Celery's):
the transport of a Redis broker, the transport options of a Redis or a RabbitMQ broker, and the options of the web's
inbound task where they differ."""

from __future__ import annotations

from typing import Any, Mapping


def broker_transport(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Celery's ``broker_transport`` for a ``redis://`` broker: kombu's Redis transport without the restore at
    channel close that killed the worker on a Redis restart (:mod:`service.store.broker`, issue 22 case 4)."""
    if str(cfg["BROKER_URL"]).startswith("redis://"):
        return {"broker_transport": "service.store.broker:Transport"}
    return {}


def is_rabbitmq(cfg: Mapping[str, Any]) -> bool:
    """Whether Celery's broker is RabbitMQ (an ``amqp://`` URL), not a Redis."""
    return str(cfg["BROKER_URL"]).startswith(("amqp://", "amqps://", "pyamqp://"))


def transport_options(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Celery's ``broker_transport_options`` for the broker. Redis: a task taken by a worker that died is
    given to another after ``VISIBILITY_TIMEOUT``. RabbitMQ (``amqp://``): queues are durable (kombu's
    default) and with ``task_acks_late`` a task is acknowledged after it ran, so RabbitMQ gives a dead
    worker's tasks to another as soon as its connection drops; publisher confirms make ``send_task``
    return only once the broker has the task (a receipt's 200 then means it is queued; the inbound task, whose
    record is in Redis, goes without them: :func:`inbound_transport_options`)."""
    if is_rabbitmq(cfg):
        return {"confirm_publish": True}
    return {
        "visibility_timeout": int(cfg["VISIBILITY_TIMEOUT"]),
        # look for tasks of dead workers every few seconds (kombu's default is ~100 s)
        "unacked_restore_interval": max(1, min(5, int(cfg["VISIBILITY_TIMEOUT"]) // 2)),
        "unacked_restore_throttle": 1,
    }


def inbound_transport_options(cfg: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``broker_transport_options`` of the web's inbound task (``handle_inbound``), where they differ from
    :func:`transport_options`: on RabbitMQ, no publisher confirms. What the webhook's 200 promises is the record,
    which Redis (and with ``REPLICA_WAIT_MS`` a replica) acknowledged before the task is queued, and its pending mark:
    a task the broker loses is queued again by the sweep after ``SWEEP_AFTER``. Waiting for the confirm held one of
    gunicorn's threads on every move (docs/performance.md). Every other task the web queues (a delivery receipt:
    nothing records it first) keeps the confirms. None: the same options (a Redis broker)."""
    return {**transport_options(cfg), "confirm_publish": False} if is_rabbitmq(cfg) else None

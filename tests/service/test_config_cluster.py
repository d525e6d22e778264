"""The cluster's and RabbitMQ's settings: a Redis Cluster is never the broker, RabbitMQ gets publisher confirms
and late acks, the local default stays one Redis for both."""

from __future__ import annotations

import pytest

from service.config import load_config
from service.store.base import is_cluster


def test_the_local_default_is_one_redis_for_the_store_and_the_broker() -> None:
    cfg = load_config({})
    assert not is_cluster(cfg) and cfg["BROKER_URL"] == cfg["REDIS_URL"]
    assert cfg["CELERY"]["broker_transport_options"]["visibility_timeout"] == cfg["VISIBILITY_TIMEOUT"]


def test_a_cluster_needs_a_broker_of_its_own() -> None:
    with pytest.raises(ValueError, match="BROKER_URL"):
        load_config({"SLOWSPADES_REDIS_URL": "redis+cluster://127.0.0.1:7000"})
    with pytest.raises(ValueError, match="BROKER_URL"):
        load_config({"SLOWSPADES_REDIS_URL": "redis://127.0.0.1:7000", "SLOWSPADES_REDIS_CLUSTER": "1"})


def test_rabbitmq_gets_durable_late_acknowledged_tasks_and_publisher_confirms() -> None:
    cfg = load_config({"SLOWSPADES_REDIS_URL": "redis+cluster://127.0.0.1:7000",
                       "SLOWSPADES_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//"})
    assert is_cluster(cfg)
    celery = cfg["CELERY"]
    assert celery["task_acks_late"] and celery["task_reject_on_worker_lost"] and celery["worker_prefetch_multiplier"] == 1
    assert celery["broker_transport_options"] == {"confirm_publish": True}


def test_the_webhooks_inbound_task_goes_to_rabbitmq_without_waiting_for_a_confirm() -> None:
    """The record in Redis is what the 200 promises (the sweep queues a lost task again); a receipt, which nothing
    records first, keeps the confirms (docs/performance.md, issue 21)."""
    from service.broker_options import inbound_transport_options

    rabbit = load_config({"SLOWSPADES_REDIS_URL": "redis+cluster://127.0.0.1:7000",
                          "SLOWSPADES_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//"})
    assert inbound_transport_options(rabbit) == {"confirm_publish": False}
    assert rabbit["CELERY"]["broker_transport_options"] == {"confirm_publish": True}
    assert inbound_transport_options(load_config({})) is None  # a Redis broker: the one way to queue

"""The unit tier runs on the engine and the in-memory game log only: a test here that asks for a fixture starting Redis,
Celery or the app fails (those belong to the tiers above: ``tests/contract``, ``tests/service``...)."""

from __future__ import annotations

import pytest

SERVERS = {"redis_client", "redis_url", "single_redis_url", "redis_cluster", "backend", "broker_url", "app", "svc",
           "client", "celery_worker", "smtp_server", "chromium"}


@pytest.fixture(autouse=True)
def _no_servers(request: pytest.FixtureRequest) -> None:
    used = sorted(SERVERS & set(request.fixturenames))
    if used:
        pytest.fail(f"a unit test runs without servers; {request.node.name} asks for {used}")

"""The health endpoints (issue 44): ``/livez`` answers while the process does; ``/readyz`` says ready while moves can
be taken, Redis down included as long as the spool can keep them (a load balancer using it keeps every web host while
Redis restarts); no answer names a host or a port. With a real ``redis-server`` stopped and started."""

from __future__ import annotations

from pathlib import Path

from service.spool import Spool
from tests.service.helpers import post_sms

from .test_spool import ALICE, app_on, nowhere_to_keep


def no_address_in(body: str, port: int) -> None:
    assert str(port) not in body and "127.0.0.1" not in body and "localhost" not in body, body


def test_livez_answers_while_the_process_does(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web, _queue = app_on(own_redis, tmp_path, app)
    client = web.test_client()
    assert client.get("/livez").status_code == 200
    own_redis.kill()
    resp = client.get("/livez")  # Redis has nothing to do with whether the process answers
    assert resp.status_code == 200 and resp.get_json() == {"status": "ok"}


def test_readyz_is_ready_while_redis_is_down_and_the_spool_takes_moves(own_redis, tmp_path: Path, app) -> None:  # type: ignore[no-untyped-def]
    web, _queue = app_on(own_redis, tmp_path, app)
    client = web.test_client()
    resp = client.get("/readyz")
    assert resp.status_code == 200 and resp.get_json() == {"status": "ready", "redis": "ok"}

    own_redis.stop()
    resp = client.get("/readyz")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["status"] == "ready" and resp.get_json()["spool"] == "ok"
    no_address_in(resp.get_data(as_text=True), own_redis.port)
    sms, _mid = post_sms(client, ALICE, "HELP")  # and it does take them: kept on disk, answered 200
    assert sms.status_code == 200 and len(Spool(tmp_path / "spool")) == 1
    healthz = client.get("/healthz")  # every dependency: not all there
    assert healthz.status_code == 503 and healthz.get_json()["redis"].startswith("error")
    no_address_in(healthz.get_data(as_text=True), own_redis.port)

    own_redis.start()
    resp = client.get("/readyz")
    assert resp.status_code == 200 and resp.get_json() == {"status": "ready", "redis": "ok"}
    assert client.get("/healthz").status_code == 200


def test_readyz_is_not_ready_when_neither_redis_nor_the_disk_can_keep_a_move(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web = nowhere_to_keep(own_redis, tmp_path, app)  # Redis killed, the spool's directory cannot be made
    resp = web.test_client().get("/readyz")
    assert resp.status_code == 503 and resp.get_json()["status"] == "not ready"
    no_address_in(resp.get_data(as_text=True), own_redis.port)
    own_redis.start()
    assert web.test_client().get("/readyz").status_code == 200


def test_healthz_still_reports_each_dependency_without_naming_where_it_is(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web, _queue = app_on(own_redis, tmp_path, app)
    own_redis.kill()
    resp = web.test_client().get("/healthz")
    assert resp.status_code == 503 and resp.get_json()["status"] == "degraded"
    assert resp.get_json()["redis"] == "error: ConnectionError"
    no_address_in(resp.get_data(as_text=True), own_redis.port)

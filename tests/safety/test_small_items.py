"""Issue 15's smaller items: the simulator's interlock (loopback only, never next to a real Twilio
account), and ``games verify`` of a declined invitation."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis as redis_lib

from service import create_app
from service.lifecycle.invitations import game_id_for
from service.web.simulator import SimulatorNotLocal
from tests.service.helpers import post_sms, wait_handled

ROOT = Path(__file__).resolve().parents[2]


def sim_app(redis_url: str, **overrides: Any):  # type: ignore[no-untyped-def]
    app = create_app({"REDIS_URL": redis_url, "SIMULATOR": True, **overrides})
    app.extensions["celery"].send_task = lambda *a, **k: None  # type: ignore[method-assign] - no broker here
    return app


@pytest.mark.parametrize("overrides", [
    {"BIND": "0.0.0.0:8000"},
    {"BIND": "10.1.2.3:8000"},
    {"BIND": "[::]:8000"},
    {"PUBLIC_BASE_URL": "https://spades.example.com"},
    {"TWILIO_ACCOUNT_SID": "AC" + "1" * 32},
])
def test_the_simulator_refuses_to_start_unless_local(redis_url: str, overrides: dict[str, Any]) -> None:
    with pytest.raises(SimulatorNotLocal, match="refusing to start"):
        sim_app(redis_url, **overrides)


def test_the_simulator_starts_on_loopback_and_answers_this_machine_only(redis_url: str,
                                                                       redis_client: redis_lib.Redis) -> None:
    for bind in ("127.0.0.1:8000", "localhost:8001", "[::1]:8000", "unix:/tmp/s.sock"):
        sim_app(redis_url, BIND=bind)
    client = sim_app(redis_url).test_client()
    sign = {"channel": "sms", "from": "+15550001001", "body": "HELP"}
    assert client.post("/simulator/sign", json=sign).status_code == 200
    far = {"REMOTE_ADDR": "203.0.113.9"}
    assert client.post("/simulator/sign", json=sign, environ_base=far).status_code == 403
    assert client.get("/simulator/messages", environ_base=far).status_code == 403
    proxied = {"X-Forwarded-For": "203.0.113.9"}
    assert client.post("/simulator/sign", json=sign, headers=proxied).status_code == 403
    assert client.get("/simulator/messages", headers=proxied).status_code == 403


def test_the_app_factory_fails_in_a_real_process_too(redis_url: str) -> None:
    """What gunicorn would see: the import of the app dies with the reason."""
    env = {"PATH": "/usr/bin:/bin", "SLOWSPADES_REDIS_URL": redis_url, "SLOWSPADES_SIMULATOR": "1",
           "SLOWSPADES_BIND": "0.0.0.0:8000"}
    out = subprocess.run([sys.executable, "-c", "import service; service.create_app()"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "SLOWSPADES_BIND='0.0.0.0:8000' is not a loopback address" in out.stderr


def test_verify_accepts_a_declined_invitation(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, "+15557771001", "NEW +15557771002")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    resp, mid = post_sms(client, "+15557771002", "NO")
    wait_handled(svc, mid)
    assert svc.store.meta(gid)["status"] == "declined"
    url = svc.config["REDIS_URL"]
    out = subprocess.run([str(ROOT / ".venv/bin/slowspades"), "games", "verify", gid, "--json", "--redis-url", url],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout)["ok"] is True


# -- issue 22 case 5 ----------------------------------------------------------------------------------------------
HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


def _secure(resp) -> None:  # type: ignore[no-untyped-def]
    for name, value in HEADERS.items():
        assert resp.headers.get(name) == value, (name, resp.headers)
    csp = resp.headers.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in \
        csp.split("script-src", 1)[1].split(";", 1)[0], csp
    assert "default-src 'none'" in csp


def test_every_page_sends_the_security_headers(client, svc, redis_url: str) -> None:  # type: ignore[no-untyped-def]
    from tests.lifecycle.helpers import start_game

    gid = start_game(svc)
    token = svc.store.meta(gid)["web0"]
    page = client.get(f"/g/{token}")
    assert page.status_code == 200
    assert re.findall(r"<script[^>]*>", page.get_data(as_text=True)) == ['<script src="/page.js" defer>']  # a file
    for resp in (page, client.get(f"/g/{token}/poll"), client.get("/page.js"), client.get("/rules"), client.get("/rules/fr"),
                 client.get("/healthz"), client.get("/g/" + "0" * 32),
                 client.get("/nothing-here")):
        _secure(resp)
    sim = sim_app(redis_url).test_client()
    for resp in (sim.get("/simulator/"), sim.get("/simulator/messages")):
        _secure(resp)
    assert "<script>" not in sim.get("/simulator/").get_data(as_text=True)  # its script is a file: no inline one


def test_a_page_expires_some_time_after_its_game_ends_and_web_renews_it(client, svc) -> None:  # type: ignore[no-untyped-def]
    import re
    from datetime import datetime, timedelta, timezone

    import time_machine

    from tests.lifecycle.helpers import ALICE, local, move, start_game

    with time_machine.travel(datetime(2030, 3, 1, 12, 0, tzinfo=timezone.utc), tick=False) as clock:
        gid = start_game(svc)
        token = svc.store.meta(gid)["web0"]
        move(svc, ALICE, "LANG EN")
        move(svc, ALICE, "RESIGN")
        move(svc, ALICE, "YES")
        assert svc.store.meta(gid)["status"] == "over"
        assert client.get(f"/g/{token}").status_code == 200  # the game just ended: its page still answers
        clock.shift(timedelta(days=29))
        assert client.get(f"/g/{token}").status_code == 200
        clock.shift(timedelta(days=2))  # 31 days after the end (SLOWSPADES_PAGE_TTL_DAYS, 30 by default)
        gone = client.get(f"/g/{token}")
        assert gone.status_code == 410 and "WEB" in gone.get_data(as_text=True)
        _secure(gone)
        move(svc, ALICE, "WEB")
        fresh = re.search(r"/g/([0-9a-f]{32})", local(svc, ALICE)[-1]["body"])
        assert fresh and fresh.group(1) != token, local(svc, ALICE)[-1]["body"]
        assert client.get(f"/g/{fresh.group(1)}").status_code == 200
        assert client.get(f"/g/{token}").status_code in (404, 410)  # the old link stays dead
        svc.config["PAGE_TTL_DAYS"] = 1
        clock.shift(timedelta(days=2))
        assert client.get(f"/g/{fresh.group(1)}").status_code == 410  # a setting


@pytest.mark.parametrize("headers", [{"X-Forwarded-For": ""}, {"X-Real-IP": "127.0.0.1"}, {"X-Forwarded-Host": "x"},
                                     {"Forwarded": ""}, {"X-Forwarded-For": "127.0.0.1"}])
def test_the_simulator_refuses_any_proxy_header_empty_or_not(redis_url: str, headers: dict[str, str]) -> None:
    client = sim_app(redis_url).test_client()
    assert client.get("/simulator/messages").status_code == 200
    assert client.get("/simulator/messages", headers=headers).status_code == 403


def test_the_simulator_checks_the_address_it_is_bound_to(redis_url: str) -> None:
    import socket

    client = sim_app(redis_url, BIND="127.0.0.1:8000").test_client()  # what the setting says...
    with socket.socket() as wide:
        wide.bind(("0.0.0.0", 0))  # ...and what the server was actually given
        resp = client.get("/simulator/messages", environ_base={"gunicorn.socket": wide})
    assert resp.status_code == 403
    with socket.socket() as local:
        local.bind(("127.0.0.1", 0))
        assert client.get("/simulator/messages", environ_base={"gunicorn.socket": local}).status_code == 200

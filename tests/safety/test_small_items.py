"""Issue 15's smaller items: the simulator's interlock (loopback only, never next to a real Twilio
account), and ``games verify`` of a declined invitation."""

from __future__ import annotations

import json
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

"""``scripts/send-sms`` against the real app and worker (issue 14 case 11): it prints every answer of the
service, the computer's included, before it returns (it stopped after 3 s, before the computer's move)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests

from service import conversation_port as port
from service.lifecycle import settings
from spades.events import from_dict
from spades.game import fold, legal_moves
from tests.conftest import wait_worker_idle
from tests.waiting import wait_for

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ME = "+15550007001"


def _send(live: Any, redis_url: str, body: str) -> list[str]:
    env = dict(os.environ, SLOWSPADES_PUBLIC_BASE_URL=live.url, SLOWSPADES_REDIS_URL=redis_url,
               SLOWSPADES_TWILIO_AUTH_TOKEN=str(live.app.config["TWILIO_AUTH_TOKEN"]))
    out = subprocess.run([str(ROOT / "scripts" / "send-sms"), ME, body], env=env, capture_output=True, text=True,
                         timeout=150, check=True).stdout
    return [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith(f"  to {ME}: ")]


def _sent(live: Any) -> list[str]:
    return [m["body"] for _i, m in live.svc.store.read_local(count=10_000) if m["to"] == ME]


def test_send_sms_waits_for_the_computers_answer(live_service: Any, redis_url: str) -> None:
    live = live_service
    requests.get(live.url + "/simulator/config", timeout=10).raise_for_status()  # its local webhook secret
    delay = float(settings.get(live.app.config, "BOT_DELAY"))
    printed = _send(live, redis_url, "NEW BOT")
    gid = live.svc.players.games(ME)[0]
    for n in range(2):  # after NEW BOT and after a move (each send returns once the computer has answered)
        # the service has answered everything: no task waiting or held (the computer's move waits BOT_DELAY in
        # the worker), each entry of the game's outbox sent; anything the script missed has arrived by now
        wait_worker_idle(redis_url, live.app.config["QUEUE"], timeout=delay + 30)
        wait_for("the game's outbox sent", lambda: all(e["status"] == "sent"
                                                       for e in live.svc.store.outbox_entries(f"g:{gid}")))
        assert printed == _sent(live), "send-sms returned before the service's answers"
        game = fold(from_dict(e.event) for e in live.svc.store.load(gid))
        seat = 0 if live.svc.store.meta(gid)["seat0"] == ME else 1
        legal = legal_moves(game, seat)
        if not legal or n == 1:
            break
        printed += _send(live, redis_url, port.command_text(legal[0]))
    assert len(printed) >= 2

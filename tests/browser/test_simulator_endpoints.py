"""The simulator's HTTP side, without a browser: switched off it does not exist; switched on it signs
exactly as the providers do, so the real webhooks accept what it signs and refuse what it did not."""

from __future__ import annotations

from typing import Any

import pytest
import redis as redis_lib
from flask import Flask

from service import create_app


def make_app(redis_url: str, **overrides: Any) -> Flask:
    app = create_app({"REDIS_URL": redis_url, **overrides})
    app.extensions["celery"].send_task = lambda *a, **k: None  # type: ignore[method-assign] - no broker here
    return app


def test_simulator_is_404_when_switched_off(redis_url: str, redis_client: redis_lib.Redis,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SLOWSPADES_SIMULATOR", raising=False)
    client = make_app(redis_url).test_client()
    for path in ("/simulator/", "/simulator/config", "/simulator/messages", "/simulator/clock",
                 "/simulator/assets/simulator.js"):
        assert client.get(path).status_code == 404, path
    assert client.post("/simulator/sign", json={"channel": "sms", "from": "+15550001001", "body": "HI"}).status_code == 404
    assert client.post("/simulator/clock", json={"seconds": 3600}).status_code == 404


def test_environment_switch_turns_it_on(redis_url: str, redis_client: redis_lib.Redis,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLOWSPADES_SIMULATOR", "1")
    client = make_app(redis_url).test_client()
    page = client.get("/simulator/")
    assert page.status_code == 200 and b"Slow Spades" in page.data
    assert client.get("/simulator/assets/simulator.js").status_code == 200
    devices = client.get("/simulator/config").json["devices"]
    assert [d["channel"] for d in devices] == ["sms", "sms", "whatsapp", "telegram", "email"]
    assert len({d["address"] for d in devices}) == 5


def test_signed_sms_is_accepted_by_the_real_webhook_and_a_tampered_one_refused(
        redis_url: str, redis_client: redis_lib.Redis) -> None:
    app = make_app(redis_url, SIMULATOR=True, TWILIO_AUTH_TOKEN="local-token")
    client = app.test_client()
    signed = client.post("/simulator/sign", json={"channel": "sms", "from": "+15550001001", "body": "HELP"}).json
    assert signed["path"] == "/sms"
    ok = client.post("/sms", data=signed["form"], headers=signed["headers"])
    assert ok.status_code == 200
    store = app.extensions["slowspades"].store
    recorded = store.inbound("+15550001001", "sms:" + signed["form"]["MessageSid"])
    assert recorded is not None and recorded["body"] == "HELP" and recorded["from"] == "+15550001001"

    again = client.post("/simulator/sign", json={"channel": "sms", "from": "+15550001001", "body": "HELP"}).json
    again["form"]["Body"] = "RESIGN"
    assert client.post("/sms", data=again["form"], headers=again["headers"]).status_code == 403
    assert store.inbound("+15550001001", "sms:" + again["form"]["MessageSid"]) is None


def test_signed_email_is_accepted_by_the_real_webhook(redis_url: str, redis_client: redis_lib.Redis) -> None:
    app = make_app(redis_url, SIMULATOR=True)
    client = app.test_client()
    signed = client.post("/simulator/sign", json={"channel": "email", "from": "carol@example.com", "body": "HELP",
                                                  "quoted": "earlier text", "subject": "Re: hi"}).json
    assert signed["path"] == "/email/inbound"
    assert "> earlier text" in signed["form"]["body-plain"]
    assert client.post("/email/inbound", data=signed["form"]).status_code == 200
    # the same Mailgun token twice is a replay: the real webhook refuses it for good
    signed["form"]["Message-Id"] = "<other@simulator.localhost>"
    assert client.post("/email/inbound", data=signed["form"]).status_code == 406


def test_local_secrets_are_shared_through_redis(redis_url: str, redis_client: redis_lib.Redis) -> None:
    one = make_app(redis_url, SIMULATOR=True)
    two = make_app(redis_url, SIMULATOR=True)
    one.test_client().get("/simulator/config")
    two.test_client().get("/simulator/config")
    assert one.config["TWILIO_AUTH_TOKEN"] and one.config["TWILIO_AUTH_TOKEN"] == two.config["TWILIO_AUTH_TOKEN"]
    assert one.config["MAILGUN_SIGNING_KEY"] == two.config["MAILGUN_SIGNING_KEY"]


def test_outbox_messages_show_sms_segments(redis_url: str, redis_client: redis_lib.Redis) -> None:
    app = make_app(redis_url, SIMULATOR=True)
    store = app.extensions["slowspades"].store
    store.push_local({"channel": "sms", "to": "+15550001001", "body": "x" * 161, "kind": "update", "id": "g:a#1"})
    store.push_local({"channel": "sms", "to": "+15550001002", "body": "Your turn \u2660", "kind": "update"})
    store.push_local({"channel": "email", "to": "carol@example.com", "body": "hello", "subject": "Spades",
                      "reply_to": "play+00@x"})
    client = app.test_client()
    got = client.get("/simulator/messages").json
    first, second, mail = got["messages"]
    assert (first["to"], first["segments"], first["encoding"]) == ("+15550001001", 2, "GSM-7")
    assert second["encoding"] == "UCS-2" and second["segments"] == 1
    assert mail["subject"] == "Spades" and mail["reply_to"] == "play+00@x"
    assert client.get("/simulator/messages", query_string={"after": got["last"]}).json["messages"] == []
    assert client.get("/simulator/messages", query_string={"after": first["stream_id"]}).json["messages"][0]["to"] \
        == "+15550001002"


def test_clock_control_advances_the_shared_clock(redis_url: str, redis_client: redis_lib.Redis) -> None:
    from service.store import clock

    app = make_app(redis_url, SIMULATOR=True)
    client = app.test_client()
    before = clock.now_ms(redis_client)
    got = client.post("/simulator/clock", json={"seconds": 86400}).json
    assert got["offset_ms"] == 86_400_000
    assert clock.now_ms(redis_client) - before >= 86_400_000
    assert "workers.tasks.sweep_outbox" in got["fired"]
    assert client.post("/simulator/clock", json={"seconds": -5}).status_code == 400
    assert client.post("/simulator/clock", json={"reset": True}).json["offset_ms"] == 0


def test_a_signed_whatsapp_message_opens_its_window_until_the_clock_passes_a_day(
        redis_url: str, redis_client: redis_lib.Redis) -> None:
    app = make_app(redis_url, SIMULATOR=True, TWILIO_AUTH_TOKEN="local-token")
    client = app.test_client()
    wa = "whatsapp:+15550001003"
    assert client.get("/simulator/window", query_string={"address": wa}).json["text"] == "closed"
    signed = client.post("/simulator/sign", json={"channel": "whatsapp", "from": wa, "body": "HELP"}).json
    assert signed["path"] == "/sms" and signed["form"]["From"] == wa
    assert signed["form"]["To"] == "whatsapp:+15550000000"
    assert client.post("/simulator/sign", json={"channel": "whatsapp", "from": "+15550001003", "body": "x"}).status_code == 400
    assert client.post("/sms", data=signed["form"], headers=signed["headers"]).status_code == 200
    recorded = app.extensions["slowspades"].store.inbound(wa, "sms:" + signed["form"]["MessageSid"])
    assert recorded is not None and recorded["channel"] == "whatsapp"
    got = client.get("/simulator/window", query_string={"address": wa}).json
    assert got["open"] and got["text"] in ("open · closes in 24:00", "open · closes in 23:59")
    client.post("/simulator/clock", json={"seconds": 23 * 3600 + 30 * 60})
    assert client.get("/simulator/window", query_string={"address": wa}).json["text"] in (
        "open · closes in 00:30", "open · closes in 00:29")
    client.post("/simulator/clock", json={"seconds": 3600})
    closed = client.get("/simulator/window", query_string={"address": wa}).json
    assert not closed["open"] and closed["text"] == "closed" and closed["last_ms"]
    assert client.get("/simulator/window", query_string={"address": "+15550001001"}).status_code == 400


def test_outbox_messages_show_whatsapp_messages_and_templates(redis_url: str, redis_client: redis_lib.Redis) -> None:
    app = make_app(redis_url, SIMULATOR=True)
    store = app.extensions["slowspades"].store
    wa = "whatsapp:+15550001003"
    store.push_local({"channel": "whatsapp", "to": wa, "body": "Γύρος 1. " + "ά" * 400, "kind": "update"})
    store.push_local({"channel": "whatsapp", "to": wa, "body": "Reminder: Hand 1.", "kind": "reminder",
                      "content_sid": "HXabc", "content_variables": '{"1": "Reminder: Hand 1."}'})
    free, template = app.test_client().get("/simulator/messages").json["messages"]
    assert (free["parts"], free["template"], free["chars"]) == (1, "", 409) and "segments" not in free
    assert template["template"] == "HXabc" and template["variables"] == '{"1": "Reminder: Hand 1."}'

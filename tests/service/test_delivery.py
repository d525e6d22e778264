"""Outbound delivery with real parts: the Twilio SDK answered at its HTTP boundary, a real SMTP server."""

from __future__ import annotations

import json
import threading
from typing import Any
from urllib.parse import unquote

import pytest
from twilio.http import HttpClient
from twilio.http.response import Response

from service.delivery import deliver
from service.store import game_owner
from service.store.keys import pending_key

from .helpers import wait_for

SID = "AC" + "1" * 32


class FakeTwilioHttp(HttpClient):
    """Answers the Twilio REST API in-process and keeps every request the SDK made."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        super().__init__(logger=None, is_async=False)  # type: ignore[arg-type]
        self.requests: list[dict[str, Any]] = []
        self.statuses = list(statuses or [])
        self.lock = threading.Lock()

    def request(self, method, uri, params=None, data=None, headers=None, auth=None, timeout=None,
                allow_redirects=False):  # type: ignore[no-untyped-def]
        with self.lock:
            self.requests.append({"method": method, "uri": uri, "data": dict(data or {}), "auth": auth,
                                  "headers": dict(headers or {})})
            status = self.statuses.pop(0) if self.statuses else 201
            n = len(self.requests)
        if status >= 400:
            body = {"code": 21211 if status == 400 else 20500, "message": "nope", "status": status}
            return Response(status, json.dumps(body))
        body = {"sid": f"SM{n:032d}", "status": "queued", "to": data.get("To"), "from": data.get("From"),
                "body": data.get("Body"), "account_sid": SID}
        return Response(status, json.dumps(body))


@pytest.fixture()
def twilio(app, svc):  # type: ignore[no-untyped-def]
    http = FakeTwilioHttp()
    app.config.update(TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="test-auth-token", TWILIO_FROM="+15550000000",
                      TWILIO_HTTP_CLIENT=http)
    app.config.pop("_SENDERS", None)
    return http


def queue_one(svc, entry: dict[str, Any]) -> str:  # type: ignore[no-untyped-def]
    [oid] = svc.store.append(game_owner("g1"), -1, outbox=[entry]).outbox_ids
    return oid


def test_twilio_gets_exactly_the_request_the_sdk_sends(svc, twilio) -> None:  # type: ignore[no-untyped-def]
    oid = queue_one(svc, {"channel": "sms", "to": "+15551230001", "body": "Your turn. BID 0-13."})
    assert svc.inject(deliver)(oid) == "sent"
    [req] = twilio.requests
    assert req["method"] == "POST"
    assert req["uri"] == f"https://api.twilio.com/2010-04-01/Accounts/{SID}/Messages.json"
    assert req["auth"] == (SID, "test-auth-token")
    assert req["data"] == {"To": "+15551230001", "From": "+15550000000", "Body": "Your turn. BID 0-13.",
                           "StatusCallback": "https://spades.example.test/sms/status?o=g%3Ag1%231"}
    assert unquote(req["data"]["StatusCallback"].split("o=")[1]) == oid
    entry = svc.store.outbox_entry(oid)
    assert entry["status"] == "sent" and entry["sid"] == f"SM{1:032d}"
    assert svc.inject(deliver)(oid) == "sent" and len(twilio.requests) == 1  # never sent twice


def test_a_refused_number_fails_for_good(svc, twilio) -> None:  # type: ignore[no-untyped-def]
    twilio.statuses = [400]
    oid = queue_one(svc, {"channel": "sms", "to": "+15551230001", "body": "x"})
    assert svc.inject(deliver)(oid) == "failed"
    assert "21211" in svc.store.outbox_entry(oid)["error"]
    assert svc.reach.unreachable("+15551230001") == "21211"  # not a valid number: unreachable (receipts)


def test_transient_failures_are_retried_by_celery_with_backoff(svc, twilio, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    twilio.statuses = [503, 429]
    oid = queue_one(svc, {"channel": "sms", "to": "+15551230001", "body": "x"})
    app.extensions["celery"].send_task("workers.tasks.deliver", args=[oid])
    wait_for(lambda: svc.store.outbox_entry(oid)["status"] == "sent", timeout=30, what="sent after retries")
    assert len(twilio.requests) == 3, (svc.store.outbox_entry(oid)["sid"], svc.store.outbox_entry(oid)["error"],
                                       app.config.get("_SENDERS"), celery_worker.app is app.extensions["celery"])


def test_the_sweep_redispatches_entries_left_queued(svc, twilio, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    oid = queue_one(svc, {"channel": "sms", "to": "+15551230001", "body": "left behind"})
    app.config["SWEEP_AFTER"] = 0
    app.extensions["celery"].send_task("workers.tasks.sweep_outbox")
    wait_for(lambda: svc.store.outbox_entry(oid)["status"] == "sent", timeout=15, what="swept")
    assert len(twilio.requests) == 1


# ---------------------------------------------------------------------------------------
def test_email_goes_out_over_smtp_threaded_with_text_and_html(svc, smtp_server) -> None:  # type: ignore[no-untyped-def]
    first = queue_one(svc, {"channel": "email", "to": "dana@example.org", "body": "Your turn.", "subject": "Spades",
                            "html": "<p>Your turn.</p>", "message_id": "<game-g1.1@spades.example.test>",
                            "reply_to": "play+" + "a" * 32 + "@spades.example.test"})
    second = queue_one(svc, {"channel": "email", "to": "dana@example.org", "body": "Again.", "subject": "Spades",
                             "html": "<p>Again.</p>", "message_id": "<x2@spades.example.test>",
                             "in_reply_to": "<game-g1.1@spades.example.test>",
                             "references": "<game-g1.1@spades.example.test>"})
    assert svc.inject(deliver)(first) == "sent" and svc.inject(deliver)(second) == "sent"
    assert svc.inject(deliver)(first) == "sent" and len(smtp_server.messages) == 2
    (mail_from, rcpts, m1), (_f, _r, m2) = smtp_server.messages
    assert rcpts == ["dana@example.org"] and mail_from == "play@spades.example.test"
    assert m1["Message-ID"] == "<game-g1.1@spades.example.test>" and m1["Reply-To"] == "play+" + "a" * 32 + "@spades.example.test"
    assert m2["In-Reply-To"] == m1["Message-ID"] and m2["References"] == m1["Message-ID"]
    assert m1.get_content_type() == "multipart/alternative"
    assert m1.get_body(("plain",)).get_content().strip() == "Your turn."
    assert m1.get_body(("html",)).get_content().strip() == "<p>Your turn.</p>"


def test_local_outbox_without_credentials(svc) -> None:  # type: ignore[no-untyped-def]
    oid = queue_one(svc, {"channel": "sms", "to": "+15551230001", "body": "hello"})
    assert svc.inject(deliver)(oid) == "sent"
    [(_id, msg)] = svc.store.read_local()
    assert msg["body"] == "hello" and msg["id"] == oid


def test_the_sweep_requeues_a_message_recorded_but_never_queued(svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    """The web process died between recording a message and queueing it: the beat's sweep queues it."""
    mid = "sms:SMlost"
    assert svc.store.record_inbound("+15551230009", mid, {"channel": "sms", "from": "+15551230009", "body": "HELP",
                                                          "status": "queued"}, 600) == "new"
    app.config["SWEEP_AFTER"] = 0
    app.extensions["celery"].send_task("workers.tasks.sweep_outbox")
    wait_for(lambda: (svc.store.inbound("+15551230009", mid) or {}).get("status") == "done", timeout=15, what="handled")
    assert svc.redis.zcard(pending_key("+15551230009")) == 0

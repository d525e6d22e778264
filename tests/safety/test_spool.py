"""An inbound text answered 200 is never lost (issue 15): with Redis down the web process keeps it on
local disk (fsync'd) and hands it over, once, when Redis answers; if the disk fails too, the answer
is TwiML asking the player to send it again, never a bare 500."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from service import create_app
from service.conversation_port import command_text
from service.delivery import deliver
from service.lifecycle.invitations import create_game
from service.spool import Spool
from service.store.keys import pending_key
from tests.conftest import TEST_CONFIG, spawn_worker
from tests.service.chooser import choose
from tests.service.helpers import post_sms, wait_for
from tests.service.test_sms_game import ALICE, BOB, load_game

from .redis_proc import RedisProc


def app_on(r: RedisProc, tmp_path: Path, session_app, **more):  # type: ignore[no-untyped-def]
    queue = "spool-" + uuid.uuid4().hex[:6]
    app = create_app(dict(TEST_CONFIG, REDIS_URL=r.url, BROKER_URL=r.url, QUEUE=queue,
                          SPOOL_DIR=str(tmp_path / "spool"), **more))
    session_app.extensions["celery"].set_default()
    return app, queue


@pytest.mark.slow
def test_a_text_posted_while_redis_is_down_is_applied_once_when_it_returns(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web, queue = app_on(own_redis, tmp_path, app)
    svc = web.extensions["slowspades"]
    res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, "g-spool",
                      ALICE, BOB, "setup:g-spool", start_now=True)
    for oid in res.outbox_ids:
        svc.inject(deliver)(oid)
    game = load_game(svc, "g-spool")
    mover = (ALICE, BOB)[game.movers[0]]
    text, sid = command_text(choose(game, game.movers[0])), "SM" + uuid.uuid4().hex
    client = web.test_client()

    own_redis.kill()
    resp, mid = post_sms(client, mover, text, sid=sid)
    assert resp.status_code == 200 and b"<Message>" not in resp.data  # taken: nothing to say
    resp, _ = post_sms(client, mover, text, sid=sid)  # the same text again (a duplicate), still down
    assert resp.status_code == 200
    spool = Spool(tmp_path / "spool")
    assert len(spool) == 2

    own_redis.start()  # its append-only file brings the game back
    worker = spawn_worker(own_redis.url, tmp_path / "w.log", QUEUE=queue)
    try:  # no other request needed: the web process's drainer hands the spool over
        wait_for(lambda: len(spool) == 0, 30, "the spool handed over")
        svc.games.clear()
        wait_for(lambda: svc.store.version("g-spool") > game.version, 60, "the move applied")
        wait_for(lambda: (svc.store.inbound(mover, mid) or {}).get("status") == "done", 30, "the text handled")
    finally:
        worker.terminate()
        worker.wait(20)
    assert [e.message_id for e in svc.store.load("g-spool")].count(mid) == 1


def test_a_request_after_redis_returns_hands_the_spool_over_first(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web, queue = app_on(own_redis, tmp_path, app)
    svc = web.extensions["slowspades"]
    client = web.test_client()
    own_redis.kill()
    _resp, first = post_sms(client, "+15557779001", "HELP")
    own_redis.start()
    web.extensions["slowspades_drainer"]._last_try = 0.0  # not throttled: this request drains
    _resp, second = post_sms(client, "+15557779001", "GAMES")
    pending = [m.decode() for m in svc.redis.zrange(pending_key("+15557779001"), 0, -1)]
    assert [p.split(" ", 1)[1] for p in pending] == [first, second]  # in the order they were sent


def nowhere_to_keep(own_redis, tmp_path, app):  # type: ignore[no-untyped-def]
    """An app whose Redis is down and whose spool's disk refuses the file (mkdir fails: a file is in the way)."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    web, _queue = app_on(own_redis, tmp_path, app)
    web.extensions["slowspades_drainer"].spool.dir = blocker / "spool"
    own_redis.kill()
    return web


def test_when_even_the_disk_fails_the_player_is_asked_to_send_again(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web = nowhere_to_keep(own_redis, tmp_path, app)
    resp, _mid = post_sms(web.test_client(), ALICE, "HELP")
    assert resp.status_code == 200
    assert b"<Message>" in resp.data and b"send it again" in resp.data
    resp, _mid = post_sms(web.test_client(), "+33612345678", "AIDE")  # in the language of the number
    assert resp.status_code == 200 and "Renvoie-le" in resp.get_data(as_text=True)


def test_an_email_posted_while_redis_is_down_gets_503_for_mailgun_to_retry(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    from tests.service.helpers import post_email

    web, _queue = app_on(own_redis, tmp_path, app)
    own_redis.kill()
    resp, _mid = post_email(web.test_client(), "dana@mail.example.org", "play@spades.example.test", "HELP")
    assert resp.status_code == 503  # Mailgun retries anything but 200 and 406, for 8 hours


def test_a_status_callback_while_redis_is_down_is_kept_and_recorded_when_it_returns(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    """Twilio does not send a status callback again: one that comes while Redis is down waits in the spool."""
    from tests.service.test_receipts import queue_sent, twilio_status

    web, _queue = app_on(own_redis, tmp_path, app)
    svc = web.extensions["slowspades"]
    oid = queue_sent(svc)
    own_redis.kill()
    assert twilio_status(web.test_client(), oid, "delivered", sid="SMkept") == 204
    [path] = Spool(tmp_path / "spool").pending()
    assert json.loads(path.read_text())["outbox_id"] == oid
    own_redis.start()  # no request needed: the web process's drainer records it
    wait_for(lambda: svc.store.outbox_entry(oid)["status"] == "delivered", 30, "the receipt recorded")
    assert svc.store.outbox_entry(oid)["sid"] == "SMkept"
    wait_for(lambda: not list((tmp_path / "spool").iterdir()), 10, "the spool's file gone")


@pytest.mark.slow
def test_a_failure_receipt_kept_while_redis_is_down_still_marks_the_number_unreachable(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    from tests.service.test_receipts import PHONE, queue_sent, twilio_status

    web, queue = app_on(own_redis, tmp_path, app)
    svc = web.extensions["slowspades"]
    oid = queue_sent(svc)
    own_redis.kill()
    assert twilio_status(web.test_client(), oid, "undelivered", "30005") == 204  # an unknown or inactive number
    own_redis.start()
    worker = spawn_worker(own_redis.url, tmp_path / "w.log", QUEUE=queue)
    try:
        wait_for(lambda: svc.reach.unreachable(PHONE) == "30005", 60, f"{PHONE} marked unreachable")
    finally:
        worker.terminate()
        worker.wait(20)
    entry = svc.store.outbox_entry(oid)
    assert (entry["status"], entry["error"]) == ("failed", "twilio error 30005")
    wait_for(lambda: not list((tmp_path / "spool").iterdir()), 10, "the spool's file gone")


def test_a_status_callback_that_neither_redis_nor_the_disk_takes_is_told_so_not_a_bare_500(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    from tests.service.helpers import twilio_sign

    web = nowhere_to_keep(own_redis, tmp_path, app)
    url = "https://spades.example.test/sms/status?o=g%3Ag1%231"
    params = {"MessageSid": "SMabc", "MessageStatus": "delivered", "AccountSid": "AC1"}
    resp = web.test_client().post(url[len("https://spades.example.test"):], data=params,
                                  headers={"X-Twilio-Signature": twilio_sign(url, params)})
    assert resp.status_code == 503 and b"storage unavailable" in resp.data


def test_a_text_posted_while_rabbitmq_does_not_answer_is_kept_in_the_spool(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    """On RabbitMQ the inbound task is queued without waiting for a confirm (``service.web.inbound_producers``): a
    broker that does not answer still makes the webhook keep the text on disk, never a 500 and never lost."""
    web = create_app(dict(TEST_CONFIG, REDIS_URL=own_redis.url, BROKER_URL="amqp://guest:guest@127.0.0.1:1//",
                          SPOOL_DIR=str(tmp_path / "spool")))
    app.extensions["celery"].set_default()
    resp, mid = post_sms(web.test_client(), ALICE, "HELP")
    assert resp.status_code == 200 and b"<Message>" not in resp.data
    [path] = Spool(tmp_path / "spool").pending()
    kept = json.loads(path.read_text())
    assert kept["message_id"] == mid and kept["fields"]["body"] == "HELP"

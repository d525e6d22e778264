"""The webhooks' guarantees: signatures, dedupe, strangers, status callbacks, health."""

from __future__ import annotations

import time

from service import create_app
from service.inbound import handle_inbound
from service.lifecycle.invitations import game_id_for
from service.store.keys import shards
from tests.conftest import TEST_CONFIG

from .helpers import (
    BASE,
    inbound,
    local_messages,
    post_email,
    post_sms,
    sms_params,
    twilio_sign,
    wait_handled,
    wait_outbox_settled,
    worker_idle,
)
from .test_sms_game import ALICE, BOB, load_game, start_sms_game

CAROL = "+15551230003"


def test_forged_or_missing_signature_is_403_and_changes_nothing(client, svc) -> None:  # type: ignore[no-untyped-def]
    params = sms_params(ALICE, f"NEW {BOB}")
    forged = twilio_sign(BASE + "/sms", params, token="not-the-token")
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": forged}).status_code == 403
    assert client.post("/sms", data=params).status_code == 403
    good = twilio_sign(BASE + "/sms", params)
    tampered = dict(params, Body=f"NEW {CAROL}")
    assert client.post("/sms", data=tampered, headers={"X-Twilio-Signature": good}).status_code == 403
    assert svc.redis.dbsize() == 0


def test_signature_checked_against_the_public_url_not_the_internal_one(client, svc) -> None:  # type: ignore[no-untyped-def]
    params = sms_params(ALICE, "HELP")
    internal = twilio_sign("http://localhost/sms", params)
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": internal}).status_code == 403
    public = twilio_sign(BASE + "/sms", params)
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": public}).status_code == 200


def test_a_signature_over_the_url_with_its_default_port_is_taken_too(client, svc) -> None:  # type: ignore[no-untyped-def]
    """Twilio may sign ``https://host:443/sms`` for ``https://host/sms``: the one-HMAC check misses it, the
    SDK's own check (with and without the port) takes it; with another port it stays refused."""
    params = sms_params(ALICE, "HELP")
    host = BASE.split("://", 1)[1]
    with_port = twilio_sign(BASE.replace(host, host + ":443") + "/sms", params)
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": with_port}).status_code == 200
    other_port = twilio_sign(BASE.replace(host, host + ":8443") + "/sms", params)
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": other_port}).status_code == 403


def test_shared_key_signatures_with_hmac_sha256(client, svc, app) -> None:  # type: ignore[no-untyped-def]
    from twilio.request_validator import RequestValidator

    app.config["TWILIO_WEBHOOK_SHARED_KEY"] = "shared-secret"
    params = sms_params(ALICE, "HELP")
    sig = RequestValidator("shared-secret").compute_signature(BASE + "/sms", params, "HMAC_SHA256")
    settings = {"X-Twilio-Webhooks-Signature-Settings": "key=webhooks_sharedkey_1,algorithm=HMAC_SHA256"}
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": sig, **settings}).status_code == 200
    sha1_with_token = twilio_sign(BASE + "/sms", params)
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": sha1_with_token,
                                                     **settings}).status_code == 403


def test_a_signature_in_an_algorithm_twilio_does_not_have_is_refused_not_an_error(client, svc, app) -> None:  # type: ignore[no-untyped-def]
    """A settings header naming an algorithm the SDK does not know is a 403, never a 500, and records nothing."""
    app.config["TWILIO_WEBHOOK_SHARED_KEY"] = "shared-secret"
    params = sms_params(ALICE, "HELP")
    settings = {"X-Twilio-Webhooks-Signature-Settings": "key=webhooks_sharedkey_1,algorithm=HMAC_MD5"}
    sig = twilio_sign(BASE + "/sms", params, token="shared-secret")
    assert client.post("/sms", data=params, headers={"X-Twilio-Signature": sig, **settings}).status_code == 403
    assert svc.redis.dbsize() == 0


def test_a_webhook_delivered_twice_is_applied_once(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = load_game(svc, gid)
    mover = (ALICE, BOB)[game.movers[0]]
    sid = "SM" + "d" * 32
    before = svc.store.version(gid)
    r1, mid = post_sms(client, mover, "DRAW", sid=sid)
    r2, _ = post_sms(client, mover, "DRAW", sid=sid)
    assert r1.status_code == r2.status_code == 200
    wait_handled(svc, mid)
    r3, _ = post_sms(client, mover, "DRAW", sid=sid)  # a late retry
    assert r3.status_code == 200
    worker_idle(app)  # whatever the retry queued is done
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == before + 1
    assert [e.message_id for e in svc.store.load(gid)].count(mid) == 1


def test_a_retry_of_a_handled_message_changes_nothing(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = load_game(svc, gid)
    mover = (ALICE, BOB)[game.movers[0]]
    sid = "SM" + "e" * 32
    before = svc.store.version(gid)
    _r, mid = post_sms(client, mover, "DRAW", sid=sid)
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    # handled: the record is gone, only the claim is left (8 bytes in the sender's set of this window)
    assert inbound(svc, mid) == {"status": "done"}
    assert svc.redis.keys(f"*:in:{mid}") == [] and sum(svc.redis.zcard(k) for k in shards("inpend")) == 0
    sent = len(local_messages(svc))
    r, _ = post_sms(client, mover, "DRAW", sid=sid)  # Twilio retries
    assert r.status_code == 200
    assert svc.inject(handle_inbound)(mid, mover).outcome == "duplicate"  # the task delivered again
    worker_idle(app)  # whatever the retry queued is done
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == before + 1
    assert [e.message_id for e in svc.store.load(gid)].count(mid) == 1
    assert len(local_messages(svc)) == sent
    assert inbound(svc, mid) == {"status": "done"}


def test_a_mail_retry_of_a_handled_message_is_a_duplicate(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    r1, mid = post_email(client, "dana@example.org", "play@spades.example.test", "HELP", message_id="shr@x")
    assert r1.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert inbound(svc, mid) == {"status": "done"}
    sent = len(local_messages(svc))
    r2, _ = post_email(client, "dana@example.org", "play@spades.example.test", "HELP", message_id="shr@x")
    assert r2.get_json()["status"] == "duplicate"
    worker_idle(app)  # whatever the retry queued is done
    wait_outbox_settled(svc)
    assert len(local_messages(svc)) == sent


def test_a_stranger_cannot_move_in_a_game(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    before = svc.store.version(gid)
    resp, mid = post_sms(client, CAROL, "DRAW")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == before
    assert CAROL not in svc.store.meta(gid).values()
    assert [m["kind"] for m in local_messages(svc, CAROL)] == ["welcome"]  # a new number: what this is and how to start (issue 14 case 4)


def test_accepting_someone_elses_invitation_does_nothing(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, ALICE, f"NEW {BOB}")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    resp, mid2 = post_sms(client, CAROL, "YES")
    wait_handled(svc, mid2)
    assert svc.store.meta(gid)["status"] == "invited" and svc.store.version(gid) == 0


def test_status_callbacks_update_the_outbox_entry(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    wait_outbox_settled(svc)
    oid = svc.store.outbox_entries(f"g:{gid}")[0]["id"]
    url = BASE + "/sms/status?o=" + oid.replace(":", "%3A").replace("#", "%23")
    params = {"MessageSid": "SMabc", "MessageStatus": "delivered", "AccountSid": "AC1"}
    assert client.post(url[len(BASE):], data=params).status_code == 403
    assert client.post(url[len(BASE):], data=params,
                       headers={"X-Twilio-Signature": twilio_sign(url, params)}).status_code == 204
    assert svc.store.outbox_entry(oid)["status"] == "delivered"
    late = dict(params, MessageStatus="sent")  # callbacks out of order never move a status back
    client.post(url[len(BASE):], data=late, headers={"X-Twilio-Signature": twilio_sign(url, late)})
    assert svc.store.outbox_entry(oid)["status"] == "delivered"


def test_healthz_reports_redis_and_broker(client, svc) -> None:  # type: ignore[no-untyped-def]
    resp = client.get("/healthz")
    assert resp.status_code == 200 and resp.get_json() == {"status": "ok", "redis": "ok", "broker": "ok"}


def test_mailgun_signature_staleness_and_replay(client, svc) -> None:  # type: ignore[no-untyped-def]
    resp, _ = post_email(client, "dana@example.org", "play@spades.example.test", "HELP", key="wrong-key")
    assert resp.status_code == 406
    resp, _ = post_email(client, "dana@example.org", "play@spades.example.test", "HELP",
                         timestamp=int(time.time()) - 3600)
    assert resp.status_code == 406
    assert svc.redis.dbsize() == 0
    resp, _ = post_email(client, "dana@example.org", "play@spades.example.test", "HELP", token="t" * 50)
    assert resp.status_code == 200
    resp, _ = post_email(client, "dana@example.org", "play@spades.example.test", "HELP again", token="t" * 50)
    assert resp.status_code == 406  # a token seen before


def test_mail_duplicates_dropped_by_message_id(client, svc) -> None:  # type: ignore[no-untyped-def]
    r1, mid = post_email(client, "dana@example.org", "play@spades.example.test", "HELP", message_id="abc@x")
    r2, _ = post_email(client, "dana@example.org", "play@spades.example.test", "HELP", message_id="abc@x")
    assert r1.status_code == 200 and r2.get_json()["status"] == "duplicate"
    claims = [k for k in svc.redis.keys("{p:dana@example.org}:seen:*")]
    assert sum(svc.redis.scard(k) for k in claims) == 1  # one message claimed, whether handled yet or not
    assert len(svc.redis.keys("{p:dana@example.org}:in:*")) <= 1


def test_quoted_history_is_stripped(svc, redis_url, app) -> None:  # type: ignore[no-untyped-def]
    # the messages go to a queue no worker reads (the session's worker may be running): the records stay as written
    client = create_app(dict(TEST_CONFIG, REDIS_URL=redis_url, BROKER_URL=redis_url, QUEUE="unread")).test_client()
    app.extensions["celery"].set_default()
    body = "PLAY QH\n\nOn Mon, Jan 1, 2024 at 10:00 AM Slow Spades <play@x.org> wrote:\n> BID 3\n> KEEP\n"
    _r, mid = post_email(client, "dana@example.org", "play@spades.example.test", body)
    assert inbound(svc, mid)["body"] == "PLAY QH"
    _r, mid = post_email(client, "dana@example.org", "play@spades.example.test", body, stripped="KEEP")
    assert inbound(svc, mid)["body"] == "KEEP"

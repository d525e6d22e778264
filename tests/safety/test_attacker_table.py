"""Issue 44, the attacker's table: each row tried again through the real webhooks (Twilio's signature, Mailgun's, a
real Celery worker, the local outbox), with the service's own limits (no limit turned off: the defaults of
``service.limits.SETTINGS`` and of the lifecycle's settings, but for the +1 555 fiction range nobody uses here)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest

from service import daily_cap, limits
from service.conversation_port import command_text
from service.delivery import deliver
from service.lifecycle import settings
from service.lifecycle.invitations import create_game
from service.receipts import on_failure
from service.store import clock as service_clock
from service.store import game_owner
from tests.lifecycle.helpers import lifecycle_command, move, mover, other, start_game, tick
from tests.safety.redis_proc import free_port
from tests.safety.test_small_items import sim_app
from tests.safety.test_spool import app_on
from tests.service.chooser import choose
from tests.service.helpers import (
    local_messages,
    post_email,
    post_sms,
    wait_for,
    wait_handled,
    wait_outbox_settled,
    worker_idle,
)
from tests.service.test_game_page_play import page_of
from tests.service.test_linked_channels import mail
from tests.service.test_linked_channels import send as text
from tests.service.test_receipts import mailgun_event, twilio_status
from tests.service.test_sms_game import load_game
from tests.service.test_whatsapp import SMS as WA_SMS
from tests.service.test_whatsapp import WA, advance_and_tick, sent_to, twilio, whatsapp_waits_a_day  # noqa: F401 (a fixture)

ALICE, BOB = "+4791234567", "+4798765432"  # Norway: valid numbers of an allowed country, told in Norwegian
DOMAIN = "spades.example.test"  # the tests' MAIL_FROM's


@pytest.fixture
def own_limits(svc: Any) -> Any:
    """The limits as deployed: the daily cap, the flood limit and the valid numbers as their defaults."""
    svc.config.update(SMS_DAILY_CAP=limits.SETTINGS["SMS_DAILY_CAP"][0],
                      LIMIT_MESSAGES_PER_MINUTE=limits.SETTINGS["LIMIT_MESSAGES_PER_MINUTE"][0],
                      SMS_FICTIONAL_NUMBERS=False)
    return svc


def people_game(client: Any, svc: Any, a: str = ALICE, b: str = BOB) -> None:
    """``a`` invites ``b``, who says YES: both have played a person."""
    text(client, svc, a, f"NEW {b}")
    text(client, svc, b, "JA")
    assert svc.store.in_people_games([a, b]) == [True, True]


def own_reply_address(client: Any, svc: Any, address: str) -> str:
    """The reply address of ``address``'s own emails (that of no game), as its answer to HELP gives it."""
    status, out = mail(client, svc, address, f"play@{DOMAIN}", "HELP")
    assert status == 200 and out and out[-1]["reply_to"].startswith("play+"), out
    return str(out[-1]["reply_to"])


# -- 1: LINK codes pumped to premium-rate and far countries, past the daily cap ----------------------------------
@pytest.mark.parametrize("target", ["+19002001234", "+449090123456", "+992917123456", "+252612345678",
                                    "+2693212345", "whatsapp:+19002001234", "whatsapp:+992917123456"])
def test_a_link_code_never_goes_to_a_premium_or_far_number(client, own_limits, celery_worker, target: str) -> None:  # type: ignore[no-untyped-def]
    svc = own_limits
    people_game(client, svc)  # Alice plays a person: once, that let her codes skip the country list
    out = text(client, svc, ALICE, f"LINK {target}")
    assert [m["to"] for m in out] == [ALICE]  # only the asker is answered
    assert "kan ikke sendes på SMS" in out[0]["body"]  # Norwegian: "cannot be sent by SMS", and says to whom
    assert local_messages(svc, target) == [] and svc.links.pending(target) == {}  # by WhatsApp neither: paid too


def test_a_link_code_to_a_number_that_does_not_exist_is_refused(client, own_limits, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc = own_limits
    people_game(client, svc)
    out = text(client, svc, ALICE, "LINK +6280912345678")  # Indonesia: possible, but no such number
    assert [m["to"] for m in out] == [ALICE] and "ikke et gyldig telefonnummer" in out[0]["body"]
    assert local_messages(svc, "+6280912345678") == []


def test_past_the_cap_a_link_code_to_a_new_number_waits_like_an_invitation(client, own_limits, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc = own_limits
    people_game(client, svc)
    cap = int(limits.setting(svc.config, "SMS_DAILY_CAP"))
    svc.store.count_sms(limits.day(),
                        daily_cap.others_limit(svc.config) - svc.store.sms_today(limits.day())[0])  # the share
    # of others used up; the players of games between people still have the reserve (cap 2000, reserve 20 %)
    out = text(client, svc, ALICE, "LINK +4791000123")
    assert [m["to"] for m in out] == [ALICE] and "prøv igjen i morgen" in out[0]["body"]  # "try again tomorrow"
    assert local_messages(svc, "+4791000123") == []
    assert svc.store.sms_today(limits.day())[0] <= cap  # and the game's own messages still go out
    assert [m["to"] for m in text(client, svc, BOB, "HELP")] == [BOB]


def test_plus_tags_give_no_fresh_budget_of_link_codes(client, own_limits, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc = own_limits
    per_day = int(settings.get(svc.config, "LINK_CODES_PER_DAY"))
    sent = 0
    for i in range(per_day + 3):
        home = f"jo.e+{i}@gmail.com"
        status, out = mail(client, svc, home, own_reply_address(client, svc, home), f"LINK +47910001{i:02d}")
        assert status == 200
        sent += len([m for m in out if m["to"] == f"+47910001{i:02d}"])
    assert sent == per_day  # one mailbox: one day's codes


# -- 2: LINK as an SMS bomb --------------------------------------------------------------------------------------
def test_one_number_gets_a_few_codes_a_day_whoever_asks(client, own_limits, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc, victim = own_limits, "+4791999999"
    for i in range(8):  # eight homes, twice each: 16 codes asked for
        for _ in range(2):
            out = text(client, svc, f"+47910002{i:02d}", f"LINK {victim}")
            assert len(out) in (1, 2)
    got = local_messages(svc, victim)
    assert len(got) == settings.get(svc.config, "LINK_CODES_PER_ADDRESS") == 3
    refused = text(client, svc, "+4791000299", f"LINK {victim}")
    assert [m["to"] for m in refused] == ["+4791000299"] and "i dag" in refused[0]["body"]  # "today": tomorrow


def test_link_codes_to_new_numbers_count_in_the_hours_rate(client, own_limits, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc = own_limits
    people_game(client, svc)
    per_hour = int(limits.setting(svc.config, "LIMIT_NEW_NUMBERS_PER_HOUR"))
    for i in range(per_hour):  # the hour's invitations to new numbers, from everyone: all used
        svc.store.count_invitation("new-numbers", limits.hour(svc.store.clock.now_ms() / 1000), f"earlier-{i}")
    out = text(client, svc, ALICE, "LINK +4791000444")
    assert [m["to"] for m in out] == [ALICE] and "en time" in out[0]["body"]  # "in an hour"
    assert local_messages(svc, "+4791000444") == []
    out = text(client, svc, ALICE, "LINK ann@example.org")  # a mailbox is not a new number: its code goes
    assert "ann@example.org" in [m["to"] for m in out]


# -- 3: STOP is the mailbox's, whatever form of it is written ----------------------------------------------------
@pytest.mark.parametrize("victim, forms", [
    ("ann.lee@gmail.com", ["ann.lee+spades@gmail.com", "a.n.n.l.e.e@gmail.com", "annlee@googlemail.com",
                           '"annlee"@gmail.com', "annlee\\@gmail.com"]),
    ("ann@example.org", ["ann+x@example.org", '"ann"@example.org', "ann\\@example.org", "ANN@Example.org"]),
])
def test_stop_holds_for_every_form_of_the_mailbox(client, own_limits, celery_worker, victim: str,
                                                   forms: list[str]) -> None:
    svc = own_limits
    out = text(client, svc, ALICE, f"NEW {victim}")
    [invitation] = [m for m in out if m["to"] == victim]
    status, _ = mail(client, svc, victim, invitation["reply_to"], "STOP")
    assert status == 200
    before = len(local_messages(svc))
    for form in forms:
        out = text(client, svc, ALICE, f"NEW {form}")
        assert [m["to"] for m in out] == [ALICE], (form, out)  # refused: the inviter told, nobody else written to
        assert "tar ikke imot" in out[0]["body"]  # Norwegian: "does not accept texts from slowspades"
    assert {m["to"] for m in local_messages(svc)[before:]} == {ALICE}


# -- 4: the service never writes to itself nor to role addresses -------------------------------------------------
@pytest.mark.parametrize("target", [f"play@{DOMAIN}", f"PLAY+x@{DOMAIN}", "postmaster@example.org",
                                    "mailer-daemon@gmail.com", "abuse@example.org", "noreply@example.org"])
def test_no_code_or_invitation_to_our_own_or_a_role_address(client, own_limits, celery_worker, target: str) -> None:  # type: ignore[no-untyped-def]
    svc = own_limits
    for word in ("LINK", "NEW"):
        out = text(client, svc, ALICE, f"{word} {target}")
        assert [m["to"] for m in out] == [ALICE], out
        assert "skriver ikke til" in out[0]["body"]  # Norwegian: "slowspades does not write to ..."
    assert not [m for m in local_messages(svc) if m["channel"] == "email"]


@pytest.mark.parametrize("sender", [f"play@{DOMAIN}", "mailer-daemon@example.org", "postmaster@example.org"])
def test_mail_from_our_own_or_a_role_address_is_not_answered(client, own_limits, celery_worker, sender: str) -> None:  # type: ignore[no-untyped-def]
    status, out = mail(client, own_limits, sender, f"play@{DOMAIN}", "HELP")
    assert status == 406 and out == []


# -- 5: a spam complaint does not freeze a game: the clock waits REACH_PAUSE_MAX_DAYS at most ----------------------
def test_a_complaint_pauses_the_clock_a_bounded_time_then_the_opponent_may_claim(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, "ann@example.org", "ben@example.org")
    loser = mover(svc, gid)
    waiting = other(svc, gid, loser)
    sent_to_loser = [e["id"] for e in svc.store.outbox_entries(game_owner(gid)) if e["to"] == loser]
    try:
        service_clock.advance(svc.redis, 3600)
        for oid in sent_to_loser[-2:]:  # two of our emails marked as spam: the opponent is told once
            assert mailgun_event(client, {"event": "complained", "user-variables": {"outbox": oid}}).status_code == 200
            wait_for(lambda: svc.reach.unreachable(loser) == "complained", 10, "the address marked")
        worker_idle(app)
        told = [m for m in local_messages(svc, waiting) if m["kind"] == "opponent_unreachable"]
        assert len(told) == 1 and "7 days at most" in told[0]["body"], told
        service_clock.advance(svc.redis, 6 * 86400)  # inside the bound: the game waits
        assert lifecycle_command(svc, waiting, "CLAIM").outcome != "over"
        assert local_messages(svc, waiting)[-1]["body"].startswith("The game is paused: no claim until the pause ends.")
        service_clock.advance(svc.redis, 8 * 86400)  # 7 days paused at most, then 7 days of the turn (and an hour)
        assert "claim_possible" in [m["kind"] for m in tick(svc) if m["to"] == waiting]
        lifecycle_command(svc, waiting, "CLAIM")
        assert svc.store.meta(gid)["status"] == "over"
        assert [m["kind"] for m in local_messages(svc, waiting)].count("opponent_unreachable") == 1
    finally:
        service_clock.reset(svc.redis)


def test_a_stop_pauses_the_clock_a_bounded_time_then_the_opponent_may_claim(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    """A pause one player can start ends by itself: STOP from the player who owes a move (a game they are losing)
    pauses it REACH_PAUSE_MAX_DAYS at most, the opponent told once and for how long; then the usual timeout."""
    gid = start_game(svc, "+15550007001", "+15550007002")
    loser = mover(svc, gid)
    waiting = other(svc, gid, loser)
    try:
        service_clock.advance(svc.redis, 3600)
        resp, mid = post_sms(client, loser, "STOP")
        assert resp.status_code == 200
        wait_handled(svc, mid)
        worker_idle(app)
        told = [m for m in local_messages(svc, waiting) if m["kind"] == "opponent_stopped"]
        assert len(told) == 1 and "7 days at most" in told[0]["body"], told
        service_clock.advance(svc.redis, 6 * 86400)  # inside the bound: the game waits
        assert lifecycle_command(svc, waiting, "CLAIM").outcome != "over"
        service_clock.advance(svc.redis, 8 * 86400)  # 7 days paused at most, then 7 days of the turn (and an hour)
        tick(svc)
        lifecycle_command(svc, waiting, "CLAIM")
        assert svc.store.meta(gid)["status"] == "over"
    finally:
        service_clock.reset(svc.redis)


# -- 6: the WhatsApp window is opened only by a WhatsApp message ---------------------------------------------------
def test_a_page_move_does_not_open_the_whatsapp_window(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    svc.config["WHATSAPP_TEMPLATES"] = "turn.el=HXturn0el"
    gid = whatsapp_waits_a_day(client, svc)  # the WhatsApp player silent for 25 hours: their window is closed
    while 0 not in load_game(svc, gid).movers:
        game = load_game(svc, gid)
        wait_handled(svc, post_sms(client, WA_SMS, command_text(choose(game, 1)))[1])
    game = load_game(svc, gid)
    token = svc.players.ensure_web_token(gid, 0)
    _page, csrf, ask = page_of(client, token)
    move = command_text(choose(game, 0))
    assert client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": move}).status_code == 303
    assert load_game(svc, gid).version > game.version  # the page move was applied
    wait_outbox_settled(svc)
    before = len(sent_to(twilio, WA))
    advance_and_tick(svc, 0.1)  # past the page's quiet minutes: the prompt the player owes, if they owe one
    while not sent_to(twilio, WA)[before:]:  # else the SMS player moves until the WhatsApp player is prompted
        game = load_game(svc, gid)
        assert game.movers == (1,)
        wait_handled(svc, post_sms(client, WA_SMS, command_text(choose(game, 1)))[1])
        wait_outbox_settled(svc)
    prompt = sent_to(twilio, WA)[before]
    assert prompt.get("ContentSid") == "HXturn0el" and "Body" not in prompt  # Twilio would refuse free text (63016)


# -- 7: a receipt replayed does nothing ----------------------------------------------------------------------------
def test_a_replayed_failure_receipt_does_not_pause_the_game_again(client, svc, celery_worker, app) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    p = mover(svc, gid)
    waiting = other(svc, gid, p)
    prompt = [e for e in svc.store.outbox_entries(game_owner(gid)) if e["to"] == p][-1]
    assert twilio_status(client, prompt["id"], "failed", "30005", sid="SMp") == 204
    wait_for(lambda: svc.reach.unreachable(p) == "30005", 10, "the number marked unreachable")
    lifecycle_command(svc, p, "GAMES")  # the player writes: reachable again, their clock runs
    assert svc.reach.unreachable(p) == ""
    for _ in range(3):  # the same receipt posted again (Twilio's retry, or anyone who kept it)
        assert twilio_status(client, prompt["id"], "failed", "30005", sid="SMp") == 204
    worker_idle(app)
    assert svc.reach.unreachable(p) == ""  # not marked again: the game is not paused again
    told = lambda: [m["kind"] for m in local_messages(svc, waiting)].count("opponent_unreachable")  # noqa: E731
    wait_for(lambda: told() >= 1, 10, "the first receipt's notice delivered")  # (its delivery may trail the worker)
    wait_outbox_settled(svc)
    assert told() == 1  # told once: the replays told nothing


# -- 9: malformed bodies and ids are refused, never a traceback ---------------------------------------------------
@pytest.mark.parametrize("body", ["[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000])
def test_json_nested_deep_to_the_events_webhook_is_a_400(client, svc, body: str) -> None:  # type: ignore[no-untyped-def]
    resp = client.post("/email/events", data=body, content_type="application/json")
    assert resp.status_code == 400 and resp.get_json()["reason"] == "not a Mailgun event"


@pytest.mark.parametrize("outbox_id", ["#", "5", "g:#", "x#y"])
def test_a_complaint_about_a_malformed_outbox_id_is_refused(client, svc, celery_worker, app, outbox_id: str) -> None:  # type: ignore[no-untyped-def]
    resp = mailgun_event(client, {"event": "complained", "user-variables": {"outbox": outbox_id}})
    assert resp.status_code == 406 and resp.get_json()["reason"] == "not an outbox id"
    assert on_failure(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, outbox_id, "", "complained",
                      lambda ids: None) == "missing"  # the worker: no traceback


# -- 10: a forged X-Mailgun-Dkim-Check-Result beside Mailgun's own ------------------------------------------------
@pytest.mark.parametrize("forged_first", [True, False])
def test_a_forged_dkim_verdict_does_not_vouch_for_the_sender(client, svc, forged_first: bool) -> None:  # type: ignore[no-untyped-def]
    junk = ["DKIM-Signature", "v=1; a=rsa-sha256; d=victim.example; s=s1; h=from; bh=x; b=junk"]
    forged = ["X-Mailgun-Dkim-Check-Result", "Pass"]
    mailguns = ["X-Mailgun-Dkim-Check-Result", "Fail"]  # Mailgun's verdict on the junk signature
    resp, _mid = post_email(client, "ceo@victim.example", f"play@{DOMAIN}", "HELP", spf="Fail",
                            extra_headers=[junk, forged, mailguns] if forged_first else [junk, mailguns, forged])
    assert resp.status_code == 406 and "sender not verified" in resp.get_json()["reason"]
    resp, _mid = post_email(client, "ceo@victim.example", f"play@{DOMAIN}", "HELP", spf="Fail", dkim="Pass",
                            extra_headers=[junk])  # Mailgun's own Pass alone: taken
    assert resp.status_code == 200


# -- 11: the simulator refuses a foreign Host (DNS rebinding) ----------------------------------------------------
@pytest.mark.parametrize("host, status", [("evil.example", 403), ("evil.example:8000", 403), ("127.0.0.1.nip.io", 403),
                                          ("localhost:8000", 200), ("127.0.0.1:8000", 200), ("[::1]:8000", 200)])
def test_the_simulator_refuses_a_foreign_host(redis_url: str, host: str, status: int) -> None:
    client = sim_app(redis_url).test_client()
    assert client.get("/simulator/messages", headers={"Host": host}).status_code == status
    sign = {"channel": "sms", "from": "+15550001001", "body": "HELP"}
    assert client.post("/simulator/sign", json=sign, headers={"Host": host}).status_code == status


# -- 12: the poll answers 410 with its page; a page while Redis is down says to try again -------------------------
def test_the_poll_of_an_expired_page_answers_410(client, svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    token = svc.store.meta(gid)["web0"]
    move(svc, svc.store.meta(gid)["seat0"], "RESIGN")
    move(svc, svc.store.meta(gid)["seat0"], "YES")
    assert svc.store.meta(gid)["status"] == "over"
    assert client.get(f"/g/{token}/poll").status_code == 200
    try:
        service_clock.advance(svc.redis, 31 * 86400)  # past SLOWSPADES_PAGE_TTL_DAYS (30)
        assert client.get(f"/g/{token}").status_code == 410
        gone = client.get(f"/g/{token}/poll")
        assert gone.status_code == 410 and gone.get_json() == {"gone": True}
    finally:
        service_clock.reset(svc.redis)


def test_a_page_or_a_page_move_while_redis_is_down_says_to_try_again(own_redis, tmp_path, app) -> None:  # type: ignore[no-untyped-def]
    web, _queue = app_on(own_redis, tmp_path, app)
    svc = web.extensions["slowspades"]
    res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, "g-down",
                      "+4791234567", "+4798765432", "setup:g-down", start_now=True)
    for oid in res.outbox_ids:
        svc.inject(deliver)(oid)
    token = svc.players.ensure_web_token("g-down", 0)
    client = web.test_client()
    _page, csrf, ask = page_of(client, token, asks=False)
    own_redis.kill()
    shown = client.get(f"/g/{token}", headers={"Accept-Language": "nb-NO,nb;q=0.9"})
    assert shown.status_code == 503 and "Prøv igjen om et minutt" in shown.get_data(as_text=True)
    assert shown.headers["Retry-After"] and shown.headers["Cache-Control"] == "no-store"
    moved = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "KEEP"})
    assert moved.status_code == 503 and "nothing was played" in moved.get_data(as_text=True)
    assert client.get(f"/g/{token}/poll").status_code == 503
    own_redis.start()
    assert client.get(f"/g/{token}").status_code == 200  # back: the page as before, nothing played meanwhile
    assert svc.store.version("g-down") == load_game(svc, "g-down").version


# -- 8: page tokens never in a log line ---------------------------------------------------------------------------
@pytest.mark.parametrize("log_format", ["json", "text"])
def test_no_page_token_in_gunicorns_logs(svc, redis_url: str, tmp_path, log_format: str) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    token = svc.store.meta(gid)["web0"]
    port, log = free_port(), tmp_path / "web.log"
    env = {**os.environ, "SLOWSPADES_REDIS_URL": redis_url, "SLOWSPADES_BROKER_URL": redis_url,
           "SLOWSPADES_SPOOL_DIR": str(tmp_path / "spool"), "SLOWSPADES_LOG_FORMAT": log_format,
           "SLOWSPADES_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}"}
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "python:service.gunicorn_conf",
                            "--access-logfile", "-", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                            "service:create_app()"], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: _status(base + "/healthz") == 200, 30, "gunicorn answering")
        assert _status(f"{base}/g/{token}") == 200 and _status(f"{base}/g/{token}/poll") == 200
        assert _status(f"{base}/g/{token}/move", b"move=KEEP") == 403  # no form token: refused, and logged
        assert _status(f"{base}/g%2F{token}") in (200, 404)  # an encoded slash: the raw line holds it encoded
        wait_for(lambda: log.read_text().count("/g") >= 4, 10, "the access lines written")
    finally:
        web.send_signal(signal.SIGQUIT)
        web.wait(10)
    lines = log.read_text()
    assert token not in lines and token.upper() not in lines, lines
    assert "/g/<token>/poll" in lines  # the line is there, the token is not


def _status(url: str, data: bytes | None = None) -> int:
    try:
        with urllib.request.urlopen(url, data=data, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return 0


@pytest.mark.parametrize("logger", ["werkzeug", "flask.app", "service", "gunicorn.error"])
def test_no_page_token_in_flask_or_werkzeug_lines(app, logger: str, caplog) -> None:  # type: ignore[no-untyped-def]
    token = "c5cc3d6414194bf07634503e3215fa21"
    with caplog.at_level(logging.INFO, logger=logger):
        logging.getLogger(logger).error("Exception on /g/%s/move [POST]", token)
        logging.getLogger(logger).info('127.0.0.1 - - "GET /g/%s HTTP/1.1" 200 -', token)
    assert caplog.records and token not in caplog.text and "/g/<token>/move" in caplog.text

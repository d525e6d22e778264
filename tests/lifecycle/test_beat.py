"""The beat: exactly one reminder with two beats at once (threads and processes), pauses, claims, expiries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import time_machine

from chat import render
from service.store import clock as service_clock
from service.store import due as due
from service.store.keys import due_key
from tests.backends import BOTH
from workers.beat import run_tick

from .helpers import ALICE, BOB, CAROL, DAVE, lifecycle_command, load, local, mover, other, send_now, start_game, tick

MONDAY_8_OSLO = datetime(2030, 1, 7, 7, 0, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[2]
pytestmark = BOTH


def kinds(messages):  # type: ignore[no-untyped-def]
    return [m.get("kind") for m in messages]


def test_exactly_one_reminder_with_two_beats_in_threads(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        clock.shift(timedelta(hours=12))
        written: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(2)

        def beat() -> None:
            barrier.wait()
            for _ in range(30):
                ids: list[str] = []
                run_tick(svc.config, svc.store, svc.steps, ids.extend, lambda t: None)
                with lock:
                    written.extend(ids)

        threads = [threading.Thread(target=beat) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        send_now(svc, written)
        assert kinds(local(svc, mover(svc, gid))).count("reminder") == 1
        assert len(written) == 1


BEAT_PROCESS = r"""
import json, sys, time
from service import create_app
from workers.beat import run_tick
app = create_app(json.loads(sys.argv[1]))
svc = app.extensions["slowspades"]
go = float(sys.argv[2])
while time.time() < go:
    time.sleep(0.001)
ids = []
for _ in range(40):
    run_tick(svc.config, svc.store, svc.steps, ids.extend, lambda t: None)
print(json.dumps(ids))
"""


@pytest.mark.slow
def test_exactly_one_reminder_with_two_beat_processes(svc, redis_url, broker_url) -> None:  # type: ignore[no-untyped-def]
    # Two separate processes share the service clock through Redis ({clock}:offset), as a local run does.
    import time

    gid = start_game(svc)
    service_clock.advance(svc.redis, 12 * 3600 + 60)
    try:
        from service.lifecycle import reminders

        p = mover(svc, gid)
        now = service_clock.now(svc.redis)
        from service.lifecycle import settings
        from service.lifecycle.reminders import player_zone, quiet_until

        quiet = quiet_until(now, player_zone(svc.config, svc.store, p), settings.quiet_hours(svc.config))
        if quiet is not None:  # run the test outside the player's quiet hours
            service_clock.advance(svc.redis, (quiet - now).total_seconds() + 60)
        cfg = {"REDIS_URL": redis_url, "BROKER_URL": broker_url, "DEALER_SEED": "1", "SHARED_CLOCK": True}
        go = time.time() + 2.0
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        procs = [subprocess.Popen([sys.executable, "-c", BEAT_PROCESS, json.dumps(cfg), str(go)], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outs = [pr.communicate(timeout=60) for pr in procs]
        for pr, (out, err) in zip(procs, outs):
            assert pr.returncode == 0, err
        written = [i for out, _err in outs for i in json.loads(out.strip().splitlines()[-1])]
        assert len(written) == 1
        send_now(svc, written)
        assert kinds(local(svc, p)).count("reminder") == 1
        _ = reminders
    finally:
        service_clock.reset(svc.redis)


def test_a_pause_stops_reminders_and_the_timeout_clock(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        waiting = other(svc, gid, p)
        clock.shift(timedelta(hours=1))
        lifecycle_command(svc, waiting, "PAUSE 3")
        assert kinds(local(svc, p))[-1] == "paused" and kinds(local(svc, waiting))[-1] == "paused"
        assert "3" in local(svc, p)[-1]["body"]
        clock.shift(timedelta(hours=12))
        assert tick(svc) == []
        clock.shift(timedelta(days=2))
        assert tick(svc) == []
        clock.move_to(MONDAY_8_OSLO + timedelta(days=3, hours=1))  # the pause ends: 09:00 in Oslo
        sent = tick(svc)
        assert [(m["to"], m["kind"]) for m in sent] == [(p, "reminder")]
        # 7 days after the turn began the game is not claimable: 3 of them were paused
        clock.move_to(MONDAY_8_OSLO + timedelta(days=7, hours=2))
        tick(svc)
        res = lifecycle_command(svc, waiting, "CLAIM")
        assert res.outcome == "claim_refused"
        assert svc.store.meta(gid)["status"] == "active"
        clock.move_to(MONDAY_8_OSLO + timedelta(days=10, hours=1, minutes=1))
        sent = tick(svc)
        assert (waiting, "claim_possible") in [(m["to"], m["kind"]) for m in sent]
        res = lifecycle_command(svc, waiting, "CLAIM")
        assert res.outcome == "applied"
        game = load(svc, gid)
        assert game.phase == "over" and game.end_reason == "timeout"
        assert svc.store.meta(gid)[f"seat{game.winner}"] == waiting


def test_a_claim_after_the_timeout(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        waiting = other(svc, gid, p)
        clock.shift(timedelta(days=6))
        tick(svc)
        assert lifecycle_command(svc, waiting, "CLAIM").outcome == "claim_refused"
        assert "hours" in local(svc, waiting)[-1]["body"] or local(svc, waiting)[-1]["kind"] == "claim_refused"
        assert lifecycle_command(svc, p, "CLAIM").outcome == "claim_refused"  # not the one to move
        clock.shift(timedelta(days=1))
        sent = tick(svc)
        told = [m for m in sent if m["kind"] == "claim_possible"]
        assert [m["to"] for m in told] == [waiting] and "KREV" in told[0]["body"]  # CLAIM in Norwegian
        clock.shift(timedelta(days=1))
        assert all(m["kind"] != "claim_possible" for m in tick(svc))  # told once
        res = lifecycle_command(svc, waiting, "CLAIM")
        assert res.outcome == "applied"
        game = load(svc, gid)
        assert game.phase == "over" and game.end_reason == "timeout"
        assert svc.store.meta(gid)[f"seat{game.winner}"] == waiting
        assert svc.store.meta(gid)["status"] == "over"
        # its log is archived (compressed, a tenth of the memory) and reads the same
        assert svc.redis.exists("{g:" + gid + "}:archive") and not svc.redis.exists("{g:" + gid + "}:ev")
        assert load(svc, gid).end_reason == "timeout"
        # both are told; no more reminders for a finished game
        assert local(svc, p)[-1]["kind"] == local(svc, waiting)[-1]["kind"] == "game_summary"
        clock.shift(timedelta(days=3))
        assert tick(svc) == []
        assert due.pending(svc.redis, gid) == []


def test_an_invitation_expires_and_the_inviter_is_told(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        res = lifecycle_command(svc, ALICE, f"NEW {BOB}")
        gid = str(res.game_id)
        assert kinds(local(svc, BOB)) == ["invite"] and "JA" in local(svc, BOB)[0]["body"]
        assert "NEI" in local(svc, BOB)[0]["body"]
        clock.shift(timedelta(days=3) - timedelta(minutes=1))
        assert tick(svc) == []
        assert svc.store.meta(gid)["status"] == "invited"
        clock.shift(timedelta(minutes=2))
        sent = tick(svc)
        assert [(m["to"], m["kind"]) for m in sent] == [(ALICE, "invite_expired")]
        assert svc.store.meta(gid)["status"] == "expired"
        late = lifecycle_command(svc, ALICE, f"NEW {BOB}")  # a new invitation works as before
        assert late.outcome == "invited"
        assert tick(svc) == []


def test_no_declines_and_the_inviter_is_told(svc) -> None:  # type: ignore[no-untyped-def]
    res = lifecycle_command(svc, ALICE, f"NEW {BOB}")
    out = lifecycle_command(svc, BOB, "NO")
    assert out.outcome == "declined"
    assert svc.store.meta(str(res.game_id))["status"] == "declined"
    assert kinds(local(svc, ALICE))[-1] == "declined"
    short = "+" + BOB[1:3] + ".." + BOB[-4:]  # as every SMS names a number (issue 14 case 1)
    body = local(svc, ALICE)[-1]["body"]  # in Norwegian: the number is Norway's
    assert body.startswith(short + " ") and BOB not in body, body


def test_refusals_for_bad_and_stopped_addresses(svc) -> None:  # type: ignore[no-untyped-def]
    assert lifecycle_command(svc, ALICE, "NEW +999123").outcome == "invite_refused"
    lifecycle_command(svc, BOB, "STOP")
    assert lifecycle_command(svc, ALICE, f"NEW {BOB}").outcome == "invite_refused"
    refusal = local(svc, ALICE)[-1]
    assert refusal["kind"] == "invite_refused" and BOB in refusal["body"]
    assert local(svc, BOB) == []  # nothing at all to a stopped number


def test_stop_pauses_the_games_and_start_resumes_them(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        waiting = other(svc, gid, p)
        before = len(local(svc, p))
        lifecycle_command(svc, p, "STOP")
        assert kinds(local(svc, waiting))[-1] == "opponent_stopped"
        clock.shift(timedelta(days=9))
        assert tick(svc) == []
        assert lifecycle_command(svc, waiting, "CLAIM").outcome == "claim_refused"  # paused, not timed out
        lifecycle_command(svc, waiting, "GAMES")
        assert len(local(svc, p)) == before  # nothing at all was sent to the stopped number
        lifecycle_command(svc, p, "START")
        assert kinds(local(svc, waiting))[-1] == "opponent_back"
        assert kinds(local(svc, p))[-1] == "started"
        clock.shift(timedelta(hours=12))
        assert [(m["to"], m["kind"]) for m in tick(svc)] == [(p, "reminder")]


def test_a_stop_word_the_carrier_does_not_answer_is_confirmed_once(svc) -> None:  # type: ignore[no-untyped-def]
    """Carriers answer their own STOP; STOPP (Norwegian) and STOP by email are ours to confirm."""
    with time_machine.travel(MONDAY_8_OSLO, tick=False):
        start_game(svc, ALICE, BOB)
        before = len(local(svc, ALICE))
        lifecycle_command(svc, ALICE, "STOPP")  # Norwegian: no carrier answers it
        told = local(svc, ALICE)[before:]
        assert [m["kind"] for m in told] == ["stopped"] and "START" in told[0]["body"]
        assert told[0]["body"] != render("stopped", "en", "sms").text  # in Norwegian, as the player writes
        lifecycle_command(svc, BOB, "GAMES")
        lifecycle_command(svc, ALICE, "HAND")
        assert local(svc, ALICE)[before:] == told  # and nothing after it
        assert kinds(local(svc, BOB))[-2:] == ["opponent_stopped", "games"]

        lifecycle_command(svc, CAROL, "STOP")  # the carrier's word, by SMS: the carrier confirms it
        assert local(svc, CAROL) == []
        lifecycle_command(svc, DAVE, "STOP")  # by email: no carrier, so we confirm
        assert [m["kind"] for m in local(svc, DAVE)] == ["stopped"]


def test_a_failing_item_does_not_block_the_others(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        svc.redis.zadd(due_key("broken"), {"r|broken|x|y": 0})  # an item whose action raises
        clock.shift(timedelta(hours=12))
        assert [m["kind"] for m in tick(svc)] == ["reminder"]
        assert svc.redis.zscore(due_key("broken"), "r|broken|x|y") > 0  # kept, to be tried again later
        _ = gid

"""Exactly once under failure: a worker SIGKILLed mid-move, and workers racing on one game."""

from __future__ import annotations

import os
import signal
import threading
import uuid
from pathlib import Path

import pytest

from service import create_app
from service.conversation_port import command_text
from service.delivery import deliver
from service.games.result import Result
from service.inbound import handle_inbound
from service.lifecycle.invitations import create_game
from service.store import game_owner
from tests.conftest import TEST_CONFIG, spawn_worker

from .chooser import choose
from .helpers import local_messages, post_sms, wait_for, wait_handled
from .test_sms_game import ALICE, BOB, load_game


def own_app(redis_url: str, queue: str, session_app):  # type: ignore[no-untyped-def]
    """An app like the session's whose tasks go to ``queue`` (the session's Celery app stays the default)."""
    other = create_app(dict(TEST_CONFIG, REDIS_URL=redis_url, BROKER_URL=redis_url, QUEUE=queue))
    session_app.extensions["celery"].set_default()
    return other


def started_game(svc, gid: str = "g-crash", players: tuple[str, str] = (ALICE, BOB)) -> str:  # type: ignore[no-untyped-def]
    res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid, players[0],
                      players[1], "setup:" + gid, start_now=True)
    assert res.outcome == "started"
    for oid in res.outbox_ids:
        svc.inject(deliver)(oid)
    return gid


@pytest.mark.slow
@pytest.mark.parametrize("point", ["before_append", "after_append"])
def test_worker_killed_mid_move_applies_the_move_exactly_once(point, redis_url, svc, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    queue = "kill-" + uuid.uuid4().hex[:6]
    app = own_app(redis_url, queue, app)
    client = app.test_client()
    gid = started_game(svc)
    game = load_game(svc, gid)
    mover = (ALICE, BOB)[game.movers[0]]
    before = game.version
    (tmp_path / "armed").touch()
    # SEND_LEASE: the dead attempt's claims (its own token) are taken over once its lease is over
    settings = dict(QUEUE=queue, VISIBILITY_TIMEOUT=2, SEND_LEASE=1)
    hang = dict(app="tests.service.hanging_worker:celery", env={"TEST_HANG": f"{point}:{tmp_path}"})
    w1 = spawn_worker(redis_url, tmp_path / "w1.log", **hang, **settings)
    try:
        resp, mid = post_sms(client, mover, command_text(choose(game, game.movers[0])))
        assert resp.status_code == 200
        wait_for(lambda: list(tmp_path.glob("reached-*")), timeout=30, what="the worker to reach " + point)
        assert svc.store.version(gid) == (before + 1 if point == "after_append" else before)
        os.kill(w1.pid, signal.SIGKILL)
        w1.wait(10)
        assert (svc.store.inbound(mover, mid) or {}).get("status") != "done"
        w2 = spawn_worker(redis_url, tmp_path / "w2.log", **hang, **settings)
        try:
            wait_handled(svc, mid, timeout=60)
            wait_for(lambda: all(e["status"] == "sent" for e in svc.store.outbox_entries(game_owner(gid))),
                     timeout=30, what="the move's messages sent")
        finally:
            w2.terminate()
            w2.wait(20)
    finally:
        if w1.poll() is None:
            w1.kill()
    assert svc.store.version(gid) > before
    assert [e.message_id for e in svc.store.load(gid)].count(mid) == 1
    after = load_game(svc, gid)
    assert after.movers != game.movers or after.phase != game.phase or after.version == before + 1
    outbox = svc.store.outbox_entries(game_owner(gid))
    bodies = [m["id"] for m in local_messages(svc)]
    assert len(bodies) == len(set(bodies)) and set(bodies) >= {e["id"] for e in outbox}


def test_two_deciders_racing_on_one_version_one_wins_the_other_redecides(svc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    gid = started_game(svc, "g-race")
    barrier = threading.Barrier(2)
    seen: dict[str, list[int]] = {}
    for sender, mid in ((ALICE, "sms:SMa"), (BOB, "sms:SMb")):  # RESIGN asks for confirmation: YES confirms
        svc.store.record_inbound(sender, mid + "0", {"channel": "sms", "from": sender, "body": "RESIGN"}, 600)
        assert svc.inject(handle_inbound)(mid + "0", sender).outcome == "confirm_resign"
        svc.store.record_inbound(sender, mid, {"channel": "sms", "from": sender, "body": "YES"}, 600)
    results: dict[str, Result] = {}
    append = svc.store.append

    def append_after_both_decided(owner: str, expected_version: int, *args, **kwargs):  # type: ignore[no-untyped-def]
        mid = kwargs.get("message_id") or ""
        if owner == game_owner(gid) and mid in ("sms:SMa", "sms:SMb"):  # injected here: the moves' appends
            seen.setdefault(mid, []).append(expected_version)
            if len(seen[mid]) == 1:
                barrier.wait(10)  # both decided against the same version before either appends
        return append(owner, expected_version, *args, **kwargs)

    monkeypatch.setattr(svc.store, "append", append_after_both_decided)

    def run(mid: str, sender: str) -> None:
        svc.games.clear()
        results[mid] = svc.inject(handle_inbound)(mid, sender)

    threads = [threading.Thread(target=run, args=(m, s)) for m, s in (("sms:SMa", ALICE), ("sms:SMb", BOB))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen["sms:SMa"][0] == seen["sms:SMb"][0]
    outcomes = sorted(r.outcome for r in results.values())
    assert outcomes == ["game_over", "resigned"]  # the loser re-read, re-decided, and was told the game is over
    ended = [e for e in svc.store.load(gid) if e.event["type"] == "game_ended"]
    assert len(ended) == 1


@pytest.mark.slow
def test_two_worker_processes_on_many_games_keep_every_game_consistent(redis_url, svc, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Each game gets a move, the same move again (a duplicate), and the other player's resignation, at once."""
    queue = "race-" + uuid.uuid4().hex[:6]
    app = own_app(redis_url, queue, app)
    client = app.test_client()
    seats = [(f"+1555200{2 * i:04d}", f"+1555200{2 * i + 1:04d}") for i in range(12)]
    gids = [started_game(svc, f"g-many-{i}", seats[i]) for i in range(12)]
    workers = [spawn_worker(redis_url, tmp_path / f"w{i}.log", QUEUE=queue) for i in range(2)]
    try:
        asked = []  # RESIGN first asks for confirmation; the YES that confirms it races with the move below
        for gid, players in zip(gids, seats):
            game = load_game(svc, gid)
            asked.append(post_sms(client, players[1 - game.movers[0]], "RESIGN")[1])
        for mid in asked:
            wait_handled(svc, mid, timeout=60)
        mids = []
        for gid, players in zip(gids, seats):
            game = load_game(svc, gid)
            mover, other = players[game.movers[0]], players[1 - game.movers[0]]
            text = command_text(choose(game, game.movers[0]))
            sid = "SM" + uuid.uuid4().hex
            mids.append(post_sms(client, mover, text, sid=sid)[1])
            mids.append(post_sms(client, mover, text, sid=sid)[1])
            mids.append(post_sms(client, other, "YES")[1])  # confirms the resignation
        for mid in mids:
            wait_handled(svc, mid, timeout=60)
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(20)
    for gid in gids:
        stream = svc.store.load(gid)
        ids = [e.message_id for e in stream if e.message_id]
        assert len(ids) == len(set(ids))
        assert sum(e.event["type"] == "game_ended" for e in stream) <= 1
        game = load_game(svc, gid)  # the log folds cleanly
        assert game.version == len(stream) and game.phase == "over"
        kinds = [e.event["type"] for e in stream[2:]]
        assert kinds in (["game_ended"], ["double_nil_declined", "game_ended"])  # the move at most once

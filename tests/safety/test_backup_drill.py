"""The backup drill (issue 44), as docs/operating.md tells an operator to run it: a Redis with a game in play is
backed up (``slowspades backup``), a player is forgotten after it, the backup is restored into a fresh
``redis-server`` (``slowspades restore``), ``slowspades games verify --all`` passes, the forget ledger is replayed
(the player the backup brought back is forgotten again), and the game plays on: a move applies. Real redis-servers,
a real Celery worker, Twilio-signed webhooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from service.cli import main
from service.conversation_port import command_text
from service.delivery import deliver
from service.lifecycle.invitations import create_game
from tests.conftest import spawn_worker
from tests.service.chooser import choose
from tests.service.helpers import post_sms, wait_for, wait_handled
from tests.service.test_sms_game import ALICE, BOB, load_game

from .redis_proc import RedisProc
from .test_spool import app_on

ZOLTAN = "+15557770001"


def cli(*args: str, ledger: Path) -> Result:
    env = {"SLOWSPADES_FORGET_LEDGER": str(ledger), "SLOWSPADES_LOG_HASH_KEY": "drill-ledger-key-0123456789abcdef"}
    return CliRunner(env=env).invoke(main, list(args), catch_exceptions=False)


def play_one(web, svc, gid: str) -> int:  # type: ignore[no-untyped-def]
    """The mover's next move through the SMS webhook; returns the game's version before it."""
    svc.games.clear()
    game = load_game(svc, gid)
    mover = (ALICE, BOB)[game.movers[0]]
    resp, _mid = post_sms(web.test_client(), mover, command_text(choose(game, game.movers[0])))
    assert resp.status_code == 200
    wait_for(lambda: svc.store.version(gid) > game.version, 60, "the move applied")
    return int(game.version)


@pytest.mark.slow
def test_backup_restore_verify_replay_the_ledger_and_play_on(own_redis: RedisProc, tmp_path: Path, app) -> None:  # type: ignore[no-untyped-def]
    ledger, snapshot = tmp_path / "forgotten.ledger", tmp_path / "backups" / "slowspades.rdb"
    snapshot.parent.mkdir()
    web, queue = app_on(own_redis, tmp_path, app)
    svc = web.extensions["slowspades"]
    worker = spawn_worker(own_redis.url, tmp_path / "w1.log", QUEUE=queue)
    try:
        res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, "g-drill",
                          ALICE, BOB, "setup:g-drill", start_now=True)
        for oid in res.outbox_ids:
            svc.inject(deliver)(oid)
        play_one(web, svc, "g-drill")  # a game in play, moved by a player
        _resp, mid = post_sms(web.test_client(), ZOLTAN, "NAME Zoltan")  # a player with no game
        wait_handled(svc, mid)
    finally:
        worker.terminate()
        worker.wait(20)
    version = svc.store.version("g-drill")

    done = cli("backup", str(snapshot), "--redis-url", own_redis.url, ledger=ledger)
    assert done.exit_code == 0, done.output
    assert snapshot.stat().st_size > 0 and "backup of" in done.output
    done = cli("players", "forget", ZOLTAN, "--redis-url", own_redis.url, ledger=ledger)  # after the backup
    assert done.exit_code == 0, done.output
    assert len(ledger.read_text().split()) == 1  # the ledger holds its keyed hash
    own_redis.stop()  # the old Redis is gone: its disk is lost

    fresh = RedisProc(tmp_path / "redis-fresh", appendfsync="everysec")  # persistence on, as deployed
    fresh.start()
    try:
        done = cli("restore", str(snapshot), "--redis-url", fresh.url, ledger=ledger)
        assert done.exit_code == 0, done.output
        again = cli("restore", str(snapshot), "--redis-url", fresh.url, ledger=ledger)
        assert again.exit_code == 2 and "holds keys already" in again.output  # never over live data by mistake
        fresh.kill()  # what was restored is in the fresh Redis' own append-only file
        fresh.start()

        done = cli("games", "verify", "--all", "--json", "--redis-url", fresh.url, ledger=ledger)
        assert done.exit_code == 0, done.output
        verified = json.loads(done.output)
        assert verified["ok"] and [g["game"] for g in verified["games"]] == ["g-drill"]

        restored = app_on(fresh, tmp_path / "after", app)[0].extensions["slowspades"]
        assert restored.players.get(ZOLTAN)  # the backup brought the forgotten player back...
        done = cli("players", "forget-ledger", "--json", "--redis-url", fresh.url, ledger=ledger)
        assert done.exit_code == 0 and json.loads(done.output)["forgotten"] == 1, done.output
        assert restored.players.get(ZOLTAN) is None  # ...and the ledger forgot them again

        web2, queue2 = app_on(fresh, tmp_path / "after", app)
        svc2 = web2.extensions["slowspades"]
        assert svc2.store.version("g-drill") == version
        worker = spawn_worker(fresh.url, tmp_path / "w2.log", QUEUE=queue2)
        try:
            assert play_one(web2, svc2, "g-drill") == version  # and the game plays on
        finally:
            worker.terminate()
            worker.wait(20)
    finally:
        fresh.stop()

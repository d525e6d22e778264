"""A Telegram update answered 200 is never lost: with Redis down the web process keeps it on local disk and hands it
over, once, when Redis answers (the same update sent again meanwhile is handled once); if the disk fails too, the
answer is 503 and Telegram sends the update again later."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.spool import Spool
from tests.conftest import spawn_worker
from tests.service.fake_telegram import BOT_TOKEN, SECRET, FakeBotApi, message_update, post_update
from tests.service.helpers import wait_for

from .test_spool import app_on, nowhere_to_keep

CHAT = 5557771


@pytest.mark.slow
def test_an_update_posted_while_redis_is_down_is_handled_once_when_it_returns(own_redis, tmp_path: Path, app) -> None:  # type: ignore[no-untyped-def]
    bot = FakeBotApi().start()
    settings = {"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "TELEGRAM_SECRET": SECRET, "TELEGRAM_API_URL": bot.url}
    web, queue = app_on(own_redis, tmp_path, app, **settings)
    svc = web.extensions["slowspades"]
    client = web.test_client()
    update = message_update(CHAT, "HELP")
    own_redis.kill()
    assert post_update(client, update).status_code == 200
    assert post_update(client, update).status_code == 200  # Telegram's own retry of it, Redis still down
    spool = Spool(tmp_path / "spool")
    assert len(spool) == 2
    own_redis.start()
    worker = spawn_worker(own_redis.url, tmp_path / "w.log", QUEUE=queue, **settings)
    try:
        wait_for(lambda: len(spool) == 0, 30, "the spool handed over")
        wait_for(lambda: bot.sent(CHAT), 60, "the HELP reply")
        wait_for(lambda: (svc.store.inbound(f"telegram:{CHAT}", f"tg:{update['update_id']}")
                          or {"status": "done"}).get("status") == "done", 30, "the update handled")
    finally:
        worker.terminate()
        worker.wait(20)
        bot.stop()
    assert len(bot.sent(CHAT)) == 1


def test_when_even_the_disk_fails_telegram_is_asked_to_send_it_again(own_redis, tmp_path: Path, app) -> None:  # type: ignore[no-untyped-def]
    web = nowhere_to_keep(own_redis, tmp_path, app)
    web.config["TELEGRAM_SECRET"] = SECRET
    assert post_update(web.test_client(), message_update(CHAT, "HELP")).status_code == 503

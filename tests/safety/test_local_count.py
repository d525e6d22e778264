"""The local outbox counts the day's SMS as a provider's sending does (issue 44): every SMS a game sends is counted
toward the day's cap and spend, the messages of a move included (they were settled into the local outbox without
being counted: 8 counted of 13 sent). Through the signed webhook and a real worker, the code's own limits."""

from __future__ import annotations

from service import limits
from service.conversation_port import command_text
from tests.service.chooser import choose
from tests.service.helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from tests.service.test_sms_game import ALICE, BOB, load_game, start_sms_game


def test_every_sms_the_local_outbox_sends_is_counted(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc.config["SMS_DAILY_CAP"] = 10_000  # the day's count runs while a cap is on (a deployment's default is)
    gid = start_sms_game(client, svc)
    for _ in range(6):  # a few moves: each sends its prompts and what the other did
        game = load_game(svc, gid)
        seat = game.movers[0]
        _resp, mid = post_sms(client, (ALICE, BOB)[seat], command_text(choose(game, seat)))
        wait_handled(svc, mid)
    wait_outbox_settled(svc)
    sent = [m for m in local_messages(svc) if m["to"] in (ALICE, BOB)]
    assert len(sent) > 6
    assert svc.store.sent_today(limits.day())[0] == len(sent)  # each SMS sent counted once, as Twilio would bill it

"""A WhatsApp player whose 24-hour window closed, with no approved template and no other address (issue 45 case 5),
through the real signed webhook, a real Celery worker and the local outbox: the game never stalls silently. The
opponent whose move made it the WhatsApp player's turn is told the truth (WhatsApp lets the service write only
once they write again), no message is written only to fail, and when the WhatsApp player writes again the answer
tells them what they missed, the opponent's bid with it."""

from __future__ import annotations

import re

from service.conversation_port import command_text

from .chooser import choose
from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_sms_game import load_game
from .test_whatsapp import HOUR_S, SMS, WA, start_game


def test_a_closed_window_is_told_to_the_opponent_and_the_news_waits_for_the_whatsapp_player(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc)
    for _ in range(80):  # both play (the WhatsApp player within their window) until the SMS player bids
        game = load_game(svc, gid)
        if game.phase == "bid" and game.movers == (1,):
            break
        seat = game.movers[0]
        resp, mid = post_sms(client, (WA, SMS)[seat], command_text(choose(game, seat)))
        wait_handled(svc, mid)
    assert load_game(svc, gid).movers == (1,)
    wait_outbox_settled(svc)
    svc.store.clock.advance(25 * HOUR_S)  # a day passes: the WhatsApp player's window closes
    to_sms, to_wa = len(local_messages(svc, SMS)), len(local_messages(svc, WA))
    resp, mid = post_sms(client, SMS, "BID 3")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert 0 in load_game(svc, gid).movers  # the WhatsApp player's turn
    told = [m["body"] for m in local_messages(svc, SMS)[to_sms:]]
    assert any("WhatsApp" in t for t in told), told  # the truth, not only "to move"
    failed = [e for e in svc.store.outbox_entries(f"g:{gid}") if e["status"] == "failed"]
    assert failed == [], failed  # nothing written only to fail
    assert len(local_messages(svc, WA)) == to_wa
    # the WhatsApp player writes again (their window opens): the answer has the bid they missed
    resp, mid = post_sms(client, WA, "HAND")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    [answer] = [m["body"] for m in local_messages(svc, WA)[to_wa:]]
    assert re.search(r"\+1\.\.0002\D{0,12}\b3\b", answer), answer  # the bid with its bidder (Greek: "+1..0002: δήλωση 3.")

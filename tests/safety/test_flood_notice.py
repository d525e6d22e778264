"""The flood limit (issue 23 case 14).

Before: the flood limit (20 messages a minute) refused a fast player drawing against the computer, and the only notice
went back in the webhook's answer (an email sender got none). After: a player with a game in play has the higher
``LIMIT_MESSAGES_PER_MINUTE_PLAYING``; the notice is the player's message by their channel, once.
"""

from __future__ import annotations

from service.inbound import handle_inbound
from tests.chat.goldens import check_golden
from tests.lifecycle.helpers import lifecycle_command, local, send_now
from tests.service.helpers import post_email, post_sms, wait_outbox_settled

A = "+15551230601"


def _handle(svc, sender: str, mid: str) -> None:  # type: ignore[no-untyped-def]
    """Handle and send as the worker does. A Celery worker left running in this process by an earlier test may take
    the queued message first: this handling is then the duplicate, and the message is that worker's to send."""
    send_now(svc, svc.inject(handle_inbound)(mid, sender).outbox_ids)
    wait_outbox_settled(svc)


def test_the_flood_notice_goes_by_the_players_channel_once(client, svc, one_minute) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 3
    taken = []
    for i in range(6):
        resp, mid = post_sms(client, A, f"HELP {i}")
        assert resp.status_code == 200 and "<Message>" not in resp.get_data(as_text=True)  # no answer in TwiML
        if svc.store.inbound(A, mid) is not None:
            taken.append(mid)
    assert len(taken) == 4  # three, and the first one over, which is answered with the notice only
    for mid in taken:
        _handle(svc, A, mid)
    notices = [m for m in local(svc, A) if m["kind"] == "limit_flood"]
    assert len(notices) == 1 and "3" in notices[0]["body"], local(svc, A)
    assert [m["kind"] for m in local(svc, A)].count("help") == 3
    dana = "dana@mail.example.org"
    codes = []
    for _ in range(5):
        resp, mid = post_email(client, dana, "play@spades.example.test", "HELP")
        codes.append(resp.status_code)
        if resp.status_code == 200:
            _handle(svc, dana, mid)
    assert codes == [200, 200, 200, 200, 406]
    assert [m["kind"] for m in local(svc, dana)].count("limit_flood") == 1
    check_golden("en", "issue23/flood_notice", notices[0]["body"] + "\n")


def test_a_fast_player_drawing_against_the_computer_is_not_refused(client, svc, one_minute) -> None:  # type: ignore[no-untyped-def]
    svc.config["LIMIT_MESSAGES_PER_MINUTE"] = 3
    lifecycle_command(svc, A, "NEW BOT")
    refused = 0
    for i in range(12):  # a draw's keeps and discards, as fast as one types
        resp, mid = post_sms(client, A, "K" if i % 2 else "D")
        refused += svc.store.inbound(A, mid) is None
    assert refused == 0

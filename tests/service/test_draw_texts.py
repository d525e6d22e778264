"""What the draw tells a player (issue 45 case 8), a game between two SMS players through the real signed webhook, a
real Celery worker and the local outbox: the card that KEEP sends to the discards is told as the next card going
there, not as if the player threw it away; the discard of the thirteenth decision is told too; "yes" in the middle
of the draw repeats the question it does not answer."""

from __future__ import annotations

from service.games.seats import seat_of

from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_game_page_play import events_of
from .test_sms_game import ALICE, BOB, load_game, start_sms_game


def test_the_draw_names_each_card_keep_sent_to_the_discards(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    wait_outbox_settled(svc)
    mover = (ALICE, BOB)[load_game(svc, gid).movers[0]]
    before = len(local_messages(svc, mover))
    resp, mid = post_sms(client, mover, "yes")  # nothing to say yes to: the question again with the answer
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    [answer] = [m["body"] for m in local_messages(svc, mover)[before:]]
    assert "DN or DRAW" in answer, answer
    for _ in range(200):  # the whole draw by SMS, every card kept
        game = load_game(svc, gid)
        if game.phase != "draw":
            break
        seat = game.movers[0]
        resp, mid = post_sms(client, (ALICE, BOB)[seat], "KEEP" if game.dn_decided[seat] else "DRAW")
        wait_handled(svc, mid)
    wait_outbox_settled(svc)
    meta = svc.store.meta(gid)
    for address in (ALICE, BOB):
        told = [m["body"] for m in local_messages(svc, address)]
        assert not any("Discarded " in t for t in told), [t for t in told if "Discarded " in t]
        seat = seat_of(meta, address)
        decisions = [e for e in events_of(svc, gid) if e["type"] == "draw_decided" and e["seat"] == seat]
        assert len(decisions) == 13
        for decision in decisions:  # every card KEEP sent to the discards is named to its player
            assert any(f"{decision['discarded']} went to the discards" in t for t in told), (decisions.index(decision), decision, told[-3:])

"""The record between two people and STATS (issue 46), through the real webhook and worker: three games between Ana
and Bo, each ended by a resignation; the third's first message, its end, GAMES, STATS and both game pages tell the
head-to-head record with the third game counted."""

from __future__ import annotations

from typing import Any

from service.lifecycle.invitations import game_id_for

from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_plans_sms import send
from .test_sms_game import ALICE, BOB


def new_game(client: Any, svc: Any, word: str) -> str:
    resp, mid = post_sms(client, ALICE, word)
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    gid = game_id_for(mid)
    send(client, svc, BOB, "YES")
    assert svc.store.meta(gid)["status"] == "active"
    return gid


def resign(client: Any, svc: Any, who: str) -> None:
    send(client, svc, who, "RESIGN")
    send(client, svc, who, "YES")


def test_the_record_between_two_people_after_a_third_game(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, ALICE, "NAME Ana")
    send(client, svc, BOB, "NAME Bo")
    send(client, svc, ALICE, "STATS")
    assert local_messages(svc, ALICE)[-1]["body"] == "No game finished yet: your record starts with the first."
    new_game(client, svc, f"NEW {BOB}")
    resign(client, svc, ALICE)  # Bo 1-0
    new_game(client, svc, "REMATCH")
    resign(client, svc, ALICE)  # Bo 2-0
    before_a, before_b = len(local_messages(svc, ALICE)), len(local_messages(svc, BOB))
    gid = new_game(client, svc, "REMATCH")
    opening_b = " ".join(m["body"] for m in local_messages(svc, BOB)[before_b:] if "New game vs Ana" in m["body"])
    opening_a = " ".join(m["body"] for m in local_messages(svc, ALICE)[before_a:] if "New game vs Bo" in m["body"])
    assert "You lead Ana 2-0." in opening_b and "Bo leads you 2-0." in opening_a, (opening_a, opening_b)
    before_a, before_b = len(local_messages(svc, ALICE)), len(local_messages(svc, BOB))
    resign(client, svc, BOB)  # Bo 2-1
    end_b = " ".join(m["body"] for m in local_messages(svc, BOB)[before_b:])
    end_a = " ".join(m["body"] for m in local_messages(svc, ALICE)[before_a:])
    assert "You resigned." in end_b and "You lead Ana 2-1." in end_b, end_b
    assert "Bo resigned." in end_a and "Bo leads you 2-1." in end_a, end_a
    send(client, svc, ALICE, "GAMES")
    assert "Bo leads you 2-1." in local_messages(svc, ALICE)[-1]["body"]
    send(client, svc, BOB, "STATS")
    stats = local_messages(svc, BOB)[-1]["body"]
    assert stats.startswith("3 games finished, 2 won.") and stats.endswith("You lead Ana 2-1."), stats
    for seat in (0, 1):  # both game pages
        line = "Bo leads you 2-1." if svc.store.meta(gid)[f"seat{seat}"] == ALICE else "You lead Ana 2-1."
        page = client.get(f"/g/{svc.players.ensure_web_token(gid, seat)}").get_data(as_text=True)
        assert line in page, seat


def test_pause_says_how_to_end_it_and_resume_ends_it(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    from service.lifecycle import pauses

    gid = new_game(client, svc, f"NEW {BOB}")
    send(client, svc, ALICE, "VACATION 5")  # not a command: the reply says what to send, and nothing is paused
    said = local_messages(svc, ALICE)[-1]["body"]
    assert said.startswith("No vacation command: PAUSE 5 pauses this game for 5 days") and "RESUME" in said, said
    assert pauses.paused_until(svc.store, gid, svc.store.clock.now_ms()) is None
    send(client, svc, ALICE, "PAUSE 3")
    assert local_messages(svc, ALICE)[-1]["body"].endswith("no reminders, no timeout. RESUME ends it.")
    assert pauses.paused_until(svc.store, gid, svc.store.clock.now_ms()) is not None
    send(client, svc, BOB, "RESUME")
    assert pauses.paused_until(svc.store, gid, svc.store.clock.now_ms()) is None
    assert "The pause of your game vs Ana" in local_messages(svc, BOB)[-1]["body"] or \
        "is over" in local_messages(svc, BOB)[-1]["body"]
    send(client, svc, BOB, "LANG FR")
    send(client, svc, BOB, "PAUSE 2")
    said = local_messages(svc, BOB)[-1]["body"]
    assert said.endswith("REPRENDRE pour l'arrêter.") or said.endswith("REPRENDRE pour l'arreter."), said
    send(client, svc, BOB, "REPRENDRE")
    assert pauses.paused_until(svc.store, gid, svc.store.clock.now_ms()) is None

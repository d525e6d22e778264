"""Reminders through the real beat code and Redis, with a controlled clock (time-machine)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import time_machine

from service.conversation_port import command_text
from service.inbound import handle_inbound
from service.lifecycle import hooks
from spades import bots
from spades.game import view

from .helpers import ALICE, CAROL, inbound, load, local, move, mover, other, send_now, start_game, tick

MONDAY_8_OSLO = datetime(2030, 1, 7, 7, 0, tzinfo=timezone.utc)    # 08:00 in Oslo
MONDAY_11_OSLO = datetime(2030, 1, 7, 10, 0, tzinfo=timezone.utc)  # 11:00 in Oslo


def reminders_to(svc, address):  # type: ignore[no-untyped-def]
    return [m for m in local(svc, address) if m.get("kind") == "reminder"]


def test_a_reminder_after_twelve_hours_repeats_the_prompt(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        prompt = local(svc, p)[-1]["body"]
        clock.shift(timedelta(hours=11, minutes=59))
        assert tick(svc) == []
        clock.shift(timedelta(minutes=1))
        sent = tick(svc)
        assert [m["to"] for m in sent] == [p]
        assert sent[0]["body"].startswith("Påminnelse:")  # Norwegian numbers: Norwegian messages
        assert "DN" in sent[0]["body"] and "DN" in prompt  # the prompt again: the D3 offer (in Norwegian)
        # the next one 24 hours later, then 48 hours after that, then no more
        clock.shift(timedelta(hours=23, minutes=59))
        assert tick(svc) == []
        clock.shift(timedelta(minutes=1))
        assert len(tick(svc)) == 1
        clock.shift(timedelta(hours=48))
        assert len(tick(svc)) == 1
        clock.shift(timedelta(days=5))
        tick(svc)
        assert len(reminders_to(svc, p)) == 3
        assert reminders_to(svc, other(svc, gid, p)) == []


def test_a_games_schedule_holds_one_set_of_items_a_seat_however_many_moves(svc) -> None:  # type: ignore[no-untyped-def]
    """A move adds its turn's items without removing the ended turn's (one ZADD a move): the ``now`` items are one
    member a seat, moved by each new turn, so 40 moves leave a reminder and a timeout a seat, no more; the
    player to move is reminded 12 hours after their turn began, the other not at all."""
    from service.store import due

    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc, rules="ALT")
        for _ in range(40):
            p = mover(svc, gid)
            seat = 0 if svc.store.meta(gid)["seat0"] == p else 1
            move(svc, p, command_text(bots.get("basic", seed=1).choose(view(load(svc, gid), seat))))
            clock.shift(timedelta(minutes=1))
        items = due.pending(svc.redis, gid)
        assert sorted(i.member.split("|", 2)[2] for i, _at in items) == ["0|now", "0|now|1", "1|now", "1|now|1"]
        p = mover(svc, gid)
        clock.shift(timedelta(hours=12))
        sent = tick(svc)
        assert [m["to"] for m in sent] == [p] and sent[0]["kind"] == "reminder"


def test_none_in_quiet_hours_then_sent_when_they_end(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_11_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        clock.shift(timedelta(hours=12))   # 23:00 in Oslo: quiet
        assert tick(svc) == []
        clock.move_to(datetime(2030, 1, 8, 6, 59, tzinfo=timezone.utc))  # 07:59 in Oslo
        assert tick(svc) == []
        clock.move_to(datetime(2030, 1, 8, 7, 0, tzinfo=timezone.utc))   # 08:00 in Oslo
        sent = tick(svc)
        assert [m["to"] for m in sent] == [p] and sent[0]["kind"] == "reminder"
        assert tick(svc) == []  # never twice


def test_quiet_hours_follow_the_players_time_zone_and_tz(svc) -> None:  # type: ignore[no-untyped-def]
    # 03:00 UTC is 22:00 in New York (quiet), 04:00 in Oslo (quiet): an Oslo player who sets TZ to Asia/Tokyo
    # (12:00 there) is reminded at once.
    from .helpers import lifecycle_command

    with time_machine.travel(datetime(2030, 1, 7, 15, 0, tzinfo=timezone.utc), tick=False) as clock:
        gid = start_game(svc, ALICE, CAROL)
        p = mover(svc, gid)
        clock.shift(timedelta(hours=12))  # 03:00 UTC
        assert tick(svc) == []
        lifecycle_command(svc, p, "TZ asia/tokyo")
        assert "Asia/Tokyo" in local(svc, p)[-1]["body"]
        clock.shift(timedelta(minutes=1))
        sent = tick(svc)
        assert [m["to"] for m in sent] == [p]


def test_a_new_time_zone_does_not_send_a_reminder_before_it_is_due(svc) -> None:  # type: ignore[no-untyped-def]
    """TZ decides again only the reminders its quiet hours had put off: the second reminder, due a day after the
    first, is not sent when the player sets a time zone an hour after the first (it was, an SMS a day early)."""
    from .helpers import lifecycle_command

    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        clock.shift(timedelta(hours=12))  # 20:00 in Oslo: the first reminder
        assert [m["kind"] for m in tick(svc)] == ["reminder"]
        clock.shift(timedelta(hours=1))
        lifecycle_command(svc, p, "TZ Europe/Berlin")
        clock.shift(timedelta(minutes=1))
        assert tick(svc) == [] and len(reminders_to(svc, p)) == 1
        clock.shift(timedelta(hours=23))  # the second one at its time, a day after the first (20:01 in Berlin)
        assert [m["kind"] for m in tick(svc)] == ["reminder"] and len(reminders_to(svc, p)) == 2


def test_none_after_the_player_moved(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc, rules="ALT")  # strict alternation (RULES D11): one player owes a move at a time
        p = mover(svc, gid)
        clock.shift(timedelta(hours=1))
        move(svc, p, "DRAW")
        move(svc, p, "K")
        q = mover(svc, gid)
        assert q != p
        clock.shift(timedelta(hours=11))  # 12 h after p's turn began: p has moved, q's turn is 11 h old
        assert tick(svc) == []
        clock.shift(timedelta(hours=1))   # q's 12 h (21:00 in Oslo)
        sent = tick(svc)
        assert [m["to"] for m in sent] == [q]
        assert reminders_to(svc, p) == []


def test_an_item_left_by_an_ended_turn_reminds_of_the_move_owed_now_and_once(svc) -> None:  # type: ignore[no-untyped-def]
    """A turn's first reminder and timeout stand for the turn their seat owes when they fall due (one member a seat,
    moved by each new turn: a move writes one ZADD, no ZREM of the turn that ended). The move is handled but the
    lifecycle hook never runs (a worker died in between), so the new turn's items are never written: 12 hours on
    the player, who still owes a move, is reminded of that move (the card they drew), not of the draw they made,
    and once."""
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc, rules="ALT")  # strict alternation (RULES D11): one player owes a move at a time
        p = mover(svc, gid)
        draw_prompt = local(svc, p)[-1]["body"]
        res = svc.inject(handle_inbound)(inbound(svc, p, "DRAW"), p)
        send_now(svc, res.outbox_ids)
        assert load(svc, gid).version == 3 and mover(svc, gid) == p  # p keeps or discards the card drawn
        prompt = local(svc, p)[-1]["body"]
        clock.shift(timedelta(hours=12))
        sent = tick(svc)
        assert [m["to"] for m in sent] == [p] and sent[0]["kind"] == "reminder"
        assert sent[0]["body"].removeprefix("Påminnelse: ") in prompt and draw_prompt not in sent[0]["body"]
        clock.shift(timedelta(hours=1))
        assert tick(svc) == []  # the next one a day after this one, not at every scan
        assert len(reminders_to(svc, p)) == 1 and reminders_to(svc, other(svc, gid, p)) == []


def test_a_move_handled_again_after_a_worker_died_still_gets_the_next_player_reminded(svc) -> None:  # type: ignore[no-untyped-def]
    """The worker appended the move, then died before it wrote the new turn's reminder: the message's
    task, delivered again, finds the move applied and puts the missing reminder back (once)."""


    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc, rules="ALT")  # strict alternation (RULES D11): one player owes a move at a time
        p = mover(svc, gid)
        mid = inbound(svc, p, "DRAW")
        res = svc.inject(handle_inbound)(mid, p)  # applied; the lifecycle hook never ran
        send_now(svc, res.outbox_ids)
        nxt = mover(svc, gid)
        again = svc.inject(handle_inbound)(mid, p)  # the task delivered again
        assert again.outcome == "duplicate" and load(svc, gid).version == 3
        hooks.after_handled(svc.config, svc.store, svc.games, again.game_id, again.outbox_ids, duplicate=True)
        hooks.after_handled(svc.config, svc.store, svc.games, again.game_id, again.outbox_ids,
                            duplicate=True)  # and once more: no second
        clock.shift(timedelta(hours=12))
        assert [m["to"] for m in tick(svc)] == [nxt]
        assert len(reminders_to(svc, nxt)) == 1


def test_remind_off_and_on(svc) -> None:  # type: ignore[no-untyped-def]
    from .helpers import lifecycle_command

    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        lifecycle_command(svc, p, "REMIND OFF")
        assert local(svc, p)[-1]["kind"] == "setting"
        clock.shift(timedelta(hours=12))
        assert tick(svc) == []
        lifecycle_command(svc, p, "REMIND ON")
        clock.shift(timedelta(hours=24))
        assert [m["to"] for m in tick(svc)] == [p]

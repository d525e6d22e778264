"""bench/cost.py's arithmetic on one short game (issue 24): what it counts is what the game sent and received, and
what it prices is the table's figures (service.prices) times those counts; the time model's templates are exactly
the messages sent more than 24 hours after that player's last message, and its reminders those of the lifecycle
(12 hours into a wait, never in quiet hours, none after the answer)."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from bench.cost import game_costs
from bench.cost_model import DAY_MS, HOUR_MS, NUMBERS, PACES, START, play, schedule, sms_cost, timeline, whatsapp_cost
from chat.gsm import segments
from service import prices

GR = {"sms_out": 0.06, "sms_in": 0.01, "whatsapp_service": 0.001, "whatsapp_utility": 0.1, "whatsapp_marketing": 0.2}
TABLE = prices.parse({"as_of": "test", "currency": "USD", "default": dict.fromkeys(prices.FIELDS, 9.0),
                      "countries": {"GR": GR}, "whatsapp": {"twilio_fee": 0.005}, "email": {"per_message": 0.0}})
ATHENS = ZoneInfo("Europe/Athens")


@pytest.fixture(scope="module")
def games():  # type: ignore[no-untyped-def]
    return play(7, "el", "sms", max_hands=1), play(7, "el", "whatsapp", max_hands=1)


def test_the_sms_game_is_its_segments_at_the_tables_prices(games) -> None:  # type: ignore[no-untyped-def]
    by_sms, _ = games
    out = sum(segments(m.rendered.text) for m in by_sms.messages)
    inn = sum(segments(r.text) for r in by_sms.replies)
    cost = sms_cost(by_sms, NUMBERS["el"], TABLE, schedule(by_sms, "el", PACES["minutes"], NUMBERS["el"]))
    assert (cost.out_messages, cost.out_segments, cost.in_segments) == (len(by_sms.messages), out, inn)
    assert out > len(by_sms.messages) > 40 and len(by_sms.replies) > 40  # a hand: dozens each way, some 2-segment
    assert cost.reminders == 0 and cost.cost == pytest.approx(out * 0.06 + inn * 0.01)


def test_the_same_moves_on_both_channels_and_greek_whatsapp_in_lower_case(games) -> None:  # type: ignore[no-untyped-def]
    by_sms, by_whatsapp = games
    assert by_sms.events == by_whatsapp.events and len(by_sms.replies) == len(by_whatsapp.replies)
    first = by_whatsapp.messages[0].rendered.text
    assert any(ch in first for ch in "άέήίόύώ") and first != first.upper()  # accents, lower case
    assert not any(ch in by_sms.messages[0].rendered.text for ch in "άέήίόύώ")  # the SMS: GSM-7 capitals


def test_answers_within_minutes_need_no_template_and_no_reminder(games) -> None:  # type: ignore[no-untyped-def]
    _, by_whatsapp = games
    sched = schedule(by_whatsapp, "el", PACES["minutes"], NUMBERS["el"])
    cost = whatsapp_cost(by_whatsapp, NUMBERS["el"], TABLE, sched)
    n_out, n_in = len(by_whatsapp.messages), len(by_whatsapp.replies)
    assert (cost.templates, cost.reminders, cost.out_messages, cost.in_messages) == (0, 0, n_out, n_in)
    assert cost.cost == pytest.approx(n_out * (0.005 + 0.001) + n_in * 0.005)


def test_answers_a_day_late_make_templates_past_the_window_and_reminders(games) -> None:  # type: ignore[no-untyped-def]
    _, by_whatsapp = games
    pace = PACES["a day late"]
    sent_at, came_at, answered = timeline(by_whatsapp, pace)
    assert sent_at == sorted(sent_at) and came_at == sorted(came_at)
    assert all(came - sent_at[i] >= DAY_MS for i, came in zip(answered, came_at) if i is not None)
    sched = schedule(by_whatsapp, "el", pace, NUMBERS["el"])
    late = 0
    for s in sched.sends:
        last_in = max([at for r, at in zip(by_whatsapp.replies, came_at) if r.seat == s.seat and at <= s.at],
                      default=0)
        late += s.at - last_in > DAY_MS
    reminders = [s for s in sched.sends if s.reminder]
    assert reminders and all(s.rendered.text.startswith("Υπενθύμιση:") for s in reminders)  # "Reminder:"
    for s in reminders:  # never in the quiet hours, 22:00 to 08:00 in Athens
        local = (START + timedelta(milliseconds=s.at)).astimezone(ATHENS)
        assert 8 <= local.hour < 22 and s.at >= 12 * HOUR_MS
    cost = whatsapp_cost(by_whatsapp, NUMBERS["el"], TABLE, sched)
    assert cost.templates == late > 0 and cost.reminders == len(reminders)
    n_out, n_in = len(sched.sends), len(by_whatsapp.replies)
    assert cost.cost == pytest.approx((n_out - late) * (0.005 + 0.001) + late * (0.005 + 0.1) + n_in * 0.005)
    assert cost.days > 10  # a day an answer


def test_game_costs_prices_the_window_free_too() -> None:
    costs = game_costs(7, "el", TABLE, max_hands=1)
    for pace in PACES:
        with_fee, free = costs.whatsapp[pace], costs.whatsapp_free_window[pace]
        assert with_fee.cost - free.cost == pytest.approx((with_fee.out_messages - with_fee.templates) * 0.001)
        assert costs.sms[pace].reminders == with_fee.reminders  # the same reminders on both channels


def test_a_player_who_looks_once_a_day_draws_a_whole_hand_in_one_sitting_with_the_draw_apart(games) -> None:  # type: ignore[no-untyped-def]
    by_sms, _ = games
    pace = PACES["daily sitting"]
    for apart, longest in ((False, DAY_MS), (True, HOUR_MS)):
        sent_at, came_at, answered = timeline(by_sms, pace, draw_apart=apart)
        draws: dict[int, list[int]] = {0: [], 1: []}
        for reply, at, prompt in zip(by_sms.replies, came_at, answered):
            if prompt is not None and by_sms.messages[prompt].view.phase == "draw":
                draws[reply.seat].append(at)
        spans = [max(at) - min(at) for at in draws.values()]
        assert all(len(at) >= 13 for at in draws.values())
        # in the game's order the simulator's interleaving costs days; apart, each draws in minutes at their hour
        assert (max(spans) < longest) == apart, (apart, spans)
    sched = schedule(by_sms, "el", pace, NUMBERS["el"], draw_apart=True)
    assert sched.days < schedule(by_sms, "el", pace, NUMBERS["el"]).days


# -- the free channels (issue 43): bench/free_channels.py ----------------------------------------------------
@pytest.fixture(scope="module")
def free_games():  # type: ignore[no-untyped-def]
    """A one-hand game in every language, priced with the service's own table (every country's prices)."""
    from bench.free_channels import game

    return [game(7, lang, prices.load(), max_hands=1) for lang in NUMBERS]


def test_both_players_on_telegram_or_the_page_pay_nothing_in_every_country_and_pace(free_games) -> None:  # type: ignore[no-untyped-def]
    for g in free_games:
        for pace in PACES:
            sms = g.costs["SMS / SMS"][pace]
            for both in ("Telegram / Telegram", "page+push / page+push"):
                free = g.costs[both][pace]
                assert f"{free.cost:.2f}" == "0.00", (g.lang, pace, both)
                # the same messages and reminders went as by SMS: nothing left out to make it free
                assert (free.out_messages, free.in_messages, free.reminders) == (
                    sms.out_messages, sms.in_messages, sms.reminders)
                assert free.out_messages > 40 and sms.cost > 0.5


def test_a_mixed_game_costs_the_sms_players_messages_alone_less_than_all_sms(free_games) -> None:  # type: ignore[no-untyped-def]
    from bench.free_channels import paired_cost

    table = prices.load()
    for g in free_games:
        by_sms = play(7, g.lang, "sms", max_hands=1)
        country = prices.country_of(NUMBERS[g.lang][1])
        for pace_name, pace in PACES.items():
            sched = schedule(by_sms, g.lang, pace, NUMBERS[g.lang])
            seat1 = (sum(table.sms_out(country, segments(s.rendered.text)) for s in sched.sends if s.seat == 1)
                     + sum(table.sms_in(country, segments(r.text)) for r in by_sms.replies if r.seat == 1))
            for mixed in ("Telegram / SMS", "page+push / SMS"):
                cost = g.costs[mixed][pace_name].cost
                assert cost == pytest.approx(seat1) and 0 < cost < g.costs["SMS / SMS"][pace_name].cost
            assert paired_cost(by_sms, NUMBERS[g.lang], table, sched, ("sms", "sms")).cost == pytest.approx(
                sms_cost(by_sms, NUMBERS[g.lang], table, sched).cost)  # the reference is bench/cost.py's SMS game


def test_on_telegram_every_move_is_one_tap_and_no_more_messages_than_by_sms(free_games) -> None:  # type: ignore[no-untyped-def]
    for g in free_games:
        t = g.taps
        assert t.decisions > 40 and t.one_tap == t.on_keyboard == t.decisions, g.lang
        assert t.messages <= t.sms_messages and t.api_calls == t.messages + 2 * t.one_tap

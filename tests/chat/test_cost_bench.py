"""bench/cost.py's arithmetic on one short game (issue 24): what it counts is what the game sent and received, and
what it prices is the table's figures (service.prices) times those counts; the time model's templates are exactly
the messages sent more than 24 hours after that player's last message."""

from __future__ import annotations

import pytest

from bench.cost import DAY_MS, NUMBERS, PACES, game_costs, play, sms_cost, timeline, whatsapp_cost
from chat.gsm import segments
from service import prices

GR = {"sms_out": 0.06, "sms_in": 0.01, "whatsapp_service": 0.001, "whatsapp_utility": 0.1, "whatsapp_marketing": 0.2}
TABLE = prices.parse({"as_of": "test", "currency": "USD", "default": dict.fromkeys(prices.FIELDS, 9.0),
                      "countries": {"GR": GR}, "whatsapp": {"twilio_fee": 0.005}, "email": {"per_message": 0.0}})


@pytest.fixture(scope="module")
def games():  # type: ignore[no-untyped-def]
    return play(7, "el", "sms", max_hands=1), play(7, "el", "whatsapp", max_hands=1)


def test_the_sms_game_is_its_segments_at_the_tables_prices(games) -> None:  # type: ignore[no-untyped-def]
    by_sms, _ = games
    out = sum(segments(m.rendered.text) for m in by_sms.messages)
    inn = sum(segments(r.text) for r in by_sms.replies)
    cost = sms_cost(by_sms, NUMBERS["el"], TABLE)
    assert (cost.out_messages, cost.out_segments, cost.in_segments) == (len(by_sms.messages), out, inn)
    assert out > len(by_sms.messages) > 40 and len(by_sms.replies) > 40  # a hand: dozens each way, some 2-segment
    assert cost.cost == pytest.approx(out * 0.06 + inn * 0.01)


def test_the_same_moves_on_both_channels_and_greek_whatsapp_in_lower_case(games) -> None:  # type: ignore[no-untyped-def]
    by_sms, by_whatsapp = games
    assert by_sms.events == by_whatsapp.events and len(by_sms.replies) == len(by_whatsapp.replies)
    first = by_whatsapp.messages[0].rendered.text
    assert any(ch in first for ch in "άέήίόύώ") and first != first.upper()  # accents, lower case
    assert not any(ch in by_sms.messages[0].rendered.text for ch in "άέήίόύώ")  # the SMS: GSM-7 capitals


def test_answers_within_minutes_need_no_template(games) -> None:  # type: ignore[no-untyped-def]
    _, by_whatsapp = games
    cost = whatsapp_cost(by_whatsapp, NUMBERS["el"], TABLE, PACES["minutes"])
    n_out, n_in = len(by_whatsapp.messages), len(by_whatsapp.replies)
    assert (cost.templates, cost.out_messages, cost.in_messages) == (0, n_out, n_in)
    assert cost.cost == pytest.approx(n_out * (0.005 + 0.001) + n_in * 0.005)


def test_answers_a_day_late_make_templates_of_the_prompts_past_the_window(games) -> None:  # type: ignore[no-untyped-def]
    _, by_whatsapp = games
    pace = PACES["a day late"]
    sent_at, came_at = timeline(by_whatsapp, pace)
    assert sent_at == sorted(sent_at) and came_at == sorted(came_at)
    last_in, late = [0, 0], 0
    replies = list(zip(by_whatsapp.replies, came_at))
    for i, (m, at) in enumerate(zip(by_whatsapp.messages, sent_at)):
        for rep, t in replies:
            if rep.after <= i:
                last_in[rep.seat] = max(last_in[rep.seat], t)
        late += at - last_in[m.seat] > DAY_MS
    cost = whatsapp_cost(by_whatsapp, NUMBERS["el"], TABLE, pace)
    assert cost.templates == late > 0
    n_out, n_in = len(by_whatsapp.messages), len(by_whatsapp.replies)
    assert cost.cost == pytest.approx((n_out - late) * (0.005 + 0.001) + late * (0.005 + 0.1) + n_in * 0.005)
    assert cost.days > 10  # a day an answer


def test_game_costs_prices_the_window_free_too() -> None:
    costs = game_costs(7, "el", TABLE, max_hands=1)
    for pace in PACES:
        with_fee, free = costs.whatsapp[pace], costs.whatsapp_free_window[pace]
        assert with_fee.cost - free.cost == pytest.approx((with_fee.out_messages - with_fee.templates) * 0.001)

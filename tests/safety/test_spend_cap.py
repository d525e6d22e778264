"""The daily spend (issue 24): every SMS and WhatsApp message sent counts at its price in the price table
(service.prices: an SMS by its segments and its country), and the money cap (SLOWSPADES_DAILY_SPEND_CAP) does
what the message cap does: past it only players of games between people get messages, invitations wait for the
next day, the operator is told once. Real Redis, the real handlers and delivery."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from chat.gsm import segments
from service import daily_cap, limits, prices
from service.delivery import deliver
from service.metrics import ServiceState
from tests.lifecycle.helpers import lifecycle_command, local, move, start_game

A, B = "+4791234567", "+4798765432"  # Norway: 0.055 a segment out in the packaged table
GREEK = "+306912345678"


def spent(svc) -> float:  # type: ignore[no-untyped-def]
    return svc.store.sent_today(limits.day())[1] / prices.MICROS


def test_every_sms_sent_counts_at_its_price_by_segments_and_country(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["DAILY_SPEND_CAP"] = 1000.0
    start_game(svc, A, B)
    before, game_spend = len(local(svc)), spent(svc)
    lifecycle_command(svc, GREEK, "HELP")  # a stranger's HELP: one SMS to Greece
    sent = local(svc)
    table = prices.load()
    expected = sum(table.of("NO" if m["to"] in (A, B) else "GR")["sms_out"] * segments(m["body"]) for m in sent)
    assert spent(svc) == pytest.approx(expected, abs=1e-6)
    [help_sms] = sent[before:]
    assert spent(svc) - game_spend == pytest.approx(0.056 * segments(help_sms["body"]), abs=1e-6)  # Greece
    assert svc.store.sent_today(limits.day())[0] == len(sent)  # and each one counted once as a message


def test_past_the_money_cap_only_players_in_a_game_get_texts(svc, caplog) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, A, B)
    svc.config["DAILY_SPEND_CAP"] = 2.0
    svc.store.count_sent(limits.day(), 0, prices.to_micros(2.0))  # the day's money just spent, in no more messages
    with caplog.at_level(logging.WARNING, logger="service.daily_cap"):
        out = lifecycle_command(svc, A, "NEW +4791000009")  # an invitation, over the money cap
        assert out.outcome == "invite_held"  # it waits for the next day, as under the message cap
        assert local(svc, "+4791000009") == []
        lifecycle_command(svc, GREEK, "HELP")
        assert local(svc, GREEK) == []  # a stranger: held
        res = move(svc, A, "DRAW")  # a move in the game still goes out
    for e in svc.store.outbox_entries(f"g:{gid}")[-len(res.outbox_ids):]:
        assert e["status"] == "sent"
    assert sum("SMS daily cap reached" in r.getMessage() for r in caplog.records) == 1  # told once
    assert "CAP REACHED" in daily_cap.status_line(svc.config,
                                                  svc.store) and "of 2.00 USD" in daily_cap.status_line(svc.config,
                                                                                                        svc.store)


def test_the_money_cap_keeps_the_reserve_for_games_between_people(svc) -> None:  # type: ignore[no-untyped-def]
    start_game(svc, A, B)
    svc.config.update(DAILY_SPEND_CAP=10.0, SMS_CAP_RESERVE=20)
    svc.store.count_sent(limits.day(), 0, prices.to_micros(7.9))  # under the 80 % others may use
    lifecycle_command(svc, GREEK, "HELP")
    assert len(local(svc, GREEK)) == 1
    svc.store.count_sent(limits.day(), 0, prices.to_micros(0.2))  # past it (8.0 and the HELP's price)
    lifecycle_command(svc, GREEK, "HELP")
    assert len(local(svc, GREEK)) == 1  # held
    before = len(local(svc))
    move(svc, A, "DRAW")
    assert len(local(svc)) > before  # the game goes on


def test_the_worker_one_by_one_holds_at_the_money_cap(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["DAILY_SPEND_CAP"] = 0.05
    [oid] = svc.store.append("p:+4791000123", -1, message_id="m", outbox=[
        {"channel": "sms", "to": "+4791000123", "body": "hello", "kind": "help"}]).outbox_ids
    assert svc.inject(deliver)(oid) == "failed"  # 0.055 is past 0.05
    assert svc.store.outbox_entry(oid)["error"] == daily_cap.CAPPED_ERROR


def test_the_operators_own_price_file(svc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    own = tmp_path / "prices.toml"
    own.write_text(prices.DEFAULT_FILE.read_text(encoding="utf-8").replace(
        "[countries.GR]\nsms_out = 0.056", "[countries.GR]\nsms_out = 0.25"), encoding="utf-8")
    svc.config.update(PRICES_FILE=str(own), DAILY_SPEND_CAP=100.0)
    lifecycle_command(svc, GREEK, "HELP")
    [sms] = local(svc, GREEK)
    assert spent(svc) == pytest.approx(0.25 * segments(sms["body"]))


def test_the_spend_gauges(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(DAILY_SPEND_CAP=50.0, SMS_DAILY_CAP=100)
    svc.store.count_sent(limits.day(), 3, prices.to_micros(1.234567))
    gauges = {m.name: m.samples[0].value for m in svc.inject(ServiceState)(celery=None).collect() if m.samples}
    assert gauges["slowspades_sms_today_spend"] == pytest.approx(1.234567)
    assert gauges["slowspades_sms_daily_cap_spend"] == 50.0 and gauges["slowspades_sms_today_messages"] == 3


def test_prices_of_whatsapp_and_email_and_the_country_of_a_number() -> None:
    table = prices.load()
    assert prices.country_of("whatsapp:+306912345678") == "GR" and prices.country_of("+15551230001") == "US"
    assert prices.country_of("+18762101234") == "JM"  # behind +1 but not the US
    assert table.of("JM") == table.of("default")
    free_form = {"channel": "whatsapp", "to": "whatsapp:+306912345678", "body": "ναι " * 600}  # 2,400 characters
    assert table.entry(free_form) == pytest.approx(2 * (0.005 + 0.0212))  # two messages past Twilio's 1,600
    template = {"channel": "whatsapp", "to": "whatsapp:+306912345678", "body": "", "content_sid": "HX1"}
    assert table.entry(template) == pytest.approx(0.005 + 0.0212)
    assert table.entry({**template, "template_category": "marketing"}) == pytest.approx(0.005 + 0.0860)
    assert table.entry({"channel": "email", "to": "a@example.org", "body": "x"}) == table.email


def test_a_price_file_that_does_not_read_is_refused_at_start(tmp_path: Path) -> None:
    from service.config import load_config

    bad = tmp_path / "prices.toml"
    bad.write_text(prices.DEFAULT_FILE.read_text(encoding="utf-8").replace(
        "[countries.FR]\nsms_out = 0.072", '[countries.FR]\nsms_out = "cheap"'), encoding="utf-8")
    for path, why in ((bad, "countries.FR.sms_out"), (tmp_path / "none.toml", "No such file")):
        with pytest.raises(prices.PriceTableError, match=why):
            load_config({"SLOWSPADES_PRICES_FILE": str(path)})
    assert load_config({}) and prices.load().as_of  # the packaged table reads


def test_whatsapp_messages_count_at_their_price_and_one_never_sent_does_not(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config["DAILY_SPEND_CAP"] = 100.0
    to = "whatsapp:+306912345678"
    free_form = {"channel": "whatsapp", "to": to, "body": "Γύρος 1", "kind": "turn"}
    template = {"channel": "whatsapp", "to": to, "body": "Γύρος 1", "kind": "turn", "content_sid": "HX1"}
    closed = {"channel": "whatsapp", "to": to, "body": "Γύρος 1", "kind": "turn", "window": "closed"}
    email = {"channel": "email", "to": "dana@example.org", "body": "x", "kind": "turn"}
    go, held = daily_cap.split_sms(svc.config, svc.store, [free_form, template, closed, email])
    assert len(go) == 4 and held == []  # under the caps: all go on (the closed one is refused by delivery)
    count, micros, _ = svc.store.sent_today(limits.day())
    assert micros == prices.to_micros(2 * (0.005 + 0.0212))  # Twilio's fee and Meta's, Greece
    assert count == 0  # the message cap counts SMS only


def test_past_the_money_cap_whatsapp_to_a_stranger_is_held_too(svc) -> None:  # type: ignore[no-untyped-def]
    svc.config.update(DAILY_SPEND_CAP=1.0, SMS_CAP_RESERVE=0)
    svc.store.count_sent(limits.day(), 0, prices.to_micros(1.0))
    stranger = {"channel": "whatsapp", "to": "whatsapp:+306912345699", "body": "x", "kind": "help"}
    go, held = daily_cap.split_sms(svc.config, svc.store, [stranger])
    assert go == [] and held == [(stranger, daily_cap.CAPPED_ERROR)]
    assert daily_cap.invitation_held_until(svc.config, svc.store, "whatsapp:+306912345698", time.time()) is not None
    svc.config.update(DAILY_SPEND_CAP=0.0)
    assert daily_cap.invitation_held_until(svc.config, svc.store, "whatsapp:+306912345698", time.time()) is None

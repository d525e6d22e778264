"""``/metrics``: behind its token, and after a whole game (an SMS player against an email player) it shows the
counts that game implies: its moves and its one illegal move, every message its players received, its webhooks,
its invitation, and no entry left unsent."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.backends import BOTH

from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .mixed_game import EMAIL_PLAYER, SMS_PLAYER, play_mixed_game

TOKEN = "scrape-me"


def scrape(client: Any, token: str = TOKEN) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    resp = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200, resp.status_code
    assert resp.content_type.startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(resp.get_data(as_text=True)):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def total(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))


def test_metrics_answers_only_with_its_token(app, client) -> None:  # type: ignore[no-untyped-def]
    app.config["METRICS_TOKEN"] = ""
    assert client.get("/metrics").status_code == 404  # no token set: no endpoint
    app.config["METRICS_TOKEN"] = TOKEN
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    samples = scrape(client)
    assert total(samples, "slowspades_outbox_unsent_entries") == 0
    assert total(samples, "slowspades_games", status="active") == 0


def test_mailgun_events_and_the_game_page_are_measured_without_their_tokens(app, client) -> None:  # type: ignore[no-untyped-def]
    """``/email/events`` and the page's moves and polls count as the other webhooks do, by channel and outcome, with
    their answer times; the page token in their paths is no label."""
    app.config["METRICS_TOKEN"] = TOKEN
    before = scrape(client)
    token = "0123456789abcdef" * 2  # no such page
    assert client.post("/email/events", json={"signature": {}, "event-data": {}}).status_code < 500
    assert client.get(f"/g/{token}/poll").status_code == 404
    assert client.post(f"/g/{token}/move", data={"move": "2C"}).status_code == 404
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    for channel in ("email_events", "page_poll", "page_move"):
        assert delta("slowspades_webhook_requests_total", channel=channel, outcome="rejected") == 1, channel
        assert delta("slowspades_webhook_duration_seconds_count", channel=channel) == 1, channel
    assert token not in "".join(str(key) for key in after)


@BOTH
def test_the_state_read_at_a_scrape_on_either_store(app, client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    """The gauges read from Redis (games by status, the outbox's backlog, the day's SMS), on one Redis and on a
    Redis Cluster (their reads span every shard)."""
    app.config["METRICS_TOKEN"] = TOKEN
    state = app.extensions["slowspades_state"]
    state.games_every = 0.0
    try:
        resp, mid = post_sms(client, SMS_PLAYER, "NEW +15557770002")
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        samples = scrape(client)
    finally:
        state.games_every = 60.0
    assert total(samples, "slowspades_games", status="invited") == 1
    assert total(samples, "slowspades_games", status="active") == 0
    assert total(samples, "slowspades_outbox_unsent_entries") == 0
    assert total(samples, "slowspades_sms_daily_cap_messages") == app.config["SMS_DAILY_CAP"]
    assert total(samples, "slowspades_state_read_errors") == 0


@pytest.mark.slow
def test_metrics_after_a_played_game_show_what_it_implies(app, client, svc, smtp_server, celery_worker) -> None:  # type: ignore[no-untyped-def]
    app.config["METRICS_TOKEN"] = TOKEN
    state = app.extensions["slowspades_state"]
    state.games_every = 0.0  # the games by status read at every scrape (a minute apart otherwise)
    try:
        before = scrape(client)
        played = play_mixed_game(client, svc, smtp_server)
        after = scrape(client)
    finally:
        state.games_every = 60.0

    def delta(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert delta("slowspades_moves_applied_total", mover="player") == played.moves
    assert delta("slowspades_moves_refused_total", mover="player", reason="card_not_in_hand") == played.illegal == 1
    sms = len(local_messages(svc, SMS_PLAYER))
    mails = len([m for _f, rcpts, m in smtp_server.messages if EMAIL_PLAYER in rcpts])
    assert sms > played.posted["sms"] // 2 and mails > played.posted["email"] // 2
    assert delta("slowspades_outbox_entries_total", channel="sms", outcome="sent") == sms
    assert delta("slowspades_outbox_entries_total", channel="email", outcome="sent", code="smtp") == mails
    assert delta("slowspades_outbox_entries_total", outcome="failed") == 0
    assert delta("slowspades_webhook_requests_total", channel="sms", outcome="accepted") == played.posted["sms"]
    assert delta("slowspades_webhook_requests_total", channel="email", outcome="accepted") == played.posted["email"]
    assert delta("slowspades_webhook_duration_seconds_count", channel="sms") == played.posted["sms"]
    assert delta("slowspades_inbound_messages_total") == played.posted["sms"] + played.posted["email"]
    assert delta("slowspades_inbound_messages_total", outcome="illegal") == 1
    assert delta("slowspades_invitations_total", outcome="invited") == 1
    assert delta("slowspades_invitations_total", outcome="started") == 1
    assert total(after, "slowspades_games", status="over") == 1 and total(after, "slowspades_games", status="active") == 0
    assert total(after, "slowspades_outbox_unsent_entries") == 0
    assert total(after, "slowspades_outbox_oldest_unsent_age_seconds") == 0
    assert total(after, "slowspades_task_queue_messages") == 0
    for (name, labels), _v in after.items():  # no address, game id or message id in any label
        for _k, value in labels:
            assert played.game_id not in value and "@" not in value and "+1555" not in value, (name, labels)

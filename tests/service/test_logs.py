"""The logs of a whole game between an SMS player and an email player: every line one JSON object, no phone number
or email address in clear anywhere (the service's lines, Celery's, the web's, at DEBUG level), each player named by
the same keyed hash in every line, and the lines about a message or an outbox entry carrying its game."""

from __future__ import annotations

import io
import json
import logging
from typing import Iterator

import pytest

from service import logs

from .mixed_game import EMAIL_PLAYER, SMS_PLAYER, play_mixed_game


@pytest.fixture()
def log_lines() -> Iterator[io.StringIO]:
    """Every record of every logger, DEBUG and up, formatted as the service formats its lines."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield out
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_scrub_hides_every_form_of_an_address() -> None:
    key = b"k"
    line = "to +15557770001, %2B15557770001, Ana.Lovelace@Example.org, ana.lovelace%40example.org; p:+15557770001#3"
    scrubbed = logs.scrub(line, key)
    assert "5557770001" not in scrubbed and "lovelace" not in scrubbed.lower()
    assert scrubbed.count(logs.pseudonym("+15557770001", key)) == 3  # the same hash, however it was written
    assert scrubbed.count(logs.pseudonym("ana.lovelace@example.org", key)) == 2
    assert logs.pseudonym("+15557770001", key) != logs.pseudonym("+15557770001", b"another key")
    # what is not an address stays: times, stream ids, a broker URL's masked password
    kept = "2026-12-02T12:50:27+00:00 1733140000000-0 redis://:**@127.0.0.1:6379/0"
    assert logs.scrub(kept, key) == kept


@pytest.mark.slow
def test_a_whole_game_logs_no_address_in_clear(client, svc, smtp_server, celery_worker, log_lines) -> None:  # type: ignore[no-untyped-def]
    played = play_mixed_game(client, svc, smtp_server)
    lines = log_lines.getvalue().splitlines()
    assert len(lines) > 2 * played.moves
    docs = [json.loads(line) for line in lines]  # every line one JSON object
    for line in lines:
        assert "5557770001" not in line and "lovelace" not in line.lower(), line
    sms_player, email_player = logs.pseudonym(SMS_PLAYER), logs.pseudonym(EMAIL_PLAYER)
    handled = [d for d in docs if d["msg"] == "inbound handled"]
    assert len(handled) == sum(played.posted.values())
    assert all(d["game"] == played.game_id and d["message"] for d in handled)
    assert {d["player"] for d in handled} == {sms_player, email_player}  # one hash per player, in every line
    assert sum(d["outcome"] == "illegal" for d in handled) == played.illegal
    recorded = [d for d in docs if d["msg"] == "inbound recorded"]
    assert {d["message"] for d in recorded} == {d["message"] for d in handled}
    sent = [d for d in docs if d["msg"] == "outbox sent"]
    of_game = [d for d in sent if d["outbox"].startswith("g:")]
    assert len(of_game) > played.moves // 2
    assert all(d["game"] == played.game_id and d["outbox"].startswith(f"g:{played.game_id}#") for d in of_game)
    # a reply tied to no game is its player's: the owner in the outbox id is their hash too
    assert all(d["outbox"].startswith(("p:" + sms_player + "#", "p:" + email_player + "#")) for d in sent
               if d not in of_game)
    assert {d["player"] for d in sent} == {sms_player, email_player}
    assert {d["channel"] for d in sent} == {"sms", "email"}

"""``slowspades players export ADDRESS``: everything held about a player, as JSON (GDPR article 15): their settings,
each game with the events as they may know them and their own moves, the messages sent to them, and every key of
their own in Redis; never the other player's hidden cards."""

from __future__ import annotations

import json

from service import logs
from tests.backends import BOTH

from .conftest import ANN, BOB, Played

pytestmark = BOTH


def test_players_export_prints_what_is_held_about_a_player(played: Played) -> None:
    ab, ca = played.games["ann-bob"], played.games["carol-ann"]
    res = played.cli("players", "export", "+1 555 000 1001")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["address"] == ANN and data["channel"] == "sms"
    assert data["record"].get("lang") and data["log_pseudonym"] == logs.pseudonym(ANN)
    games = {g["id"]: g for g in data["games"]}
    assert set(games) == {ab, ca}
    mine = games[ab]
    seat = mine["seat"]
    assert mine["status"] == "active" and mine["opponent"] == BOB
    assert mine["events"]
    own = [se.event for se in played.svc.store.load(ab) if se.event.get("seat") == seat]
    assert len(mine["your_moves"]) == len(own)  # her draws, bids and cards (12 moves were played in all)
    assert all(m["event"]["seat"] == seat for m in mine["your_moves"])
    for row in mine["events"]:  # what she may know: no deck, not the other player's draws
        event = row["event"]
        assert "deck" not in event
        if event["type"] == "draw_decided" and event["seat"] != seat:
            assert "kept" not in event
    assert mine["messages_to_you"] and all(m["text"] for m in mine["messages_to_you"])
    sent_to_ann = {e["body"] for e in played.svc.store.outbox_entries(f"g:{ab}") if e["to"] == ANN}
    assert {m["text"] for m in mine["messages_to_you"]} == sent_to_ann
    stored = data["stored"]
    assert stored[f"{{p:{ANN}}}:player"]["type"] == "hash"
    assert all(key.startswith(f"{{p:{ANN}}}:") for key in stored)
    bob = json.loads(played.cli("players", "export", BOB).output)
    theirs = {g["id"]: g for g in bob["games"]}[ab]
    assert theirs["seat"] == 1 - seat and len(mine["your_moves"]) + len(theirs["your_moves"]) >= 12
    assert played.cli("players", "export", "nobody@example.com").exit_code == 2

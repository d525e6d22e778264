"""The operator's ``slowspades`` commands against a real Redis holding games played through the webhooks."""

from __future__ import annotations

import json

from spades.cards import Card
from spades.events import CardPlayed, to_dict
from spades.game import view
from tests.backends import BOTH

from .conftest import ANN, BOB, CAROL, Played

pytestmark = BOTH


def test_games_list_shows_state_players_turn_and_activity(played: Played) -> None:
    ab, ca = played.games["ann-bob"], played.games["carol-ann"]
    res = played.cli("games", "list", "--json")
    assert res.exit_code == 0, res.output
    rows = {g["id"]: g for g in json.loads(res.output)["games"]}
    assert set(rows) == {ab, ca}
    game = played.game(ab)
    meta = played.svc.store.meta(ab)
    assert rows[ab]["status"] == "active" and sorted(rows[ab]["players"]) == [ANN, BOB]
    # who owes a move: both during a simultaneous draw (RULES D11)
    assert rows[ab]["movers"] == [meta[f"seat{s}"] for s in game.movers]
    assert rows[ab]["to_move"] == " & ".join(meta[f"seat{s}"] for s in game.movers)
    assert rows[ab]["version"] == game.version
    assert rows[ca]["status"] == "invited" and rows[ca]["to_move"] == ANN
    assert rows[ab]["last_activity_ms"] >= rows[ab]["last_activity_ms"] - 1 and rows[ab]["last_activity"] != "-"

    text = played.cli("games", "list").output
    assert ab in text and ca in text and "active" in text and "invited" in text
    only = json.loads(played.cli("games", "list", "--status", "invited", "--json").output)["games"]
    assert [g["id"] for g in only] == [ca]
    bobs = json.loads(played.cli("games", "list", "--player", "+1 (555) 000-1002", "--json").output)["games"]
    assert [g["id"] for g in bobs] == [ab]


def test_games_show_is_what_the_player_sees_and_nothing_more(played: Played) -> None:
    ab = played.games["ann-bob"]
    game = played.game(ab)
    meta = played.svc.store.meta(ab)
    for seat in (0, 1):
        address = meta[f"seat{seat}"]
        res = played.cli("games", "show", ab, "--as", address, "--json")
        assert res.exit_code == 0, res.output
        data = json.loads(res.output)
        mine = [c.code for c in view(game, seat).hand]
        theirs = {c.code for c in game.hands[1 - seat]}
        assert data["view"]["hand"] == mine
        assert not theirs & set(data["view"]["hand"])
        assert data["view"]["my_turn"] == game.may_move(seat)
        sent = [e for e in played.svc.store.outbox_entries(f"g:{ab}") if e["to"] == address]
        assert data["last_message"]["body"] == sent[-1]["body"]
        text = played.cli("games", "show", ab, "--as", address).output
        assert data["rendered"]["text"] in text and sent[-1]["body"] in text
        # not one of the opponent's hidden cards is in what the player is shown
        words = set(data["rendered"]["text"].replace(".", " ").replace(",", " ").split())
        assert not theirs & words


def test_games_show_refuses_a_stranger_and_an_unknown_game(played: Played) -> None:
    res = played.cli("games", "show", played.games["ann-bob"], "--as", CAROL)
    assert res.exit_code == 2 and "does not play" in res.output
    assert played.cli("games", "show", "nosuchgame", "--as", ANN).exit_code == 2


def test_games_events_lists_every_event_with_its_cause(played: Played) -> None:
    ab = played.games["ann-bob"]
    data = json.loads(played.cli("games", "events", ab, "--json").output)
    events = data["events"]
    assert len(events) == played.svc.store.version(ab)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["event"]["type"] == "game_started" and events[1]["event"]["type"] == "hand_started"
    causes = [e["message_id"] for e in events if e["message_id"]]
    assert causes and all(c.startswith("sms:") for c in causes)
    seats = [played.svc.store.meta(ab)[f"seat{s}"] for s in (0, 1)]
    assert all(any(played.svc.store.inbound(a, c) is not None for a in seats) for c in causes)
    text = played.cli("games", "events", ab).output
    assert "draw_decided" in text and "game_started" in text


def test_games_verify_passes_a_real_game_and_catches_a_tampered_one(played: Played) -> None:
    ab = played.games["ann-bob"]
    res = played.cli("games", "verify", ab)
    assert res.exit_code == 0, res.output
    assert "OK" in res.output
    assert played.cli("games", "verify", "--all").exit_code == 0

    # someone writes an event no rule allows: the player not to move plays a card they do not hold
    game = played.game(ab)
    wrong = 1 - (game.movers[0] or 0)
    held = {c for s in (0, 1) for c in game.hands[s]}
    missing = next(c for c in (Card.from_code(x) for x in ("AS", "KS", "QS", "JS", "2C", "3C", "4C")) if c not in held)
    version = played.svc.store.version(ab)
    played.svc.store.append(f"g:{ab}", version, [to_dict(CardPlayed(seat=wrong, card=missing))],
                            message_id="sms:forged")
    res = played.cli("games", "verify", ab, "--json")
    assert res.exit_code == 1
    report = json.loads(res.output)
    assert report["ok"] is False
    assert f"event {version + 1}" in report["games"][0]["problems"][0]
    assert played.cli("games", "verify", "--all").exit_code == 1
    assert played.cli("games", "verify", "nosuchgame").exit_code == 2


def test_outbox_list_and_resend_a_failed_message(played: Played) -> None:
    ab = played.games["ann-bob"]
    entries = played.svc.store.outbox_entries(f"g:{ab}")
    victim = entries[-1]
    # the provider refused it for good: the operator sees it and sends it again
    played.svc.store.set_status(victim["id"], "failed", error="provider said no")
    failed = json.loads(played.cli("outbox", "list", "--status", "failed", "--json").output)["entries"]
    assert [e["id"] for e in failed] == [victim["id"]]
    assert failed[0]["error"] == "provider said no"
    text = played.cli("outbox", "list").output
    assert victim["id"] in text and "failed" in text
    to_bob = json.loads(played.cli("outbox", "list", "--to", BOB, "--limit", "500", "--json").output)["entries"]
    assert to_bob and all(e["to"] == BOB for e in to_bob)

    local_before = [m for _i, m in played.svc.store.read_local(count=10_000)]
    res = played.cli("outbox", "resend", victim["id"], "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert (out["was"], out["status"]) == ("failed", "sent")
    local_after = [m for _i, m in played.svc.store.read_local(count=10_000)]
    assert len(local_after) == len(local_before) + 1
    assert local_after[-1]["body"] == victim["body"] and local_after[-1]["to"] == victim["to"]
    assert played.svc.store.outbox_entry(victim["id"])["status"] == "sent"
    assert played.cli("outbox", "resend", f"g:{ab}#9999").exit_code == 2


def test_outbox_list_shows_the_receipts_codes_and_unreachable_recipients(played: Played) -> None:
    ab = played.games["ann-bob"]
    to_bob = [e for e in played.svc.store.outbox_entries(f"g:{ab}") if e["to"] == BOB]
    delivered, failed = to_bob[-2]["id"], to_bob[-1]["id"]
    played.svc.store.record_receipt(delivered, "delivered", "SMd")
    played.svc.store.record_receipt(failed, "failed", "SMf", "twilio error 30005")
    played.svc.reach.mark_unreachable(BOB, "30005", 0)
    rows = {e["id"]: e for e in json.loads(played.cli("outbox", "list", "--to", BOB, "--json").output)["entries"]}
    assert (rows[delivered]["status"], rows[delivered]["code"]) == ("delivered", "")
    assert (rows[failed]["status"], rows[failed]["code"], rows[failed]["unreachable"]) == ("failed", "30005", "30005")
    line = next(x for x in played.cli("outbox", "list", "--status", "failed").output.splitlines() if failed in x)
    assert line.split()[1:3] == ["failed", "30005"] and line.endswith("(unreachable: 30005)")
    shown = json.loads(played.cli("players", "show", BOB, "--json").output)
    assert shown["unreachable"] == {"code": "30005", "since_ms": 0}
    assert "unreachable: 30005 since" in played.cli("players", "show", BOB).output


def test_players_show_lists_a_players_games_and_turns(played: Played) -> None:
    ab, ca = played.games["ann-bob"], played.games["carol-ann"]
    res = played.cli("players", "show", "+1 555 000 1001", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["address"] == ANN and data["channel"] == "sms"
    games = {g["id"]: g for g in data["games"]}
    assert set(games) == {ab, ca}
    assert games[ca]["opponent"] == CAROL and games[ca]["your_turn"] is True
    game = played.game(ab)
    meta = played.svc.store.meta(ab)
    assert games[ab]["your_turn"] == any(meta[f"seat{s}"] == ANN for s in game.movers)
    text = played.cli("players", "show", ANN).output
    assert ab in text and CAROL in text
    assert played.cli("players", "show", "nobody@example.com").exit_code == 2


def test_existing_engine_commands_are_still_there(played: Played) -> None:
    from click.testing import CliRunner

    from service.cli import main

    out = CliRunner().invoke(main, ["--help"]).output
    for name in ("arena", "replay", "games", "outbox", "players"):
        assert name in out


def test_games_show_names_the_opponent_and_the_lists_name_their_redis(played: Played) -> None:
    """Issue 14 case 11: ``games show --as`` named the opponent ``?``; the operator could not tell which Redis
    an empty outbox came from."""
    ab = played.games["ann-bob"]
    meta = played.svc.store.meta(ab)
    for _ in range(30):  # on until one player waits (in a simultaneous draw, RULES D11, both may move)
        waiting = [seat for seat in (0, 1) if seat not in played.game(ab).movers]
        if waiting:
            break
        played.play(ab, 1)
    assert waiting, "the played game has a player waiting"
    for seat in waiting:  # "<opponent> to move."
        data = json.loads(played.cli("games", "show", ab, "--as", meta[f"seat{seat}"], "--json").output)
        opp = "+1..1002" if meta[f"seat{1 - seat}"] == BOB else "+1..1001"
        assert f"{opp} to move." in data["rendered"]["text"], data["rendered"]
    port = played.redis_url.rsplit(":", 1)[1].split("/")[0]
    for cmd in (("games", "list"), ("outbox", "list")):
        header = played.cli(*cmd).output.splitlines()[0]
        assert header.startswith(("Redis: redis://", "Redis: redis+cluster://")) and f":{port}/" in header, header
        assert f":{port}/" in json.loads(played.cli(*cmd, "--json").output)["redis"]

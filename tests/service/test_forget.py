"""``slowspades players forget ADDRESS`` (GDPR article 17) after a whole game between an SMS player and an email
player, through the signed webhooks and a real worker: a scan of every Redis key (dumped by type) and of the
game's archive (decompressed) finds neither the forgotten player's number, in any form, nor their chosen name; the
game still verifies; their opponent's page and score sheet still show it, the forgotten player named as such. A
player with a game in play is not forgotten."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from click.testing import CliRunner, Result

from service.store.base import scan_keys, unpack_log
from service.store.personal import dump_key
from service.web.game import form_token
from tests.backends import BOTH
from workers import beat

from .helpers import post_sms, wait_handled
from .mixed_game import EMAIL_PLAYER, SMS_PLAYER, play_mixed_game

TRACES = re.compile(r"5557770001|\+1\.\.0001|zoltan", re.IGNORECASE)  # the number, as SMS shorten it, the name


def cli(svc: Any, *args: str) -> Result:
    from service.cli import main

    # the operator's command on the tests' clock, which the tests move (SLOWSPADES_SHARED_CLOCK)
    return CliRunner(env={"SLOWSPADES_SHARED_CLOCK": "1"}).invoke(main, [*args, "--redis-url", svc.config["REDIS_URL"]],
                                                                   catch_exceptions=False)


def everything(svc: Any) -> dict[str, Any]:
    """Every key of the store with its value (an archive decompressed: its events and message digests)."""
    out: dict[str, Any] = {}
    for key in scan_keys(svc.redis, "*"):
        name = key.decode() if isinstance(key, bytes) else key
        if name.endswith((":archive", ":head")):
            out[name] = [[e.stream_id, e.event, e.time_ms, e.message_id] for e in unpack_log(svc.redis.get(key))]
        else:
            out[name] = dump_key(svc.redis, key)
    return out


@pytest.mark.parametrize("who", ["sms", "email"])
def test_a_forgotten_player_leaves_no_trace_and_their_opponent_keeps_the_game(  # type: ignore[no-untyped-def]
        client, svc, smtp_server, celery_worker, who) -> None:
    resp, mid = post_sms(client, SMS_PLAYER, "NAME Zoltan")
    wait_handled(svc, mid)
    played = play_mixed_game(client, svc, smtp_server, target=100)
    gid = played.game_id
    gone, kept = (SMS_PLAYER, EMAIL_PLAYER) if who == "sms" else (EMAIL_PLAYER, SMS_PLAYER)
    traces = TRACES if who == "sms" else re.compile(r"lovel", re.IGNORECASE)  # the address, whole or shortened
    meta = svc.store.meta(gid)
    seat = 0 if who == "sms" else 1
    for s, line in ((seat, "SECRET WORDS of mine"), (1 - seat, "good game, Zoltan")):  # the talk (SAY), by the pages
        token = meta[f"web{s}"]
        resp = client.post(f"/g/{token}/say", data={"csrf": form_token(svc.store, token), "text": line})
        assert resp.status_code == 303
    assert [line.text for line in svc.talk.lines(gid)] == ["SECRET WORDS of mine", "good game, Zoltan"]
    before = everything(svc)
    assert any(k.endswith(":archive") for k in before)  # the game ended and was archived
    assert traces.search(json.dumps(before))  # the address (and the name) were there
    page, their_page = meta[f"web{1 - seat}"], meta[f"web{seat}"]

    res = cli(svc, "players", "forget", gone.upper() if who == "email" else "+1 555 777 0001", "--json")
    assert res.exit_code == 0, res.output
    done = json.loads(res.output)
    assert done["forgotten"] and done["games"] == [gid] and done["keys_deleted"] > 0

    after = everything(svc)
    for key, value in after.items():
        assert not traces.search(key + json.dumps(value, ensure_ascii=False)), key
        assert "SECRET WORDS" not in json.dumps(value, ensure_ascii=False), key  # their talk is forgotten with them
    assert kept in json.dumps(after)  # the opponent is not forgotten
    verified = cli(svc, "games", "verify", "--all")
    assert verified.exit_code == 0 and f"{gid}: OK" in verified.output, verified.output

    html = client.get(f"/g/{page}").get_data(as_text=True)
    talk = html[html.index('id="talk"'):html.index("</section>", html.index('id="talk"'))]
    assert "good game, a forgotten player" in talk or who == "email", talk  # the opponent's own line kept, scrubbed
    assert "a forgotten player" in html and "Score sheet" in html and "Hand 1</caption>" in html
    assert not traces.search(html)
    assert client.get(f"/g/{their_page}").status_code == 404  # the forgotten seat's page is gone
    exported = json.loads(cli(svc, "players", "export", kept).output)
    assert [g["id"] for g in exported["games"]] == [gid] and exported["games"][0]["events"]
    assert exported["games"][0]["messages_to_you"] and not traces.search(json.dumps(exported))
    assert cli(svc, "players", "forget", gone).exit_code == 2  # nobody left to forget


def test_a_player_with_a_game_in_play_is_not_forgotten(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, SMS_PLAYER, f"NEW {EMAIL_PLAYER}")
    wait_handled(svc, mid)
    gid = svc.players.games(SMS_PLAYER)[0]
    for who in (SMS_PLAYER, EMAIL_PLAYER):  # the inviter and the invitee
        res = cli(svc, "players", "forget", who, "--json")
        assert res.exit_code == 1 and json.loads(res.output) == {"forgotten": False, "games_in_play": [gid]}
    assert svc.store.meta(gid)["seat0"] == SMS_PLAYER and svc.players.get(SMS_PLAYER)


def test_the_retention_forgets_players_inactive_that_long(app, client, svc, smtp_server, celery_worker) -> None:  # type: ignore[no-untyped-def]
    played = play_mixed_game(client, svc, smtp_server, target=100)
    resp, mid = post_sms(client, "+15557770002", f"NEW {EMAIL_PLAYER}")  # a game in play: kept, whatever its age
    wait_handled(svc, mid)
    assert json.loads(cli(svc, "players", "forget-inactive", "--days", "30", "--json").output)["inactive"] == 0
    svc.store.clock.advance(31 * 86400)
    try:
        res = cli(svc, "players", "forget-inactive", "--days", "30", "--dry-run", "--json")
        assert json.loads(res.output) == {"days": 30.0, "inactive": 1, "forgotten": 0}
        app.config["FORGET_INACTIVE_DAYS"] = 30
        with app.app_context():  # the beat's daily job
            assert beat.forget_inactive() == 1
            assert beat.forget_inactive() == 0
    finally:
        svc.store.clock.reset()
    assert svc.players.get(SMS_PLAYER) is None and svc.players.get("+15557770002") and svc.players.get(EMAIL_PLAYER)
    assert svc.store.meta(played.game_id)["seat0"].startswith("forgotten:")
    assert cli(svc, "games", "verify", played.game_id).exit_code == 0


@BOTH
def test_forgetting_a_linked_address_forgets_the_player_and_all_their_addresses(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    from .test_linked_channels import ALICE, BOB, PHONE2, link_phone, send, start

    link_phone(client, svc)
    send(client, svc, ALICE, "LINK +15551230008")  # a code pending at a third phone, never sent back
    gid = start(client, svc)
    send(client, svc, PHONE2, "RESIGN")  # from the linked phone: Alice's game
    send(client, svc, PHONE2, "YES")
    assert svc.store.meta(gid)["status"] == "over"
    res = cli(svc, "players", "forget", PHONE2, "--json")
    assert res.exit_code == 0 and json.loads(res.output)["addresses"] == 2, res.output
    traces = re.compile(r"123000[189]")  # Alice's numbers, whole or shortened
    left = {k: v for k, v in everything(svc).items() if traces.search(k + json.dumps(v, ensure_ascii=False))}
    assert not left
    assert cli(svc, "games", "verify", gid).exit_code == 0
    html = client.get(f"/g/{svc.store.meta(gid)['web1']}").get_data(as_text=True)
    assert "a forgotten player" in html and BOB in svc.store.meta(gid)["seat1"]


def test_a_backup_restored_is_forgotten_again_from_the_ledger(client, svc, tmp_path, monkeypatch, celery_worker) -> None:  # type: ignore[no-untyped-def]
    ledger = tmp_path / "forgotten.ledger"
    monkeypatch.setenv("SLOWSPADES_FORGET_LEDGER", str(ledger))  # the command's settings
    monkeypatch.setenv("SLOWSPADES_LOG_HASH_KEY", "the-ledger-key")  # required with a ledger
    for who in (SMS_PLAYER, "+15557770002"):
        resp, mid = post_sms(client, who, "NAME Zoltan" if who == SMS_PLAYER else "HELP")
        wait_handled(svc, mid)
    # what a snapshot taken now holds (a key the worker's last writes delete between the scan and its dump is not in it)
    backup = {k: v for k in scan_keys(svc.redis, "*") if (v := svc.redis.dump(k)) is not None}
    assert cli(svc, "players", "forget", SMS_PLAYER).exit_code == 0
    assert "5557770001" not in ledger.read_text() and len(ledger.read_text().split()) == 1  # a keyed hash, no address
    for key, value in backup.items():  # the backup restored: the player is back
        svc.redis.restore(key, 0, value, replace=True)
    assert svc.players.get(SMS_PLAYER)
    res = cli(svc, "players", "forget-ledger", "--json")
    assert res.exit_code == 0 and json.loads(res.output) == {"forgotten": 1, "games_in_play": []}, res.output
    assert svc.players.get(SMS_PLAYER) is None and svc.players.get("+15557770002")
    assert not TRACES.search(json.dumps(everything(svc)))


def test_a_forgotten_seat_leaves_no_address_in_its_games_life_fields(svc) -> None:  # type: ignore[no-untyped-def]
    """A pause of an unreachable player is a field of the game's meta that names their address
    (``pause:reach:<address>:<ms>``): forgetting the seat renames it with the forgotten id, the pause kept."""
    from service.lifecycle.reach import pause_field
    from service.store.forget import Forgetting
    from service.store.keys import game_life

    gid = "forgetpause"
    svc.redis.hset(game_life(gid), mapping={"seat0": SMS_PLAYER, "seat1": EMAIL_PLAYER, "status": "over",
                                            pause_field(SMS_PLAYER, 1000): "1000-2000",
                                            pause_field(EMAIL_PLAYER, 3000): "3000-4000"})
    Forgetting(svc.redis).forget_seat(gid, 0, "forgotten:abc")
    Forgetting(svc.redis).forget_seat(gid, 0, "forgotten:abc")  # a forget run again (idempotent)
    life = svc.store.game_life(gid)
    assert not TRACES.search(json.dumps(life)) and life["seat0"] == "forgotten:abc"
    assert life[pause_field("forgotten:abc", 1000)] == "1000-2000"  # the pause still counts for the clock
    assert life[pause_field(EMAIL_PLAYER, 3000)] == "3000-4000"  # the opponent's own is theirs

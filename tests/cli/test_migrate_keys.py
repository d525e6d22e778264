"""``slowspades migrate-keys``: a Redis left by the layout before issue 13 moved into the shards."""

from __future__ import annotations

import json

from click.testing import CliRunner

from service.bootstrap import bootstrap
from service.cli import main
from service.inbound import handle_inbound
from service.store.due import pending
from service.store.keys import CLOCK_OFFSET, due_key, names_key


def test_the_old_global_keys_move_into_their_shards(redis_url: str, redis_client) -> None:  # type: ignore[no-untyped-def]
    r = redis_client
    r.zadd("ss:due", {"r|gold|0|5|1": 1000, "x|gold2": 2000})
    r.zadd("outbox:dirty", {"g:gold": 5})
    r.zadd("in:pending", {"+15550009999 sms:SM1": 7})
    r.hset("ss:names", "ana", "+15550009999")
    r.xadd("outbox:local", {"m": json.dumps({"id": "g:gold#1", "to": "+15550009999", "body": "hi"})})
    r.set("ss:clock:offset", "3600")
    r.set("sms:day:20261201", "12")
    r.set("ss:beat:lock", "x")
    args = ["migrate-keys", "--redis-url", redis_url, "--json"]
    out = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert out["moved"]["ss:due"] == 2 and out["moved"]["outbox:local"] == 1 and out["moved"]["ss:beat:lock"] == 1
    assert [i.member for i, _t in pending(r)] == ["r|gold|0|5|1", "x|gold2"] and r.zcard(due_key("gold")) >= 1
    assert r.hget(names_key("ana"), "ana") == b"+15550009999" and r.get(CLOCK_OFFSET) == b"3600"
    store = bootstrap({"HANDLED_MESSAGE_TTL": 60}, r).store
    assert [m["body"] for _i, m in store.read_local()] == ["hi"]
    assert store.stale_inbound(-1) == [] and store.sms_today("20261201") == (12, False)
    assert not any(r.exists(k) for k in ("ss:due", "outbox:dirty", "in:pending", "ss:names", "outbox:local"))
    again = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert set(again["moved"].values()) == {0}


def test_a_players_old_life_and_numbers_hashes_merge_into_their_record(redis_url: str, redis_client) -> None:  # type: ignore[no-untyped-def]
    """Issue 21: a player read with one command. A STOP kept in the old life hash still stops every message."""
    r = redis_client
    r.hset("{p:+15550001111}:player", mapping={"kind": "sms", "lang": "fr", "last": "newer"})
    r.hset("{p:+15550001111}:life", mapping={"stopped": "1", "tz": "Europe/Paris", "last": "older"})
    r.hset("{p:+15550001111}:nums", mapping={"1": "gold", "g:gold": "1"})
    r.hset("{p:ana@example.com}:life", mapping={"remind": "0"})  # a life hash without a record yet
    args = ["migrate-keys", "--redis-url", redis_url, "--json"]
    out = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert out["moved"]["{p:<address>}:life"] == 2 and out["moved"]["{p:<address>}:nums"] == 1
    svc = bootstrap({}, r)
    assert svc.store.player_life_field("+15550001111", "stopped") == "1"
    assert svc.store.player_life_field("+15550001111", "last") == "newer"  # what the new code wrote wins
    assert svc.store.numbers("+15550001111") == {"1": "gold", "g:gold": "1"}
    assert (svc.players.get("+15550001111") or {})["lang"] == "fr"
    assert svc.store.player_life_field("ana@example.com", "remind") == "0"
    assert not any(r.exists(k) for k in ("{p:+15550001111}:life", "{p:+15550001111}:nums", "{p:ana@example.com}:life"))
    again = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert set(again["moved"].values()) == {0}


def test_a_games_old_life_hash_merges_into_its_meta(redis_url: str, redis_client) -> None:  # type: ignore[no-untyped-def]
    """Issue 21: a move reads and writes its turn with the meta's own commands. A pause and the turn kept in the old
    hash still count after the migration."""
    r = redis_client
    r.hset("{g:gold}:meta", mapping={"status": "active", "seat0": "+15550001111", "v": "12"})
    r.hset("{g:gold}:life", mapping={"v": "11", "seat": "1", "since": "1000", "pause:sms:SM1": "1000-2000"})
    args = ["migrate-keys", "--redis-url", redis_url, "--json"]
    out = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert out["moved"]["{g:<id>}:life"] == 1
    life = bootstrap({}, r).store.game_life("gold")
    assert (life["v"], life["seat"], life["pause:sms:SM1"], life["status"]) == ("12", "1", "1000-2000", "active")
    assert not r.exists("{g:gold}:life")
    again = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert set(again["moved"].values()) == {0}


def test_a_message_recorded_as_a_hash_before_the_upgrade_is_still_handled(redis_url: str, redis_client) -> None:  # type: ignore[no-untyped-def]
    """Issue 21: an inbound record is one JSON string (one SET with its expiry at the webhook). A text recorded as
    a hash by the code before, not handled yet, is rewritten with its expiry, and the worker then answers it."""
    r = redis_client
    sender, key = "+15550002222", "{p:+15550002222}:in:sms:SMold"
    r.hset(key, mapping={"channel": "sms", "from": sender, "to": "+15550000000", "body": "HELP", "received": "1000",
                         "status": "queued"})
    r.expire(key, 3600)
    args = ["migrate-keys", "--redis-url", redis_url, "--json"]
    out = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert out["moved"]["{p:<address>}:in:<message id> (hash)"] == 1
    assert r.type(key) == b"string" and 3500 < r.ttl(key) <= 3600
    svc = bootstrap({"HANDLED_MESSAGE_TTL": 600, "PUBLIC_BASE_URL": "https://play.example"}, r)
    assert (svc.store.inbound(sender, "sms:SMold") or {})["body"] == "HELP"
    result = svc.inject(handle_inbound)("sms:SMold", sender)
    [reply] = [svc.store.outbox_entry(oid) for oid in result.outbox_ids]
    assert reply and reply["to"] == sender and "NEW" in reply["body"]  # the help text: how to start a game
    again_handled = svc.inject(handle_inbound)("sms:SMold", sender)  # the task delivered again: no second answer
    assert again_handled.outcome == "duplicate" and again_handled.outbox_ids == result.outbox_ids
    again = json.loads(CliRunner().invoke(main, args, catch_exceptions=False).output)
    assert set(again["moved"].values()) == {0}

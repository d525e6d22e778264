"""Issue 13: a game in play is read from its snapshot and the events after it, and keeps in Redis only what may
still be sent or looked at (its log before the snapshot compressed, its outbox compacted once a hand)."""

from __future__ import annotations

import json
import zlib

from service import keys
from service.conversation_port import command_text
from service.games.cache import GameCache
from service.operator.games import verify_game
from service.store_base import sid_key
from spades import bots
from spades.game import Game, view

from .helpers import load, move, start_game

LIMIT = 64 * 1024


def game_bytes(svc, gid: str) -> int:  # type: ignore[no-untyped-def]
    """The game's keys in Redis, less its part of the local outbox (``{g:<id>}:local``: the messages "sent"
    without a provider, which stand in for Twilio's and SMTP's side and are not kept in a deployment)."""
    return sum(int(svc.redis.memory_usage(k, samples=0) or 0) for k in svc.redis.scan_iter("{g:" + gid + "}:*")
               if not k.endswith(b":local"))


def state(game: Game) -> dict[str, object]:
    return dict(vars(game))


def cold(svc, gid: str) -> Game:  # type: ignore[no-untyped-def]
    """The game as a process that never held it reads it (the snapshot and what follows it)."""
    return GameCache(svc.store, 10).load(gid)


def play(svc, gid: str, until_hand: int, each=lambda game: None) -> Game:  # type: ignore[no-untyped-def]
    meta = svc.store.meta(gid)
    addresses = (meta["seat0"], meta["seat1"])
    basic = bots.get("basic", seed=3)
    while True:
        game = load(svc, gid)
        each(game)
        if game.phase == "over" or game.hand_no >= until_hand:
            return game
        seat = game.movers[0]
        assert move(svc, addresses[seat], command_text(basic.choose(view(game, seat)))).outcome == "applied"


def test_a_cold_load_folds_only_what_follows_the_snapshot_and_gives_the_full_fold(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, "+4790000101", "+4790000102")
    tails: list[int] = []

    def check(game: Game) -> None:
        snap = svc.redis.hget(keys.game_snapshot(gid), "sid")
        assert snap is not None
        tail = svc.redis.xrange("{g:" + gid + "}:ev", min="(" + snap.decode(), max="+")
        tails.append(len(tail))
        assert state(cold(svc, gid)) == state(game)

    game = play(svc, gid, 4, check)
    assert game.hand_no == 4 and max(tails) < 120  # a hand's events at most, never the whole log
    stored = svc.store.load(gid)
    assert len(stored) == svc.store.version(gid) == game.version  # the whole log, the head first
    assert int(svc.store.meta(gid)["head"]) > 0 and len(svc.store.read_head(gid)) == int(svc.store.meta(gid)["head"])
    assert [e.stream_id for e in stored] == sorted((e.stream_id for e in stored), key=sid_key)
    assert verify_game(svc, gid)["ok"]


def test_a_snapshot_of_an_unknown_format_is_ignored(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, "+4790000201", "+4790000202")
    game = play(svc, gid, 2)
    key = keys.game_snapshot(gid)
    data = json.loads(zlib.decompress(svc.redis.hget(key, "s")))
    data["format"] = "99.1"
    data["scores"] = [12345, 0]  # were it read, the state would be wrong
    svc.redis.hset(key, "s", zlib.compress(json.dumps(data).encode()))
    assert state(cold(svc, gid)) == state(game)


def test_a_game_in_play_keeps_at_most_64_kb_in_redis(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, "+4790000301", "+4790000302")
    sizes: list[int] = []
    ends: list[int] = []

    def measure(game: Game) -> None:
        if game.phase != "over":
            sizes.append(game_bytes(svc, gid))
            if game.phase == "draw" and game.decisions == [0, 0] and game.hand_no > len(ends):
                ends.append(sizes[-1])  # a hand's end: the next one dealt

    final = play(svc, gid, 99, measure)
    print(f"{len(ends)} hands; memory at each hand's end (KB):", [round(s / 1024, 1) for s in ends],
          "max at any point", round(max(sizes) / 1024, 1))
    assert final.phase == "over" and len(ends) >= 4
    assert max(sizes) <= LIMIT, [round(s / 1024, 1) for s in sizes]
    assert svc.store.meta(gid).get("archived") == str(final.version)
    assert not svc.redis.exists(keys.game_head(gid), keys.game_snapshot(gid))
    assert verify_game(svc, gid)["ok"] and state(cold(svc, gid)) == state(final)

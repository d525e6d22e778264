"""Games played through the service's signed ``/sms`` webhook, closed loop, for the load benchmarks.

:class:`GameDriver` keeps a game's state from its event stream and picks each move with a ``basic`` bot;
:func:`new_games` starts games and :func:`run_moves` plays them on threads, counting the moves done.
Used by ``bench/load.py``, ``bench/load_cluster.py`` and ``bench/chaos.py``.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
import uuid
from typing import Any

import requests
from redis.cluster import RedisCluster
from twilio.request_validator import RequestValidator

from bench.stack import TOKEN
from service.bootstrap import Dependencies
from service.conversation_port import command_text
from service.lifecycle.invitations import create_game
from spades import bots
from spades.events import from_dict
from spades.game import Game, view


class GameDriver:
    """One game played through webhooks: local copy of the state, a basic bot per seat."""

    def __init__(self, svc: Dependencies, gid: str, players: tuple[str, str], game: Game | None = None,
                 last: str = "") -> None:
        self.svc, self.gid, self.players = svc, gid, players
        self.game = game or Game()
        self.last = last
        self.bots = (bots.get("basic", seed=1), bots.get("basic", seed=2))
        self.sent_at = 0.0
        self.mid = ""
        self.sent = ("", "")  # the last message's sender and text
        self.mids: list[str] = []
        self.moves = 0
        if game is None:
            self.catch_up()

    def catch_up(self) -> None:
        for se in self.svc.store.load(self.gid, after=self.last or None):
            self.game.apply(from_dict(se.event))
            self.last = se.stream_id

    def next_text(self) -> tuple[str, str]:
        movers = self.game.movers  # both, in a simultaneous draw (RULES D11): they take turns sending
        seat = movers[self.game.version % len(movers)]
        return self.players[seat], command_text(self.bots[seat].choose(view(self.game, seat)))


def signed_sms(session: requests.Session, base: str, sender: str, body: str) -> tuple[float, str]:
    sid = "SM" + uuid.uuid4().hex
    params = {"MessageSid": sid, "AccountSid": "AC" + "0" * 32, "From": sender, "To": "+15550000000",
              "Body": body, "NumMedia": "0"}
    sig = RequestValidator(TOKEN).compute_signature(base + "/sms", params)
    t0 = time.perf_counter()
    resp = session.post(base + "/sms", data=params, headers={"X-Twilio-Signature": sig}, timeout=30)
    dt = time.perf_counter() - t0
    assert resp.status_code == 200, resp.status_code
    return dt, "sms:" + sid


def new_games(svc: Dependencies, n: int, tag: str, first: int = 0) -> list[GameDriver]:
    """``n`` games started between two new phones each (numbers from ``tag`` and the game's index, counted
    from ``first``), their first messages taken out of the outbox's queue (nobody reads them)."""
    out = []
    for i in range(first, first + n):
        players = (f"+1555{tag}{2 * i:06d}", f"+1555{tag}{2 * i + 1:06d}")
        gid = f"{tag}{i:05d}{uuid.uuid4().hex[:4]}"
        res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid,
                          players[0], players[1], "bench-setup:" + gid, start_now=True)
        assert res.outcome == "started", res
        for oid in res.outbox_ids:
            svc.redis.zrem("{g:" + gid + "}:outq", oid.rsplit("#", 1)[1])
        out.append(GameDriver(svc, gid, players))
    return out


#: The index of the next game :func:`run_moves` starts in place of one that ended (after any ``new_games`` of a run).
_RENEWED = itertools.count(10_000)


def run_moves(svc: Dependencies, base: str, games: list[GameDriver], threads: int, seconds: float | None,
              stats: dict[str, list[float]], renew: str = "") -> int:
    """Play ``games`` (each closed-loop) on ``threads`` until ``seconds`` pass (or all games end); returns
    the moves completed by then. The moves sent before then are waited for (not counted), so the games
    can go on in a later call.

    ``renew`` (a phone-number tag, as :func:`new_games` takes): a game that ends is replaced, in ``games`` too,
    by a new one between two new phones, so that as many games stay in play however long the run (a game to
    500 is some 670 moves: 32 games end in about a minute at 400 moves a second). Its start is not a move and
    is not counted."""
    stop = time.monotonic() + seconds if seconds else float("inf")
    lock = threading.Lock()
    total = [0]
    ended: list[tuple[GameDriver, GameDriver]] = []

    def replace(gone: list[GameDriver]) -> list[GameDriver]:
        fresh = [new_games(svc, 1, renew, next(_RENEWED))[0] for _ in gone]
        ended.extend(zip(gone, fresh))  # (list.extend and a count's next hold the GIL: no lock needed)
        return fresh

    def loop(mine: list[GameDriver]) -> None:
        session = requests.Session()
        r = svc.redis
        pending: list[GameDriver] = []
        for g in mine:
            if g.game.phase != "over":
                pending.append(g)
        waiting: dict[str, GameDriver] = {}
        drain = stop + 60
        next_check = time.monotonic() + 0.25
        while (pending or waiting) and time.monotonic() < drain:
            late = time.monotonic() >= stop
            if late:
                pending = []
                if not waiting:
                    break
            for g in pending:
                g.sent = sender, text = g.next_text()
                g.sent_at = time.time()
                dt, g.mid = signed_sms(session, base, sender, text)
                g.mids.append(g.mid)
                stats["webhook"].append(dt)
                waiting["{g:" + g.gid + "}:ev"] = g
            pending = []
            # block until some game we wait for has new events (no busy polling)
            reply = read_streams(r, {k: g.last or "0-0" for k, g in waiting.items()}, 200)
            over: list[GameDriver] = []
            pending += take_replies(reply, waiting, stats, None if late else (lock, total), over)
            if renew and not late:
                pending += replace(over)
            if time.monotonic() >= next_check:  # a message handled 0.5 s ago with no event seen: why, now
                next_check = time.monotonic() + 0.25
                for key, g in list(waiting.items()):
                    quiet = quiet_outcome(svc, g) if time.time() - g.sent_at > 0.5 else ""
                    if quiet:
                        del waiting[key]
                    if quiet == "compacted":  # its events were read from the game's log: it goes on
                        took = take_replies([(key.encode(), [])], {key: g}, stats, None if late else (lock, total),
                                            over)
                        pending += [] if late else took
                        if renew and not late:
                            pending += replace(over)
        for g in waiting.values():  # waited for to the drain's end: what the service made of its last message
            record = svc.store.inbound(g.sent[0], g.mid)  # handled with no event: a move the service refused
            status = "no record" if record is None else record.get("status", "recorded, not handled")
            print(f"bench: no event of game {g.gid} {drain - stop:.0f} s after the run, for {g.sent[1]!r} (its "
                  f"message: {status})", file=sys.stderr)

    chunks = [games[i::threads] for i in range(threads)]
    ts = [threading.Thread(target=loop, args=(c,)) for c in chunks if c]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for old, new in ended:
        games[games.index(old)] = new
    return total[0]


def quiet_outcome(svc: Dependencies, g: GameDriver) -> str:
    """Why ``g``'s last message, sent a while ago, brought no event to the stream read: "" (not handled yet),
    "refused" (handled, and nothing appended: the driver's text was not a legal move; printed, and the game is no
    longer played, for it would be refused again), or "compacted" (its events were appended, and left the stream for
    the game's compressed log, with a snapshot at a hand's play, before the read saw them: they are folded in here)."""
    record = svc.store.inbound(g.sent[0], g.mid)
    if record is None or record.get("status") != "done":
        return ""
    before = g.game.version
    g.catch_up()  # the done mark is written after the events: they are in the log by now
    if g.game.version != before:
        return "compacted"
    print(f"bench: game {g.gid} refused {g.sent[1]!r} (handled with no event): no longer played", file=sys.stderr)
    return "refused"


def take_replies(reply: Any, waiting: dict[str, GameDriver], stats: dict[str, list[float]],
                 count: tuple[threading.Lock, list[int]] | None,
                 over: list[GameDriver] | None = None) -> list[GameDriver]:
    """An XREAD reply taken into the games ``waiting`` for it (each move done counted in ``count``, if given);
    returns the games that go on (those that ended are added to ``over``, if given)."""
    going = []
    for key, entries in reply or []:
        g = waiting.pop(key.decode())
        if entries:  # (none: the events were folded in already, :func:`quiet_outcome`)
            take_events(g, entries, stats)
        if count is not None:
            with count[0]:
                count[1][0] += 1
        if g.game.phase != "over":
            going.append(g)
        elif over is not None:
            over.append(g)
    return going


def take_events(g: GameDriver, entries: list[Any], stats: dict[str, list[float]]) -> None:
    """The new events of ``g``'s stream (an XREAD reply's entries) applied to its game: one move done, its
    webhook -> outbox time counted when the first entry is its message's."""
    first = entries[0][1]
    if first.get(b"m", b"").decode() == g.mid and b"t" in first:
        stats["to_outbox"].append(int(first[b"t"]) / 1000 - g.sent_at)
    for sid, fields in entries:
        g.game.apply(from_dict(json.loads(fields[b"e"])))
        g.last = sid.decode()
    g.moves += 1


def read_streams(r: Any, streams: dict[str, str], block_ms: int) -> list[Any]:
    """XREAD of ``streams`` after their ids, blocking up to ``block_ms``. On a cluster an XREAD names keys of
    one slot, so it takes one stream (``bench/load_cluster.py`` gives every game its own thread), addressed to
    its node: left to route an XREAD itself, redis-py 8 asks a server ``COMMAND GETKEYS`` each time."""
    if not isinstance(r, RedisCluster):
        return r.xread(streams, block=block_ms)  # type: ignore[no-any-return]
    if len(streams) != 1:
        raise ValueError("on a Redis Cluster one stream per XREAD: one load thread per game")
    [(key, last)] = streams.items()
    return r.execute_command("XREAD", "BLOCK", block_ms, "STREAMS", key, last,  # type: ignore[no-any-return]
                             target_nodes=r.get_node_from_key(key))

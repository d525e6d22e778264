"""Games with a history, written straight through the store (not the webhooks), for ``bench/load.py --games``.

Each game is created as the benchmark's others are (``create_game``), then played on by the engine with the
``basic`` bot at both seats for ``hands`` hands and a few moves more; its events are appended as the service
appends them: in segments ending where the service writes a snapshot (a hand's start, its play's start),
each with its snapshot and followed by ``Store.keep_in_play`` (the log before it compressed), the
turn recorded and both players' cursors (``seen<seat>``: told of everything so far). No messages are written: the histories' outboxes are empty, as a game's is once its
entries are sent and compacted.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from service.bootstrap import Dependencies
from service.games.result import movers_field
from service.lifecycle.invitations import create_game
from service.store import game_owner, now_ms
from spades import bots, snapshot
from spades.dealer import Dealer
from spades.events import Event, HandStarted, to_dict
from spades.game import Game, decide, view


def _append(svc: Dependencies, gid: str, game: Game, events: list[Event], snap: bool) -> str:
    # both players were told of everything so far (their cursors, as the messages of these moves set them)
    told = {"seen0": str(game.version), "seen1": str(game.version)}
    res = svc.store.append(game_owner(gid), game.version - len(events), [to_dict(e) for e in events], meta=told,
                           turn=(game.version, movers_field(game), now_ms(), None),
                           snapshot=snapshot.dump(game) if snap else None)
    if not res.ok:
        raise RuntimeError(f"history of {gid}: {res.status}")
    if snap:
        svc.store.keep_in_play(gid, res.last_stream_id)
    return res.last_stream_id


def write_history(svc: Dependencies, gid: str, players: tuple[str, str], hands: int, rng: random.Random) -> tuple[Game,
                                                                                                                  str]:
    """Create ``gid`` and play it on for ``hands`` hands and 0 - 40 moves more; its state and last stream id."""
    res = create_game(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.dealer, gid, players[0],
                      players[1], "bench-setup:" + gid, start_now=True)
    if res.outcome != "started" or res.game is None:
        raise RuntimeError(f"{gid}: {res.outcome}")
    for oid in res.outbox_ids:  # as sent: the closed loop does not wait for the first messages
        svc.redis.zrem("{g:" + gid + "}:outq", oid.rsplit("#", 1)[1])
    game = res.game
    last = svc.store.load(gid)[-1].stream_id
    strategies = (bots.get("basic", seed=rng.randrange(1 << 30)), bots.get("basic", seed=rng.randrange(1 << 30)))
    dealer = Dealer(seed=rng.randrange(1 << 30))
    extra = rng.randrange(41)
    segment: list[Event] = []
    while game.phase != "over" and (len(game.history) < hands or extra > 0):
        if len(game.history) >= hands:
            extra -= 1
        seat = game.movers[0]
        phase = game.phase
        new = decide(game, strategies[seat].choose(view(game, seat)), dealer)
        for e in new:
            game.apply(e)
        segment += new
        if any(isinstance(e, HandStarted) for e in new) or (game.phase == "play" != phase):
            last = _append(svc, gid, game, segment, True)
            segment = []
    if segment:
        last = _append(svc, gid, game, segment, False)
    return game, last


def write_histories(svc: Dependencies, n: int, tag: str, hands: int,
                    threads: int = 4) -> list[tuple[str, tuple[str, str], Game, str]]:
    """``n`` games with histories (see the module docstring), on ``threads`` threads: (game id, players, state,
    last stream id) each."""
    out: list[Any] = [None] * n
    t0 = time.monotonic()

    def work(k: int) -> None:
        rng = random.Random(k)
        for i in range(k, n, threads):
            players = (f"+1556{tag}{2 * i:06d}", f"+1556{tag}{2 * i + 1:06d}")
            gid = f"h{tag}{i:05d}{rng.randrange(16 ** 4):04x}"
            game, last = write_history(svc, gid, players, hands, rng)
            out[i] = (gid, players, game, last)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if any(x is None for x in out):
        raise RuntimeError("some histories were not written")
    print(f"histories: {n} games of {hands}+ hands written through the store in {time.monotonic() - t0:.0f} s")
    return out

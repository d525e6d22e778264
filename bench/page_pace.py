"""The SMS a player who plays from the game page gets per hand (issue 23): ``bench/pace.py``'s ``page`` column.

Unlike the other columns (``chat.simulate``, no service), these games run through the service itself, in this
process, on a ``redis-server`` of their own (a free port, a temp dir): two SMS numbers start a game (``NEW``,
``YES``), then player 0 makes every move from the page as ``service.web.game`` records it (the page's presence
mark, then the inbound record with the page token and the question it answers) and player 1 by SMS, each handled
by ``service.after.handle_inbound`` as the worker does, with the local outbox. The shared clock moves on between
moves (player 1 thinks ``THINK_S[1]`` seconds a move, player 0 ``THINK_S[0]``) and the beat's due work runs
(``service.after.tick``: a page left sends the prompt owed). Moves are the ``basic`` bot's.

Two ways of being on the page: **open** (the page stays open: its poll marks the player every few seconds) and
**moves only** (no poll: only each move marks the player, for ``SLOWSPADES_PAGE_QUIET_MINUTES``). Counted: the
SMS each player gets per hand scored. Goal: SMS per hand for the player on the page <= 5.
Usage: ``python bench/page_pace.py [games] [--target N]`` (default 2 games to 500); ``bench/pace.py`` prints it as
its ``page`` column.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stack import free_port
from chat.page import question_key
from service import after, create_app
from service.bootstrap import Dependencies
from service.conversation_port import command_text
from service.delivery import deliver_local_many
from service.games import presence
from service.store import clock, now_ms
from spades import bots
from spades.game import view

PLAYERS = ("+15550002001", "+15550002002")  # player 0 plays from the page, player 1 by SMS
THINK_S = (30.0, 120.0)  # game-clock seconds each player takes over a move


@contextmanager
def redis_server() -> Iterator[str]:
    """A ``redis-server`` of its own (no persistence) on a free port: its URL."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server not found (apt-get install redis-server)")
    port = free_port()
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen([exe, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", d],
                                stdout=subprocess.DEVNULL)
        try:
            import redis  # here: the bench's own server, read only to know it answers

            client = redis.Redis(port=port)
            for _ in range(200):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.02)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(10)


def _no_task(*_args: Any, **_kwargs: Any) -> None:
    """Celery's ``send_task``: nothing to queue with the local outbox and no computer in these games."""


def _send(svc: Dependencies, sender: str, body: str, n: int, page: dict[str, str] | None = None) -> None:
    """One message of ``sender`` recorded and handled as the webhook and the worker do (from the page: ``page``)."""
    message_id = f"bench:{n}"
    fields = {"channel": "page" if page else "sms", "from": sender, "to": "", "body": body, "received": now_ms(),
              "status": "queued", **(page or {})}
    svc.store.record_inbound(sender, message_id, fields, 3600)
    svc.inject(after.handle_inbound)(message_id, sender, _no_task)


def play(svc: Dependencies, games: int, open_page: bool, target: int = 500) -> tuple[int, int, int]:
    """Hands scored and the SMS each player got, over ``games`` whole games played to ``target`` points."""
    outlets = after.Outlets(lambda ids: deliver_local_many(svc.config, svc.store, ids), lambda turn: None)
    strategies = {0: bots.get("basic", 7), 1: bots.get("basic", 8)}
    hands, n = 0, 0
    sms = [0, 0]
    for _ in range(games):
        svc.redis.flushdb()
        svc.games.clear()
        page_player, sms_player = PLAYERS
        n += 1
        _send(svc, page_player, f"NEW {sms_player}" + (f" TO {target}" if target != 500 else ""), n)
        n += 1
        _send(svc, sms_player, "YES", n)
        game_id = svc.players.games(sms_player)[0]
        seat_of = {svc.store.meta(game_id)["seat0"]: 0, svc.store.meta(game_id)["seat1"]: 1}
        page_seat = seat_of[page_player]
        token = svc.players.ensure_web_token(game_id, page_seat)
        start = {a: len(_local(svc, a)) for a in PLAYERS}
        while True:
            game = svc.games.load(game_id)
            if game.phase == "over":
                break
            seat = game.movers[0]
            shown = view(game, seat)
            body = command_text(strategies[0 if seat == page_seat else 1].choose(shown))
            n += 1
            if seat == page_seat:
                presence.mark_moved(svc.config, svc.store, game_id, seat)
                _send(svc, page_player, body, n, {"page": token, "ask": question_key(shown)})
            else:
                _send(svc, sms_player, body, n)
            clock.advance(svc.redis, THINK_S[0 if seat == page_seat else 1])
            if open_page:
                presence.mark_open(svc.config, svc.store, game_id, page_seat)  # the page's poll
            after.tick(svc.config, svc.store, svc.steps, outlets)
        hands += len(svc.games.load(game_id).history)
        sms[0] += len(_local(svc, page_player)) - start[page_player]
        sms[1] += len(_local(svc, sms_player)) - start[sms_player]
    return hands, sms[0], sms[1]


def _local(svc: Dependencies, address: str) -> list[dict[str, Any]]:
    return [m for _i, m in svc.store.read_local(count=100_000) if m["to"] == address]


def page_column(games: int, target: int = 500) -> dict[str, tuple[int, int, int]]:
    """``play`` both ways (page open, moves only) on a redis-server of its own, games to ``target`` points."""
    with redis_server() as url:
        app = create_app({"REDIS_URL": url, "BROKER_URL": url, "DELIVERY": "local", "DEALER_SEED": "page-pace",
                          "SMS_FICTIONAL_NUMBERS": True, "LIMIT_MESSAGES_PER_MINUTE": 100_000})
        svc: Dependencies = app.extensions["slowspades"]
        return {"page open": play(svc, games, True, target), "moves only": play(svc, games, False, target)}


def target_of(argv: list[str]) -> int:
    """``--target N`` of ``argv`` (the points a game is played to: fewer for a quick run), else 500."""
    return int(argv[argv.index("--target") + 1]) if "--target" in argv else 500


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv and argv[0].isdigit() else 2
    started = time.perf_counter()
    figures = page_column(games, target_of(argv))
    print(f"{games} games through the service, player 0 on the game page, player 1 by SMS "
          f"({time.perf_counter() - started:.0f} s)")
    print(f"{'SMS per hand':28} {'to the page player':>20} {'to the SMS player':>18}  goal (page player)")
    for label, (hands, page_sms, other_sms) in figures.items():
        print(f"  {label:26} {page_sms / hands:20.2f} {other_sms / hands:18.2f}  <= 5   ({hands} hands)")


if __name__ == "__main__":
    main(sys.argv[1:])

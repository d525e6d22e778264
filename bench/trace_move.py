"""Which of the project's modules one move visits (run on demand: ``.venv/bin/python bench/trace_move.py``).

It starts a ``redis-server`` on a free port, builds the app (local outbox), plays a few moves to warm the
process up, then traces with ``sys.setprofile``:

* **person**: one inbound SMS move, end to end: the signed ``POST /sms`` webhook (test client), then the
  worker's task body ``workers.tasks.handle_inbound`` (run in this process, as the worker runs it);
* **computer**: one move of the computer (``workers.beat.bot_move``'s body) in a game against ``NEW BOT``.

For each it prints the project modules visited (``spades``, ``chat``, ``service``, ``workers``), the calls
between modules (a call into a project module from another: the caller is the innermost project frame
on the stack, so a call made through Flask, Jinja or Celery is counted from the project module that
called them), how many of those go back into a module already visited, and the distinct module-to-module
links. ``--list`` prints the modules and their call counts.

``--merge PKG[,PKG...]`` counts each named package as one module (``--merge service.store,spades``): what the
counts would be if those packages were each one file, the same calls made. It shows what merging modules can
and cannot win: calls between layers (the game's code reading the store, the texts reading the cards) stay.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from twilio.request_validator import RequestValidator  # noqa: E402

PACKAGES = ("spades", "chat", "service", "workers")
MERGED: tuple[str, ...] = ()  # --merge: packages counted as one module each
TOKEN = "trace-token"
BASE = "https://trace.example.test"


def module_of(filename: str) -> str | None:
    """``service/games/apply.py`` -> ``service.games.apply``; None outside the project's packages."""
    try:
        rel = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    if not rel.parts or rel.parts[0] not in PACKAGES or rel.suffix != ".py":
        return None
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    name = ".".join(parts)
    for package in MERGED:
        if name == package or name.startswith(package + "."):
            return package
    return name


class Trace:
    """The project modules called, in order, through ``sys.setprofile``."""

    def __init__(self) -> None:
        self.visited: dict[str, int] = {}
        self.calls = 0
        self.back = 0
        self.links: dict[tuple[str, str], int] = {}
        self._cache: dict[str, str | None] = {}

    def _mod(self, frame: FrameType) -> str | None:
        name = frame.f_code.co_filename
        if name not in self._cache:
            self._cache[name] = module_of(name)
        return self._cache[name]

    def _caller(self, frame: FrameType | None) -> str | None:
        while frame is not None:
            mod = self._mod(frame)
            if mod is not None:
                return mod
            frame = frame.f_back
        return None

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        mod = self._mod(frame)
        if mod is None:
            return
        caller = self._caller(frame.f_back)
        if caller == mod:
            self.visited[mod] = self.visited.get(mod, 0) + 1
            return
        if caller is not None:
            self.calls += 1
            self.links[(caller, mod)] = self.links.get((caller, mod), 0) + 1
            if mod in self.visited:
                self.back += 1
        self.visited[mod] = self.visited.get(mod, 0) + 1

    def run(self, fn: Any) -> Any:
        sys.setprofile(self.profile)
        try:
            return fn()
        finally:
            sys.setprofile(None)

    def report(self, title: str, listing: bool) -> None:
        print(f"{title}: {len(self.visited)} project modules visited, {self.calls} calls between modules, "
              f"{self.back} of them back into a module already visited, {len(self.links)} distinct links")
        if listing:
            for mod, n in sorted(self.visited.items()):
                print(f"    {mod:40} {n:6} calls")
            print("  links, most used first:")
            for (a, b), n in sorted(self.links.items(), key=lambda kv: -kv[1]):
                print(f"    {a:32} -> {b:32} {n:5}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_redis(tmp: str) -> tuple[subprocess.Popen[bytes], str]:
    exe = shutil.which("redis-server") or sys.exit("redis-server is needed")
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    for _ in range(200):
        try:
            client.ping()
            return proc, url
        except redis.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("redis-server did not start")


class Player:
    """Sends signed SMS webhooks as one phone and runs the worker's task body for each."""

    def __init__(self, app: Any, number: str) -> None:
        self.app, self.number = app, number
        self.client = app.test_client()

    def post(self, body: str) -> str:
        sid = "SM" + uuid.uuid4().hex
        params = {"MessageSid": sid, "AccountSid": "AC" + "0" * 32, "From": self.number, "To": "+15550000000",
                  "Body": body, "NumMedia": "0"}
        sig = RequestValidator(TOKEN).compute_signature(BASE + "/sms", params)
        resp = self.client.post("/sms", data=params, headers={"X-Twilio-Signature": sig})
        assert resp.status_code == 200, resp.status_code
        return "sms:" + sid

    def handle(self, message_id: str) -> None:
        from workers.tasks import handle_inbound

        with self.app.app_context():
            handle_inbound.run(message_id, self.number)

    def send(self, body: str) -> None:
        self.handle(self.post(body))


def game_of(svc: Any, number: str) -> str:
    return str(svc.players.games(number)[0])


def next_text(svc: Any, game_id: str, players: tuple[str, str]) -> tuple[int, str]:
    """The seat to move and a legal move's text (a basic bot's choice)."""
    from service.conversation_port import command_text
    from spades import bots
    from spades.game import view

    game = svc.games.load(game_id)
    seat = game.movers[0]
    return seat, command_text(bots.get("basic", seed=1).choose(view(game, seat)))


def bot_turn(app: Any, svc: Any, game_id: str, human: Player, listing: bool, trace: bool) -> bool:
    """Play the human's moves until the computer is to move alone; then its move (traced if ``trace``)."""
    from workers.beat import bot_move

    for _ in range(400):
        game = svc.games.load(game_id)
        if game.phase == "over":
            return False
        if game.movers and len(game.movers) == 1 and game.movers[0] != _seat_of(svc, game_id, human.number):
            seat, version = game.movers[0], game.version
            with app.app_context():
                if trace:
                    t = Trace()
                    t.run(lambda: bot_move.run(game_id, seat, version))
                    t.report("computer move", listing)
                else:
                    bot_move.run(game_id, seat, version)
            return True
        _, text = next_text(svc, game_id, ("", ""))
        human.send(text)
    return False


def _seat_of(svc: Any, game_id: str, number: str) -> int:
    meta = svc.store.meta(game_id)
    return 0 if meta.get("seat0") == number else 1


def two_phone_game(app: Any, svc: Any, inviter: str, friend: str) -> tuple[str, dict[int, Player]]:
    """A game between two phones (NEW, then YES): its id and each seat's player."""
    a, b = Player(app, inviter), Player(app, friend)
    a.send("NEW " + b.number)
    b.send("YES")
    gid = game_of(svc, a.number)
    meta = svc.store.meta(gid)
    by_number = {a.number: a, b.number: b}
    return gid, {seat: by_number[meta[f"seat{seat}"]] for seat in (0, 1)}


def local_app(url: str, tmp: str, queue: str, limits: bool = False) -> Any:
    """The app on the Redis at ``url``: the local outbox, no limits (``limits``: at their defaults), a fixed dealer
    seed, fictional numbers."""
    from service import create_app

    off = {} if limits else {"LIMIT_MESSAGES_PER_MINUTE": 0, "SMS_DAILY_CAP": 0}
    return create_app({"REDIS_URL": url, "BROKER_URL": url, "PUBLIC_BASE_URL": BASE, "TWILIO_AUTH_TOKEN": TOKEN,
                       "TWILIO_ACCOUNT_SID": "", "SMTP_HOST": "", "DEALER_SEED": "1", "DELIVERY": "local",
                       "QUEUE": queue, "SPOOL_DIR": tmp, "SMS_FICTIONAL_NUMBERS": True, **off})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print the modules visited")
    ap.add_argument("--merge", default="", metavar="PKG,...",
                    help="count each of these packages as one module (service.store,service.games,spades,...)")
    args = ap.parse_args()
    global MERGED
    MERGED = tuple(p.strip() for p in args.merge.split(",") if p.strip())
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_redis(tmp)
        try:
            app = local_app(url, tmp, "trace")
            svc = app.extensions["slowspades"]
            gid, players = two_phone_game(app, svc, "+15557770001", "+15557770002")
            for _ in range(8):  # warm up: the draw's first moves, untraced
                seat, text = next_text(svc, gid, ("", ""))
                players[seat].send(text)
            seat, text = next_text(svc, gid, ("", ""))
            mover = players[seat]
            person = Trace()
            person.run(lambda: mover.send(text))
            person.report(f"person move ({text!r}: webhook + handle_inbound)", args.list)

            c = Player(app, "+15557770003")
            c.send("NEW BOT")
            bgid = game_of(svc, c.number)
            bot_turn(app, svc, bgid, c, args.list, trace=False)  # warm up
            bot_turn(app, svc, bgid, c, args.list, trace=True)
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()

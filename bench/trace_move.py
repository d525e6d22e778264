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

Each move's trace is also collapsed to the layers of the layers contract in ``pyproject.toml`` (a ``a | b`` line is one
layer) and it prints issue 42's figures (``--json``: as JSON, for ``tests/test_shape.py``):

* **store call sites**: the distinct lines outside ``service/store/`` whose calls enter it;
* **layer switches**: calls whose caller is in another layer than the function called (``--list``: by the pair of
  layers);
* **upward calls**: calls from a lower layer into a higher one (a callback handed down: the imports never go up);

and, read from the source, the files of ``service/`` outside ``store/`` that import ``service.store.keys``,
``.codec`` or ``.base``, and the parameters typed ``Services`` (the bag of every dependency, deleted) or
``Dependencies`` (service.bootstrap's: only entry points hold it, no function takes it).
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
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
STORE = "service.store"
PRIVATE = ("service.store.keys", "service.store.codec", "service.store.base")  # the store's own modules


def contract_layers(pyproject: Path) -> list[tuple[str, ...]]:
    """The layers of the layers contract in ``pyproject``, top first; each a tuple of the modules on its line."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    return [tuple(m.strip() for m in line.replace(":", "|").split("|")) for line in layers]


LAYERS = contract_layers(ROOT / "pyproject.toml")


def layer_of(module: str) -> int | None:
    """The index of ``module``'s layer in ``LAYERS`` (0 the top), None if it is in none."""
    for i, names in enumerate(LAYERS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return i
    return None


def module_of(filename: str, merged: bool = True) -> str | None:
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
    for package in MERGED if merged else ():
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
        self.store_sites: set[tuple[str, int]] = set()  # (file, line) outside service/store calling into it
        self.switches = 0  # calls between two layers of the contract
        self.pairs: dict[tuple[str, str], int] = {}  # (caller's layer, callee's layer) -> switches
        self.upward: dict[tuple[str, str], int] = {}  # calls from a lower layer into a higher one
        self._cache: dict[str, str | None] = {}
        self._full_cache: dict[str, str] = {}

    def _full(self, frame: FrameType) -> str:
        name = frame.f_code.co_filename
        if name not in self._full_cache:
            self._full_cache[name] = module_of(name, merged=False) or ""
        return self._full_cache[name]

    def _mod(self, frame: FrameType) -> str | None:
        name = frame.f_code.co_filename
        if name not in self._cache:
            self._cache[name] = module_of(name)
        return self._cache[name]

    def _caller(self, frame: FrameType | None) -> tuple[str | None, FrameType | None]:
        while frame is not None:
            mod = self._mod(frame)
            if mod is not None:
                return mod, frame
            frame = frame.f_back
        return None, None

    def _layers(self, callee: str, at: FrameType) -> None:
        """The figures of a call into module ``callee`` made at ``at``'s line, collapsed to the layers."""
        caller = self._full(at)
        if callee.startswith(STORE) and not caller.startswith(STORE):
            self.store_sites.add((at.f_code.co_filename, at.f_lineno))
        high, low = layer_of(caller), layer_of(callee)
        if high is None or low is None or high == low:
            return
        self.switches += 1
        pair = (LAYERS[high][0], LAYERS[low][0])
        self.pairs[pair] = self.pairs.get(pair, 0) + 1
        if high > low:
            self.upward[(caller, callee)] = self.upward.get((caller, callee), 0) + 1

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        mod = self._mod(frame)
        if mod is None:
            return
        caller, at = self._caller(frame.f_back)
        if at is not None:
            self._layers(self._full(frame), at)
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

    def figures(self) -> dict[str, int]:
        """Issue 42's figures of this trace."""
        return {"store call sites": len(self.store_sites), "layer switches": self.switches,
                "upward calls": sum(self.upward.values())}

    def report(self, title: str, listing: bool) -> None:
        print(f"{title}: {len(self.visited)} project modules visited, {self.calls} calls between modules, "
              f"{self.back} of them back into a module already visited, {len(self.links)} distinct links")
        print("  " + ", ".join(f"{k} {v}" for k, v in self.figures().items()))
        for (low, high), n in sorted(self.upward.items()):
            print(f"    upward: {low} -> {high} {n}")
        if listing:
            print("  layer switches by the layers called from and into (a layer named by its first module), most first:")
            for (a, b), n in sorted(self.pairs.items(), key=lambda kv: -kv[1]):
                print(f"    {a:32} -> {b:32} {n:5}")
        if listing:
            print("  store call sites:")
            for filename, line in sorted(self.store_sites):
                print(f"    {Path(filename).relative_to(ROOT)}:{line}")
            for mod, n in sorted(self.visited.items()):
                print(f"    {mod:40} {n:6} calls")
            print("  links, most used first:")
            for (a, b), n in sorted(self.links.items(), key=lambda kv: -kv[1]):
                print(f"    {a:32} -> {b:32} {n:5}")


def static_figures(root: Path = ROOT) -> dict[str, int]:
    """Read from the source: files of service/ outside store/ importing the store's own modules (keys, codec, base),
    and the parameters annotated ``Services`` in service/ and workers/ (the bag of every dependency, deleted) or
    ``Dependencies`` (what service.bootstrap builds: only the entry points are handed it, never a function below)."""
    private, services = 0, 0
    for path in sorted([*root.glob("service/**/*.py"), *root.glob("workers/**/*.py")]):
        rel = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = ".".join(rel.with_suffix("").parts[:-1] if rel.name != "__init__.py" else rel.parts[:-1])
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                imported.add(base)
                imported.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                services += sum(1 for a in args if a.annotation is not None
                                and ast.unparse(a.annotation).strip("'\"").endswith(("Services", "Dependencies")))
        if rel.parts[:2] != ("service", "store") and imported & set(PRIVATE):
            private += 1
    return {"files importing the store's own modules": private, "Services parameters": services}


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


def bot_turn(app: Any, svc: Any, game_id: str, human: Player, listing: bool, trace: bool,
             quiet: bool = False) -> Trace | None:
    """Play the human's moves until the computer is to move alone; then its move (traced if ``trace``: its
    trace, reported unless ``quiet``)."""
    from workers.beat import bot_move

    for _ in range(400):
        game = svc.games.load(game_id)
        if game.phase == "over":
            return None
        if game.movers and len(game.movers) == 1 and game.movers[0] != _seat_of(svc, game_id, human.number):
            seat, version = game.movers[0], game.version
            t = Trace()
            with app.app_context():
                if trace:
                    t.run(lambda: bot_move.run(game_id, seat, version))
                    if not quiet:
                        t.report("computer move", listing)
                else:
                    bot_move.run(game_id, seat, version)
            return t
        _, text = next_text(svc, game_id, ("", ""))
        human.send(text)
    return None


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
    ap.add_argument("--json", action="store_true", help="print only issue 42's figures, as JSON")
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
            if not args.json:
                person.report(f"person move ({text!r}: webhook + handle_inbound)", args.list)

            c = Player(app, "+15557770003")
            c.send("NEW BOT")
            bgid = game_of(svc, c.number)
            bot_turn(app, svc, bgid, c, args.list, trace=False)  # warm up
            computer = bot_turn(app, svc, bgid, c, args.list, trace=True, quiet=args.json)
            static = static_figures()
            if args.json:
                print(json.dumps({"person": person.figures(), "computer": computer.figures() if computer else None,
                                  **static}))
            else:
                print("  " + ", ".join(f"{k} {v}" for k, v in static.items()))
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()

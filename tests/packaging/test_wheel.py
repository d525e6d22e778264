"""The wheel installs and runs without a checkout: built from the sources, installed into a fresh virtualenv
outside the repository, its web app (gunicorn), worker and beat (Celery) started from that virtualenv against
a real Redis, and one game begun and one move played through signed webhooks; the replies come from the
templates and catalogues inside the installed package."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from pathlib import Path
from typing import Any, Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from spades.events import from_dict
from spades.game import fold
from tests.conftest import TEST_CONFIG, _free_port
from tests.service.chooser import choose
from tests.service.helpers import BASE, TOKEN, local_messages, sms_params, twilio_sign
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "spades", "chat", "service", "workers", "templates")
ALICE, BOB = "+15551239001", "+15551239002"
METRICS_TOKEN = "metrics-test-token"


def build_wheel(out: Path) -> Path:
    """The wheel of a copy of the sources (the build writes nothing into the checkout), built by setuptools'
    PEP 517 backend as ``pip wheel --no-deps --no-build-isolation`` builds it, without pip's index look-ups."""
    src = out / "src"
    src.mkdir(parents=True)
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "templates"
                                                                            if name == "chat" else "-"))
        else:
            shutil.copy2(path, src / name)
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                                          "build_meta.build_wheel(sys.argv[1])", str(out / "dist")],
                   cwd=src, check=True, capture_output=True, timeout=120)
    (wheel,) = (out / "dist").glob("slowspades-*.whl")
    return wheel


def fresh_venv(where: Path, wheel: Path) -> Path:
    """A virtualenv with the wheel installed; its dependencies are the ones this test runs with (their
    site-packages as a plain path: no ``.pth`` of it is read, so the checkout's editable install is not seen)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=60)
    py = where / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, timeout=120)
    return py


def post_sms(port: int, from_: str, body: str) -> tuple[int, str]:
    """A Twilio-signed incoming SMS posted to the installed web app over HTTP; returns the status and the
    message id."""
    params = sms_params(from_, body, "SM" + uuid.uuid4().hex)
    params["SmsSid"] = params["MessageSid"]
    req = urllib.request.Request(f"http://127.0.0.1:{port}/sms", data=urllib.parse.urlencode(params).encode(),
                                 headers={"X-Twilio-Signature": twilio_sign(BASE + "/sms", params, TOKEN)})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return int(resp.status), "sms:" + params["MessageSid"]


def get(port: int, path: str, token: str = "") -> tuple[int, str]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture()
def installed(wheel: Path, tmp_path: Path) -> Path:
    return fresh_venv(tmp_path / "venv", wheel)


def service_env(redis_url: str, run: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "SLOWSPADES_"))}
    for name, value in TEST_CONFIG.items():
        env["SLOWSPADES_" + name] = ("1" if value else "0") if isinstance(value, bool) else str(value)
    env.update(SLOWSPADES_REDIS_URL=redis_url, SLOWSPADES_BROKER_URL=redis_url, SLOWSPADES_SPOOL_DIR=str(run / "spool"),
               SLOWSPADES_QUEUE="wheel-" + uuid.uuid4().hex[:8], SLOWSPADES_BEAT_EVERY="1",
               SLOWSPADES_METRICS_TOKEN=METRICS_TOKEN, SLOWSPADES_LOG_FORMAT="json", PROMETHEUS_MULTIPROC_DIR=str(run / "metrics"))
    (run / "metrics").mkdir(parents=True)
    return env


@pytest.fixture()
def processes(installed: Path, redis_url: str, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """gunicorn, a Celery worker and a Celery beat, each run from the installed virtualenv in a directory
    outside the checkout."""
    run = tmp_path / "run"
    env = service_env(redis_url, run)
    port, worker_port = _free_port(), _free_port()
    py = str(installed)
    commands = {
        "web": [py, "-m", "gunicorn", "--config", "python:service.gunicorn_conf", "--access-logfile", "-", "--bind", f"127.0.0.1:{port}", "--workers", "2", "service:create_app()"],
        "worker": [py, "-m", "celery", "--quiet", "-A", "workers.celery_app:celery", "worker", "--pool", "solo",
                   "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
        "beat": [py, "-m", "celery", "--quiet", "-A", "workers.celery_app:celery", "beat", "--loglevel", "INFO",
                 "--schedule", str(run / "beat-schedule")],
    }
    procs, logs = {}, {}
    try:
        for name, cmd in commands.items():
            logs[name] = run / f"{name}.log"
            own = dict(env, SLOWSPADES_METRICS_PORT=str(worker_port)) if name == "worker" else env
            procs[name] = subprocess.Popen(cmd, cwd=run, env=own, stdout=logs[name].open("wb"), stderr=subprocess.STDOUT)
        wait_for("the installed web app to answer", lambda: get(port, "/healthz")[0] == 200, timeout=30)
        yield {"port": port, "worker_port": worker_port, "logs": logs, "procs": procs, "python": py, "env": env, "run": run}
    finally:  # SIGQUIT: gunicorn's and Celery's quick shutdown (nothing here needs a graceful one)
        for proc in procs.values():
            proc.send_signal(signal.SIGQUIT)
        for proc in procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


@pytest.mark.slow
def test_the_installed_wheel_plays_a_move_without_the_checkout(processes, svc) -> None:  # type: ignore[no-untyped-def]
    port, py, run = processes["port"], processes["python"], processes["run"]
    where = subprocess.run([py, "-c", "import importlib; r = importlib.import_module('chat.render'); "
                                      "print(r.TEMPLATES_DIR); print(importlib.import_module('service').__file__)"],
                           cwd=run, env=processes["env"], check=True, capture_output=True, text=True).stdout.split()
    venv = str(Path(py).parent.parent)
    assert all(p.startswith(venv) for p in where), where  # the package, its templates: the installed ones
    assert not any(p.startswith(str(ROOT)) for p in where)

    status, mid = post_sms(port, ALICE, f"NEW {BOB}")
    assert status == 200
    gid = game_id_for(mid)
    invite = wait_for("the invitation", lambda: local_messages(svc, BOB), timeout=20)
    assert "invites you" in invite[-1]["body"]
    assert post_sms(port, BOB, "yes")[0] == 200
    wait_for("the game begun", lambda: svc.store.meta(gid).get("status") == "active", timeout=20)
    game = fold(from_dict(e.event) for e in svc.store.load(gid))
    seat = game.movers[0]
    mover = svc.store.meta(gid)[f"seat{seat}"]
    other = ALICE if mover == BOB else BOB
    before, told = game.version, len(local_messages(svc, other))
    assert post_sms(port, mover, command_text(choose(game, seat)))[0] == 200
    wait_for("the move applied", lambda: svc.store.version(gid) > before, timeout=20)
    news = wait_for("the other player told", lambda: local_messages(svc, other)[told:], timeout=20)
    assert news[-1]["body"].strip()  # rendered from the installed templates (the only ones that process has)
    assert svc.store.meta(gid)["status"] == "active"

    # the entry point works outside the checkout too
    listed = subprocess.run([str(Path(py).with_name("slowspades")), "games", "list"], cwd=run, env=processes["env"],
                            capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0 and gid in listed.stdout

    # the beat ticks (every second here): its schedule sends the lifecycle's tick, the worker runs it
    wait_for("the beat's tick", lambda: "workers.beat.tick" in processes["logs"]["beat"].read_text()
             and "workers.beat.tick" in processes["logs"]["worker"].read_text(), timeout=20)
    assert all(p.poll() is None for p in processes["procs"].values())

    # metrics in multiprocess mode: the web's /metrics adds up what gunicorn's workers (the webhooks) and the
    # Celery worker (the move, the messages, the beat's ticks) counted, each process in its own file
    assert get(port, "/metrics")[0] == 401
    status, text = get(port, "/metrics", METRICS_TOKEN)
    assert status == 200
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for f in text_string_to_metric_families(text) for s in f.samples}
    assert samples[("slowspades_moves_applied_total", (("mover", "player"),))] == 1
    assert samples[("slowspades_webhook_requests_total", (("channel", "sms"), ("outcome", "accepted")))] == 3
    assert samples[("slowspades_beat_ticks_total", ())] >= 1
    assert samples[("slowspades_games", (("status", "active"),))] == 1
    assert len(list((run / "metrics").glob("*.db"))) >= 2
    # the worker's own port (SLOWSPADES_METRICS_PORT): the same counts, no token, no state read from Redis
    status, text = get(processes["worker_port"], "/metrics")
    assert status == 200 and "slowspades_moves_applied_total" in text and "slowspades_games" not in text

    # the logs: one JSON object per line (gunicorn's, Celery's, the service's), no number in clear
    lines = {name: path.read_text().splitlines() for name, path in processes["logs"].items()}
    for name, got in lines.items():
        assert got, name
        for line in got:
            doc = json.loads(line)
            assert doc["msg"] and doc["level"], line
            assert "+1555123900" not in line and "%2B1555123900" not in line, line
    events = [json.loads(line) for line in lines["worker"] if '"logger": "slowspades"' in line]
    handled = [e for e in events if e["msg"] == "inbound handled"]
    assert [e["outcome"] for e in handled] == ["invited", "started", "applied"]
    assert all(e["game"] == gid and e["message"].startswith("sms:SM") for e in handled)
    assert handled[0]["player"] == handled[2]["player"] if mover == ALICE else handled[1]["player"] == handled[2]["player"]


@pytest.mark.slow
def test_the_wheel_carries_its_templates_catalogues_and_assets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"chat/templates/sms/help.txt.j2", "chat/templates/email/help.html.j2", "chat/templates/web/game.html.j2",
            "chat/templates/lifecycle/sms/invite.txt.j2", "chat/locale/fr/LC_MESSAGES/messages.mo",
            "service/web/simulator_assets/index.html", "service/prices.toml"} <= names  # the price table too
    shipped = {n.removeprefix("chat/") for n in names if n.startswith("chat/templates/")}
    in_repo = {str(p.relative_to(ROOT)) for p in (ROOT / "templates").rglob("*") if p.is_file()}
    assert shipped == in_repo  # every template, and nothing else under that name
    assert not any(n.startswith(("templates/", "tests/")) for n in names)

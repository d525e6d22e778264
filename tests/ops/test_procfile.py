"""The Procfile's processes as an operator runs them (issue 44): the worker and the beat write JSON lines only (no
Celery banner in plain text among them), and the web opens no gunicorn control socket (gunicorn's default, one path
per user, was shared by every service of that user on the host). Real processes, started from the Procfile's lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.safety.redis_proc import RedisProc, free_port
from tests.service.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]


def procfile(name: str) -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} in the Procfile")


def start(name: str, cwd: Path, **env: str) -> subprocess.Popen[bytes]:
    """The Procfile's ``name`` line, as honcho runs it (sh -c), from ``cwd``, its output to ``cwd/<name>.out``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLOWSPADES_")}
    out = open(cwd / f"{name}.out", "wb")
    path = f"{Path(sys.executable).parent}:{clean.get('PATH', '')}"
    return subprocess.Popen(["sh", "-c", procfile(name)], cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                            env={**clean, "PATH": path, "PYTHONPATH": str(ROOT), **env}, start_new_session=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


@pytest.fixture()
def redis_url(tmp_path: Path):  # type: ignore[no-untyped-def]
    r = RedisProc(tmp_path / "redis")
    r.start()
    yield r.url
    r.stop()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["worker", "beat"])
def test_the_worker_and_the_beat_write_json_lines_only(name: str, tmp_path: Path, redis_url: str) -> None:
    proc = start(name, tmp_path, SLOWSPADES_REDIS_URL=redis_url, SLOWSPADES_ALIVE_PROBE_EVERY="0.5")
    out = tmp_path / f"{name}.out"
    try:
        wait_for(lambda: b"ready" in out.read_bytes() or b"beat: Starting" in out.read_bytes(), 60,
                 f"the {name} started")
        time.sleep(2)
        running = out.read_text()  # what it writes while it runs (Celery writes "Warm shutdown" plainly on SIGTERM)
    finally:
        stop(proc)
    lines = [line for line in running.splitlines() if line.strip()]
    assert lines
    plain = []
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            plain.append(line)
    assert not plain, plain[:5]


@pytest.mark.slow
def test_the_web_opens_no_control_socket(tmp_path: Path) -> None:
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir()
    port = free_port()
    proc = start("web", tmp_path, HOME=str(home), XDG_RUNTIME_DIR=str(runtime), SLOWSPADES_BIND=f"127.0.0.1:{port}",
                 SLOWSPADES_WEB_WORKERS="1")
    try:
        wait_for(lambda: _answers(f"http://127.0.0.1:{port}/livez"), 60, "the web answering")
        time.sleep(1)
        assert not list(runtime.iterdir()) and not (home / ".gunicorn").exists()  # gunicorn's two default places
    finally:
        stop(proc)


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=1).status_code == 200
    except requests.RequestException:
        return False

"""Shared fixtures: a real Redis, a Flask app, a real Celery worker.

The session starts its own ``redis-server`` on a free port in a temp dir unless
``REDIS_URL`` is set (then that Redis is used, and flushed between tests).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import redis as redis_lib


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("REDIS_URL")
    if given:
        yield given
        return
    exe = shutil.which("redis-server")
    if not exe:
        pytest.fail("redis-server not found: install it (apt-get install redis-server) or set REDIS_URL")
    port = _free_port()
    d = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(d),
                             "--save", "", "--appendonly", "no", "--protected-mode", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis_lib.Redis.from_url(url)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis_lib.ConnectionError:
            time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("redis-server did not start")
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture()
def redis_client(redis_url: str) -> Iterator[redis_lib.Redis]:
    client = redis_lib.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.close()

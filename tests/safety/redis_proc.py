"""A redis-server process of a test's own, to kill and restart (with its append-only file kept)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis as redis_lib


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisProc:
    """``redis-server`` on a fixed port and directory, appendonly; :meth:`kill` (SIGKILL) and :meth:`start` again."""

    def __init__(self, directory: Path, appendfsync: str = "always") -> None:
        self.dir = directory
        self.port = free_port()
        self.appendfsync = appendfsync
        self.proc: subprocess.Popen[bytes] | None = None
        self.kills = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, wait: bool = True) -> None:
        exe = shutil.which("redis-server") or "redis-server"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                                      "--save", "", "--appendonly", "yes", "--appendfsync", self.appendfsync,
                                      "--protected-mode", "no"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout: float = 30.0) -> None:
        client = redis_lib.Redis.from_url(self.url, socket_timeout=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                client.ping()
                return
            except (redis_lib.ConnectionError, redis_lib.TimeoutError):  # down, or loading its AOF
                time.sleep(0.05)
        raise TimeoutError("redis-server did not answer")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.kills += 1

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

"""Keep one process of the ``Procfile`` running: restart it when it dies, or when it stops working.

    python -m service.supervise [--alive-file PATH --alive-within SECONDS] -- COMMAND ...

Every line of the ``Procfile`` runs under it (honcho itself restarts nothing: when one process
exits it stops them all). The command is started in a process group of its own; when it exits,
for whatever reason (a crash, SIGKILL, Celery's ``Unrecoverable error`` when Redis restarts under
load: kombu's Redis transport, restoring unacknowledged messages on a connection already released,
raises ``'NoneType' object has no attribute 'hostname'``), it is started again after a backoff
(1 s, doubling up to 30 s; back to 1 s once it has run for a minute). A command that exits with
``service.config.EX_CONFIG`` (78: its settings do not read, said in its one line) is not started again: the
supervisor exits with that status.

``--alive-file``: the command must keep touching that file (its path is passed in the environment
as ``SLOWSPADES_ALIVE_FILE``; ``workers.liveness`` touches it whenever the worker runs a task, and
has the worker queue itself a probe every few seconds). If the file is older than
``--alive-within`` seconds, the command is up but consuming nothing (a worker left connected to
nothing after a Redis restart): it is stopped (SIGTERM, SIGKILL 10 s later) and started again.

SIGTERM, SIGINT or SIGHUP to the supervisor are passed to the command and end the supervision.
A deployment under systemd (``Restart=always``) or another supervisor runs the same lines: the
liveness check is this module's, whatever restarts it.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

from . import logs, metrics
from .config import EX_CONFIG

ALIVE_ENV = "SLOWSPADES_ALIVE_FILE"


def _say(name: str, text: str) -> None:
    """A line on stderr: JSON unless SLOWSPADES_LOG_FORMAT=text (service.logs)."""
    print(logs.say(name, text, {"LOG_FORMAT": os.environ.get("SLOWSPADES_LOG_FORMAT", "")}), file=sys.stderr, flush=True)


class Supervisor:
    """Runs ``command`` until told to stop, restarting it when it exits or goes stale."""

    def __init__(self, command: list[str], alive_file: Path | None = None, alive_within: float = 90.0,
                 max_backoff: float = 30.0, name: str = "") -> None:
        self.command = command
        self.alive_file = alive_file
        self.alive_within = alive_within
        self.max_backoff = max_backoff
        self.name = name or Path(command[0]).name
        self.child: subprocess.Popen[bytes] | None = None
        self.stopping = False
        self.stop_signal = signal.SIGTERM
        self.told: int | None = None  # the pid the stop signal was passed to
        self.restarts = 0

    def _signal(self, signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        self.stop_signal = signal.Signals(signum)
        if self.child is not None and self.child.poll() is None:
            self._tell(self.child)

    def _tell(self, child: subprocess.Popen[bytes]) -> None:
        """Pass the stop signal to ``child``'s process group, once."""
        if self.told == child.pid:
            return
        self.told = child.pid
        try:
            os.killpg(child.pid, self.stop_signal)
        except ProcessLookupError:
            pass

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        if self.alive_file is not None:
            self.alive_file.parent.mkdir(parents=True, exist_ok=True)
            self.alive_file.touch()  # a fresh start has the whole window to show it works
            env[ALIVE_ENV] = str(self.alive_file)
        return subprocess.Popen(self.command, env=env, start_new_session=True)

    def _stale(self, started: float) -> bool:
        if self.alive_file is None or time.monotonic() - started < self.alive_within:
            return False
        try:
            age = time.time() - self.alive_file.stat().st_mtime
        except FileNotFoundError:
            return True
        return age > self.alive_within

    def _stop_child(self, child: subprocess.Popen[bytes]) -> None:
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(child.pid, sig)
            except ProcessLookupError:
                return
            try:
                child.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._signal)
        backoff = 1.0
        code = 0
        while not self.stopping:
            started = time.monotonic()
            self.child = child = self._start()
            why = "exited"
            while child.poll() is None and not self.stopping:
                if self._stale(started):
                    why = "no_sign_of_work"
                    _say(self.name, f"no sign of work for {self.alive_within:.0f} s: restarting it")
                    self._stop_child(child)
                    break
                time.sleep(0.5)
            if self.stopping:
                # The signal may have come while ``child`` was being started, before it was
                # ``self.child``: then the handler passed it to no one (or to the one that died).
                self._tell(child)
                try:
                    code = child.wait(30)
                except subprocess.TimeoutExpired:
                    _say(self.name, "still running 30 s after the stop signal: stopping it")
                    self._stop_child(child)
                    code = child.wait()
                break
            code = child.wait()
            if code == EX_CONFIG:  # its settings do not read (its one line above says which): no restart can help
                _say(self.name, f"exited with {code}: refused to start for its settings; not started again")
                break
            if time.monotonic() - started > 60:
                backoff = 1.0
            self.restarts += 1
            metrics.restarted(self.name, why)
            _say(self.name, f"exited with {code}; starting it again in {backoff:.0f} s (restart {self.restarts})")
            deadline = time.monotonic() + backoff
            while time.monotonic() < deadline and not self.stopping:
                time.sleep(0.1)
            backoff = min(self.max_backoff, backoff * 2)
        return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.supervise", description=__doc__.split("\n\n")[0])
    parser.add_argument("--alive-file", type=Path, default=None)
    parser.add_argument("--alive-within", type=float, default=90.0)
    parser.add_argument("--name", default="")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to run is needed (after --)")
    return Supervisor(command, args.alive_file, args.alive_within, name=args.name).run()


if __name__ == "__main__":
    sys.exit(main())

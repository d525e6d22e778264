"""``service.supervise``: every Procfile process is started again when it dies, or when it stops
showing signs of work; a SIGTERM to the supervisor ends both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]


def supervise(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "service.supervise", *args], cwd=ROOT,
                            stdout=open(tmp_path / "out.log", "ab"), stderr=subprocess.STDOUT)


def pids(starts: Path) -> list[int]:
    return [int(p) for p in starts.read_text().split()] if starts.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def child(starts: Path, seconds: int = 60) -> list[str]:
    """A command that records its pid (then becomes ``sleep``: the same process)."""
    return ["sh", "-c", f"echo $$ >> {starts}; exec sleep {seconds}"]


@pytest.mark.slow
def test_a_process_that_dies_is_started_again(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    sup = supervise(tmp_path, "--", *child(starts))
    try:
        wait_for(lambda: pids(starts), 10, "first start")
        os.kill(pids(starts)[0], signal.SIGKILL)  # as the chaos run kills the worker
        wait_for(lambda: len(pids(starts)) >= 2, 10, "a second start")
    finally:
        sup.send_signal(signal.SIGTERM)
        sup.wait(20)
    assert "exited with -9" in (tmp_path / "out.log").read_text()


@pytest.mark.slow
def test_a_process_that_stops_touching_its_alive_file_is_restarted(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    sup = supervise(tmp_path, "--alive-file", str(tmp_path / "alive"), "--alive-within", "2", "--",
                    *child(starts))  # never touches the file: up, but showing no work
    try:
        wait_for(lambda: len(pids(starts)) >= 2, 20, "a restart for staleness")
        assert not alive(pids(starts)[0])
    finally:
        sup.send_signal(signal.SIGTERM)
        sup.wait(20)
    assert "no sign of work" in (tmp_path / "out.log").read_text()


def test_sigterm_ends_the_supervision_and_the_process(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    sup = supervise(tmp_path, "--", *child(starts))
    wait_for(lambda: pids(starts), 10, "first start")
    sup.send_signal(signal.SIGTERM)
    sup.wait(20)
    wait_for(lambda: not alive(pids(starts)[0]), 10, "the process ended")
    assert len(pids(starts)) == 1  # and not started again


def test_a_stop_signal_that_comes_while_a_restart_is_starting_still_ends_the_new_process(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The signal handler passes SIGTERM to ``self.child``; a signal that comes between a restart's
    ``Popen`` and its assignment to ``self.child`` reached no one, and the supervisor then waited 30 s
    for a process that was never told to stop (the CI failure of ``test_a_process_that_dies...``)."""
    from service.supervise import Supervisor

    starts = tmp_path / "starts"
    sup = Supervisor(child(starts))
    start = sup._start

    def start_then_signal() -> subprocess.Popen[bytes]:
        started = start()
        wait_for(lambda: pids(starts), 10, "the child's start")
        sup._signal(signal.SIGTERM, None)  # before run() has made it ``self.child``
        return started

    sup._start = start_then_signal  # type: ignore[method-assign]
    code = sup.run()  # returns only once the child has ended
    assert code == -signal.SIGTERM
    assert not alive(pids(starts)[0])
    assert "after the stop signal" not in capsys.readouterr().err  # told at once, not stopped 30 s later

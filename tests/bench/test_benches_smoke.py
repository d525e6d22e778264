"""Every benchmark under ``bench/`` run at a tiny size (issue 44: ``bench/partitions.py`` failed on main after its
whole run, ``report()`` having gained an argument, and no test ran the benches). Each entry point is run as an
operator runs it (``python bench/<name>.py`` from the checkout) with arguments that keep it to a few seconds; it must
exit 0 and print its figures, the runs with faults their goals met (0 lost, 0 applied twice, 0 unsent, 0 rejected,
receipts 0 lost). A new entry point without a line here fails :func:`test_every_bench_entry_point_is_run_here`.

They take seconds (whole games, real servers and processes): marked ``slow``, run by the normal suite and CI, not by
the quick subset."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import netns

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

#: each entry point: its tiny arguments and a line its output must hold
SMOKE: dict[str, tuple[list[str], str]] = {
    "bot_moves": (["--seeds", "1", "--hands", "1", "--pairings", "2"], "moves of pimc, hard, pimc-2026-12: sha256"),
    "chaos": (["--games", "1", "--target", "100", "--seconds", "4", "--redis-kills", "1", "--worker-kills", "1",
               "--beat-kills", "1", "--min-gap", "0.5", "--max-gap", "1", "--worker-pool", "solo", "--seed", "1"],
              "moves lost: 0"),
    "commands": (["--games", "1", "--moves", "4"], "Redis commands a move"),
    "cost": (["1", "--hands", "1"], "SMS"),
    "engine": (["--seconds", "0.2", "--games", "2"], "complete hands/s"),
    "free_channels": (["1", "--hands", "1"], "in one tap"),
    "hot_paths": (["--before", ".", "--rounds", "1", "--small"], "after / before"),
    "load": (["--seconds", "1", "--rounds", "1", "--sessions", "2", "--threads", "2", "--finish", "0",
              "--web-workers", "1", "--web-threads", "2", "--worker-concurrency", "1", "--worker-pool", "solo"],
             "ratio to baseline"),
    "pace": (["1", "1", "--hands", "1", "--target", "100"], "most waits in one hand"),
    "page_pace": (["1", "--target", "100"], "SMS per hand"),
    "partitions": (["--games", "1", "--target", "100", "--each", "1", "--min-fault", "0.5", "--max-fault", "0.5",
                    "--min-gap", "0.2", "--max-gap", "0.2", "--seed", "1"], "moves lost: 0"),
    "profile_move": (["--moves", "5", "--top", "3"], "ncalls"),
    "replica_wait": (["--appends", "20", "--slices", "1"], "WAIT"),
    "segments": (["1"], "msgs/hand"),
    "trace_move": ([], "modules"),
}
#: what a run with faults must print besides (its goals)
GOALS = ("moves lost: 0", "moves applied twice: 0", "outbox entries unsent: 0", "outbox entries sent twice: 0",
         "games verify rejects: 0", "receipts lost (503: not even spooled): 0", "receipts answered otherwise: 0")


def entry_points() -> list[str]:
    """The benches run as programs: ``bench/*.py`` with a ``__main__`` block."""
    return sorted(p.stem for p in (ROOT / "bench").glob("*.py")
                  if re.search(r'^if __name__ == "__main__":', p.read_text(encoding="utf-8"), re.MULTILINE))


def test_every_bench_entry_point_is_run_here() -> None:
    assert entry_points() == sorted(SMOKE)


def run_bench(name: str) -> str:
    args, expected = SMOKE[name]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOWSPADES_")}  # as an operator's shell
    done = subprocess.run([sys.executable, f"bench/{name}.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=240)
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"bench/{name}.py {' '.join(args)} exited {done.returncode}:\n{out[-4000:]}"
    assert expected in out, out[-4000:]
    return out


def _figures(out: str) -> str:
    """The figure lines of a fault run, their padding squeezed (``   moves lost: 0`` -> ``moves lost: 0``)."""
    return "\n".join(line.strip() for line in out.splitlines())


@pytest.mark.parametrize("name", sorted(set(SMOKE) - {"chaos", "partitions"}))
def test_a_bench_runs_at_a_tiny_size(name: str) -> None:
    run_bench(name)


def test_the_chaos_run_meets_its_goals_at_a_tiny_size() -> None:
    figures = _figures(run_bench("chaos"))
    assert all(goal in figures for goal in GOALS), figures


@pytest.mark.xdist_group("partitions")  # never beside tests/service/test_partitions.py's namespaces
def test_the_partition_run_meets_its_goals_at_a_tiny_size() -> None:
    why = netns.available()
    if why is not None:
        pytest.skip(f"no network namespaces here: {why}")
    figures = _figures(run_bench("partitions"))
    assert all(goal in figures for goal in GOALS), figures

"""The arena command: win rates with a 95% confidence interval, decision times, processes, clean logs.

The logs it writes re-check against the rules (RULES.md sections 3-9, D10).
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from spades.arena import percentile, wilson_interval
from spades.cli import main as cli_main


@pytest.mark.parametrize("wins, games, low, high", [
    (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (5, 10, 0.2366, 0.7634), (380, 400, 0.9242, 0.9676),
])
def test_wilson_interval_known_values(wins: int, games: int, low: float, high: float) -> None:
    got = wilson_interval(wins, games)
    assert got == pytest.approx((low, high), abs=5e-4)


def test_percentile_by_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 0.5), percentile(values, 0.95), percentile(values, 1.0)) == (50.0, 95.0, 100.0)


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    path = tmp_path_factory.mktemp("arena") / "pimc.jsonl"
    result = CliRunner().invoke(cli_main, ["arena", "--games", "4", "--seed", "2", "--players", "pimc,basic",
                                           "--jobs", "2", "--max-hands", "2", "--events", str(path)])
    assert result.exit_code == 0, result.output
    return result.output, str(path)


@pytest.mark.slow  # the module's arena run: seconds
def test_arena_prints_win_rates_with_a_confidence_interval_and_decision_times(arena_run: tuple[str, str]) -> None:
    output, _ = arena_run
    assert "seed 2, hand cap 2, simultaneous draw, autoplay on, 2 processes" in output and "4 games, seats alternating" in output
    rows = {m.group(1): m for m in re.finditer(
        r"^(pimc|basic) +(\d+) +([\d.]+)% +\[([\d.]+)%, ([\d.]+)%\] +(-?[\d.]+)$", output, re.M)}
    assert set(rows) == {"pimc", "basic"}
    for row in rows.values():
        wins, rate, low, high = int(row.group(2)), float(row.group(3)), float(row.group(4)), float(row.group(5))
        assert rate == pytest.approx(100 * wins / 4, abs=0.05) and low <= rate <= high
    assert "time per decision (ms):" in output
    for name in ("pimc", "basic"):
        for phase in ("all", "card", "bid", "draw"):
            line = re.search(rf"^{name} +{phase} +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$", output, re.M)
            assert line, f"no {name} {phase} line in:\n{output}"
            moves, mean, p50, p95, top = int(line.group(1)), *map(float, line.groups()[1:])
            assert 0 <= mean <= top
            assert moves > 0 and p50 <= p95 <= top
    cpu = output[output.index("CPU time per decision (ms; this process, one core):"):]
    line = re.search(r"^pimc +card +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$", cpu, re.M)
    assert line and int(line.group(1)) > 0 and float(line.group(3)) <= float(line.group(4)) <= float(line.group(5))
    assert re.search(r"^wall time: [\d.]+ s$", output, re.M)


@pytest.mark.slow  # the module's arena run: seconds
def test_arena_logs_from_several_processes_replay_clean(arena_run: tuple[str, str]) -> None:
    _, path = arena_run
    result = CliRunner().invoke(cli_main, ["replay", path])
    assert result.exit_code == 0, result.output
    assert "4 games, 4 consistent, 0 inconsistent" in result.output
    games = re.findall(r"^(arena-2-\d+):", result.output, re.M)
    assert games == ["arena-2-1", "arena-2-2", "arena-2-3", "arena-2-4"]


def test_arena_jobs_must_be_at_least_one() -> None:
    result = CliRunner().invoke(cli_main, ["arena", "--games", "2", "--jobs", "0"])
    assert result.exit_code == 2 and "--jobs" in result.output

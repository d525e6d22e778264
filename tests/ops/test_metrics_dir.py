"""The metrics' multiprocess directory keeps to the live processes (issue 44): processes that count and exit leave
no file behind once a scrape has run, and every total they counted is still in it (a counter never goes back).
Real processes, each counting in ``PROMETHEUS_MULTIPROC_DIR`` as gunicorn's and Celery's do."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from service.metrics_files import FILE, alive

ROOT = Path(__file__).resolve().parents[2]
COUNT = ("from service import metrics; metrics.spooled(); metrics.webhook('sms', 'accepted', 0.01); "
         "metrics.beat_ticked()")
SCRAPE = "import sys; from service import metrics; sys.stdout.write(metrics.exposition().decode())"


def python(code: str, directory: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOWSPADES_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**env, "PROMETHEUS_MULTIPROC_DIR": str(directory)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def value(text: str, sample: str) -> float:
    match = re.search(rf"^{re.escape(sample)} (\S+)$", text, re.M)
    assert match, f"{sample} not in the scrape"
    return float(match.group(1))


def gone_pids(directory: Path) -> set[int]:
    """The processes that are gone and still have files in the directory."""
    return {pid for p in directory.glob("*.db") if (m := FILE.match(p.name)) and not alive(pid := int(m.group(3)))}


def test_gone_processes_leave_no_file_and_their_counts_stay(tmp_path: Path) -> None:
    for _ in range(5):
        python(COUNT, tmp_path)
    assert len(gone_pids(tmp_path)) == 5  # each left its files
    scrape = python(SCRAPE, tmp_path)
    assert value(scrape, "slowspades_spooled_messages_total") == 5.0
    assert value(scrape, 'slowspades_webhook_duration_seconds_count{channel="sms"}') == 5.0
    assert value(scrape, "slowspades_beat_last_tick_timestamp_seconds") > 1.7e9
    assert len(gone_pids(tmp_path)) == 1  # only the scraping process's own, gone since (folded at the next scrape)

    for _ in range(3):
        python(COUNT, tmp_path)
    scrape = python(SCRAPE, tmp_path)
    assert value(scrape, "slowspades_spooled_messages_total") == 8.0  # the totals keep growing: no reset
    assert value(scrape, 'slowspades_webhook_duration_seconds_count{channel="sms"}') == 8.0
    assert len(gone_pids(tmp_path)) == 1
    assert sorted(p.name for p in tmp_path.glob("*_archive.db")) == [
        "counter_archive.db", "gauge_max_archive.db", "histogram_archive.db"]
    assert len(list(tmp_path.glob("*.db"))) == 5  # the three archives and the last scraper's two

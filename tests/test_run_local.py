"""``scripts/run-local`` on a shared host (issue 45 case 13): a Redis that another project runs on the port the local
service would use is never written to; run-local says so and how to move (one variable, ``SLOWSPADES_LOCAL_PORT``).

Run in a network namespace of its own (``unshare -n``: its own loopback, nothing of the host's answers there and
nothing started there reaches the host), with a real ``redis-server`` playing the other project's."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
set -u
ip link set lo up
redis-server --port 8001 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$OTHER" \
  --pidfile "$OTHER/redis.pid" --logfile "$OTHER/redis.log"
for _ in $(seq 1 50); do redis-cli -p 8001 ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p 8001 set theirs 1 >/dev/null
timeout 60 "$ROOT/scripts/run-local" >"$OTHER/out" 2>&1
echo "rc=$?"
echo "keys=$(redis-cli -p 8001 dbsize)"
kill "$(cat "$OTHER/redis.pid")" 2>/dev/null
"""


@pytest.mark.skipif(shutil.which("unshare") is None or shutil.which("ip") is None, reason="needs unshare and ip")
def test_run_local_never_writes_into_another_projects_redis(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOWSPADES_")}
    env.update(ROOT=str(ROOT), OTHER=str(tmp_path))
    done = subprocess.run(["unshare", "-n", "bash", "-c", SCRIPT], env=env, capture_output=True, text=True,
                          timeout=120)
    said = (tmp_path / "out").read_text()
    assert "rc=1" in done.stdout, (done.stdout, done.stderr, said)  # it stopped, it did not run on their Redis
    assert "keys=1" in done.stdout, (done.stdout, said)  # their one key, nothing of ours
    assert "did not start" in said and "SLOWSPADES_LOCAL_PORT=8100" in said, said  # why, and how to move

"""The Redis settings that scripts/run-local and deploy/compose.yaml start their Redis with (``deploy/redis.conf``,
issue 44): a real ``redis-server`` started with that file has its append-only file on, no RDB snapshots beside it,
and never evicts a key to make room."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import redis as redis_lib

from tests.safety.redis_proc import RedisProc, free_port

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "redis.conf"


def test_a_redis_started_with_the_deployed_settings_keeps_an_aof_no_snapshot_and_evicts_nothing(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([shutil.which("redis-server") or "redis-server", str(CONF), "--port", str(port),
                             "--bind", "127.0.0.1", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        probe = RedisProc(tmp_path)
        probe.port = port
        probe.wait_ready()
        client = redis_lib.Redis(port=port)
        said = {k: client.config_get(k)[k] for k in ("appendonly", "appendfsync", "save", "maxmemory-policy")}
        assert said == {"appendonly": "yes", "appendfsync": "everysec", "save": "", "maxmemory-policy": "noeviction"}
        client.config_set("maxmemory", "1mb")  # full: a write is refused, nothing already there is dropped
        client.set("game", "kept")
        try:
            while True:
                client.set(f"filler:{client.dbsize()}", "x" * 10_000)
        except redis_lib.exceptions.OutOfMemoryError:
            pass
        assert client.get("game") == b"kept"
        assert (tmp_path / "appendonlydir").is_dir() and not (tmp_path / "dump.rdb").exists()
    finally:
        proc.terminate()
        proc.wait(10)
    assert not (tmp_path / "dump.rdb").exists()  # not even at shutdown


def test_run_local_and_compose_start_their_redis_with_it() -> None:
    assert '"$ROOT/deploy/redis.conf"' in (ROOT / "scripts" / "run-local").read_text()
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    assert '"redis-server", "/usr/local/etc/redis/redis.conf"' in compose
    assert "./redis.conf:/usr/local/etc/redis/redis.conf:ro" in compose

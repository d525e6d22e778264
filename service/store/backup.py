"""A backup of Redis' data and its restore (``slowspades backup`` / ``restore``, docs/operating.md, Backups).

The backup is Redis' own point-in-time snapshot, an RDB file, taken over the network as a replica's first sync
is (``redis-cli --rdb``, Debian's ``redis-tools``; the Redis takes it by a fork, as BGSAVE does, without stopping)
and checked with ``redis-check-rdb``. Every key of that moment is in it, consistent with every other: a game's
events, its meta and its outbox together.

The restore reads that file with a ``redis-server`` of its own (on a private unix socket, nothing persisted) and
copies every key of it, with its time to live, into the target Redis (DUMP and RESTORE): the target may be running
with its append-only file on (every restored key is written to it as any write is), remote, or a Redis Cluster. An
RDB file dropped into a Redis' directory is not loaded when that Redis starts with ``appendonly yes`` and no AOF
(Redis 7 starts empty and writes an empty AOF): this avoids that trap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import redis

from .base import Client

BATCH = 500


class BackupError(RuntimeError):
    """The backup or the restore could not be done (said in one line)."""


def _tool(name: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        raise BackupError(f"{name} not found: install Debian's redis-tools (redis-server for a restore)")
    return exe


def take_snapshot(url: str, path: Path, timeout: float = 3600.0) -> int:
    """Write the Redis at ``url``'s snapshot to ``path`` (atomically: a temporary file renamed when checked and
    fsync'd); returns its size in bytes. The password goes to ``redis-cli`` by its environment, not its arguments."""
    parts = urlparse(url)
    if parts.scheme not in ("redis", "rediss"):
        raise BackupError("a backup is taken from one Redis (redis:// or rediss://): back up each primary of a "
                          "cluster by its own URL")
    argv = [_tool("redis-cli"), "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 6379)]
    env = {k: v for k, v in os.environ.items() if k != "REDISCLI_AUTH"}
    if parts.username:
        argv += ["--user", unquote(parts.username)]
    if parts.password:
        env["REDISCLI_AUTH"] = unquote(parts.password)
    if parts.scheme == "rediss":
        argv.append("--tls")
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        done = subprocess.run([*argv, "--rdb", str(tmp)], env=env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0 or not tmp.exists():
            said = (done.stderr or done.stdout).strip().splitlines()
            raise BackupError(f"redis-cli could not take the snapshot: {said[-1] if said else done.returncode}")
        checked = subprocess.run([_tool("redis-check-rdb"), str(tmp)], capture_output=True, text=True, timeout=timeout)
        if checked.returncode != 0:
            raise BackupError("the snapshot taken does not read (redis-check-rdb): not kept")
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return path.stat().st_size
    finally:
        tmp.unlink(missing_ok=True)


def _wait_loaded(client: redis.Redis, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BackupError("the snapshot does not load (redis-server refused it): is it an RDB file?")
        try:
            client.ping()
            return
        except (redis.ConnectionError, redis.BusyLoadingError):
            time.sleep(0.05)
    raise BackupError("the snapshot did not load in time")


def is_empty(target: Client) -> bool:
    """Whether the target holds no key (every primary of a cluster)."""
    return not any(True for _ in target.scan_iter(count=100))


def restore_snapshot(path: Path, target: Client, db: int = 0, timeout: float = 3600.0) -> int:
    """Copy every key of database ``db`` of the snapshot at ``path`` into ``target`` (replacing a key of the same
    name), each with the time to live it had left; returns how many keys were restored."""
    if not Path(path).is_file():
        raise BackupError(f"no snapshot file {path}")
    with tempfile.TemporaryDirectory(prefix="slowspades-restore-") as work:
        shutil.copyfile(path, Path(work) / "dump.rdb")
        sock = str(Path(work) / "redis.sock")
        proc = subprocess.Popen([_tool("redis-server"), "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
                                 "--dir", work, "--dbfilename", "dump.rdb", "--appendonly", "no", "--save", "",
                                 "--databases", "16"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        source = redis.Redis(unix_socket_path=sock, db=db, socket_timeout=60)
        try:
            _wait_loaded(source, proc, timeout)
            restored = 0
            for keys in _batches(source):
                reads = source.pipeline(transaction=False)
                for key in keys:
                    reads.pttl(key)
                    reads.dump(key)
                answers = reads.execute()
                writes = target.pipeline(transaction=False)
                for key, ttl, value in zip(keys, answers[0::2], answers[1::2]):
                    if value is None or ttl == -2:  # gone meanwhile (an expiry)
                        continue
                    writes.restore(key, max(int(ttl), 0), value, replace=True)
                    restored += 1
                writes.execute()
            return restored
        finally:
            source.close()
            proc.terminate()
            proc.wait(30)


def _batches(source: redis.Redis) -> list[list[bytes]]:
    keys = list(source.scan_iter(count=1000))
    return [keys[i:i + BATCH] for i in range(0, len(keys), BATCH)]


class Snapshots:
    """Restores into the Redis this process talks to (the functions above, on its client): the operator's."""

    def __init__(self, r: Client) -> None:
        self.r = r

    def is_empty(self) -> bool:
        return is_empty(self.r)

    def restore(self, path: Path) -> int:
        """Copy every key of the snapshot ``path`` into this Redis (its database, for one server); returns how many."""
        db = int(self.r.connection_pool.connection_kwargs.get("db", 0)) if hasattr(self.r, "connection_pool") else 0
        return restore_snapshot(path, self.r, db=db)

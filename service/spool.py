"""The web process's local spool: inbound messages it answered 200, and Twilio delivery receipts it answered 204,
while Redis did not answer.

Twilio sends neither a messaging webhook nor a status callback again, so a text or a receipt answered with an
error is lost. When Redis cannot take a verified inbound message or receipt (down, restarting, loading its
append-only file), the web process writes it to ``SLOWSPADES_SPOOL_DIR`` instead (:meth:`Spool.put`: a temporary
file, ``fsync``, an atomic rename, ``fsync`` of the directory; only then does it answer), and hands it to Redis
once Redis answers (:meth:`Spool.drain`: as the webhook would have, :func:`service.web.install_spool`).

Who drains: the web processes of the same host, because the spool is on that host's disk and
no other process can see it. Each web process drains on its next request and, while its spool
is not empty, from a background thread every ``interval`` seconds, so the hand-over does not wait
for another text; a web process that starts hands over what a stopped one left.

Exactly once: a file is taken by an atomic rename to a name of its taker (two processes never
hand over the same file at once; a taken file whose taker died is taken again after
``stale_s``), and the hand-over itself is idempotent: ``Store.record_inbound`` claims the message
id once, so a file handed over twice (its taker died between the record and the unlink) is
recorded once and handled once; ``Store.record_receipt`` moves an entry's status forward once, and the
receipt task it may queue again does its work once.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

SUFFIX = ".json"
TAKEN = ".taken-"


class SpoolError(OSError):
    """The message could not be made durable on the local disk either."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Spool:
    """A directory of inbound messages and receipts waiting for Redis, one JSON file each."""

    def __init__(self, directory: str | os.PathLike[str], stale_s: float = 60.0) -> None:
        self.dir = Path(directory)
        self.stale_s = stale_s

    def put(self, record: dict[str, Any]) -> Path:
        """Write ``record`` durably (fsync'd file and directory) and return its path; raises
        :class:`SpoolError` if the disk cannot take it."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            name = f"{time.time_ns():020d}-{uuid.uuid4().hex}"
            tmp = self.dir / f".{name}.tmp"
            data = json.dumps(record, separators=(",", ":")).encode()
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            final = self.dir / (name + SUFFIX)
            os.rename(tmp, final)
            _fsync_dir(self.dir)
            return final
        except OSError as exc:
            raise SpoolError(f"could not spool to {self.dir}: {exc}") from exc

    def writable(self) -> bool:
        """Whether :meth:`put` can keep a message now: a probe file is written, fsync'd and removed."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            probe = self.dir / f".probe-{os.getpid()}-{uuid.uuid4().hex}.tmp"
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, b"{}")
                os.fsync(fd)
            finally:
                os.close(fd)
            os.unlink(probe)
            return True
        except OSError:
            return False

    def pending(self) -> list[Path]:
        """The files waiting (oldest first), and taken ones whose taker seems dead."""
        try:
            entries = list(os.scandir(self.dir))
        except OSError:  # none yet, or the disk itself failing: nothing to hand over from here
            return []
        now = time.time()
        out = []
        for e in entries:
            if e.name.endswith(SUFFIX) and not e.name.startswith("."):
                out.append(Path(e.path))
            elif TAKEN in e.name:
                try:
                    if now - e.stat().st_mtime > self.stale_s:
                        out.append(Path(e.path))
                except FileNotFoundError:
                    pass
        return sorted(out, key=lambda p: p.name)

    def __len__(self) -> int:
        return len(self.pending())

    def drain(self, hand_over: Callable[[dict[str, Any]], None], limit: int = 1000) -> int:
        """Hand each waiting message to ``hand_over`` (which raises if Redis still does not answer: the
        message then stays for the next drain); returns how many were handed over."""
        done = 0
        for path in self.pending()[:limit]:
            base = path.name.split(TAKEN)[0]
            if not base.endswith(SUFFIX):
                base += SUFFIX
            taken = self.dir / f"{base}{TAKEN}{os.getpid()}-{uuid.uuid4().hex[:8]}"
            try:
                os.rename(path, taken)  # atomic: one taker only
                os.utime(taken)
            except FileNotFoundError:
                continue  # another process took it
            try:
                record = json.loads(taken.read_bytes())
            except (OSError, ValueError):
                log.error("spool: unreadable file %s kept aside", taken)
                os.rename(taken, self.dir / f".bad-{taken.name}")
                continue
            try:
                hand_over(record)
            except Exception:
                os.rename(taken, self.dir / base)  # back, for the next drain
                raise
            os.unlink(taken)
            done += 1
        if done:
            _fsync_dir(self.dir)
        return done


class Drainer:
    """Drains a spool from a background thread while it is not empty (one thread per process)."""

    def __init__(self, spool: Spool, hand_over: Callable[[dict[str, Any]], None], interval: float = 1.0) -> None:
        self.spool = spool
        self.hand_over = hand_over
        self.interval = interval
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last_try = 0.0

    def try_now(self) -> int:
        """One drain, if the spool holds anything and none ran in the last ``interval`` (cheap otherwise)."""
        now = time.monotonic()
        if now - self._last_try < self.interval:
            return 0
        self._last_try = now
        if not self.spool.pending():
            return 0
        try:
            n = self.spool.drain(self.hand_over)
        except Exception as exc:  # noqa: BLE001 - Redis still away (or the disk): the files stay; the thread tries again
            log.warning("spool: hand-over to Redis failed, %d message(s) kept on disk: %s", len(self.spool), exc)
            self.wake()
            return 0
        if n:
            log.warning("spool: %d message(s) handed over to Redis", n)
        return n

    def wake(self) -> None:
        """Make sure the background thread runs (it ends by itself once the spool is empty)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, name="spool-drainer", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while self.spool.pending():
            time.sleep(self.interval)
            try:
                n = self.spool.drain(self.hand_over)
                if n:
                    log.warning("spool: %d message(s) handed over to Redis", n)
            except Exception as exc:  # noqa: BLE001 - Redis still away: try again later
                log.info("spool: Redis still not answering: %s", exc)

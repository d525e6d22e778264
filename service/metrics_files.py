"""The multiprocess directory of ``prometheus_client`` (``PROMETHEUS_MULTIPROC_DIR``) kept to the live processes.

Every process writes its counts to files of its own (``counter_<pid>.db``, ``histogram_<pid>.db``,
``gauge_<mode>_<pid>.db``) and never removes them: a host whose processes come and go (gunicorn's workers, Celery's
pool, the supervisor's restarts) piled them up (84 files for 10 live processes), and each scrape read them all.
:func:`fold_dead` folds the files of processes that are gone into one file per kind, ``<kind>_archive.db``, and
removes theirs: counters and histograms are added (so every total keeps growing, as Prometheus expects of a counter),
``max``/``min``/``mostrecent`` gauges keep their extreme or latest value, and the other gauges of a dead process
(what it held: ``all``, ``sum``, the ``live*`` modes) are dropped, as ``mark_process_dead`` does for the live ones.

A process is gone when no process of this host has its pid (``os.kill(pid, 0)``). Folding and reading are done
under a lock file in the directory (:func:`locked`): exclusive to fold, shared to read, so a scrape never reads a
file being folded away (``MultiProcessCollector`` fails on a counter file that vanished after its glob).
"""

from __future__ import annotations

import fcntl
import glob
import os
import re
from contextlib import contextmanager
from typing import Iterator

from prometheus_client.mmap_dict import MmapedDict

LOCK_NAME = ".fold.lock"
ARCHIVE = "archive"
#: a process's file: kind (counter, histogram, gauge), a gauge's mode, the pid
FILE = re.compile(r"^(counter|histogram|gauge)_(?:([a-z]+)_)?(\d+)\.db$")
#: how the values of a gone process join the archive, by gauge mode (counters and histograms: added)
KEPT_GAUGES = {"max": max, "min": min}


@contextmanager
def locked(directory: str, exclusive: bool) -> Iterator[None]:
    """The directory's lock: exclusive to fold, shared to read."""
    fd = os.open(os.path.join(directory, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def alive(pid: int) -> bool:
    """Whether a process of this host has ``pid``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


def fold_dead(directory: str) -> int:
    """Fold the files of the gone processes of ``directory`` into its archive files; returns how many were folded."""
    folded = 0
    with locked(directory, exclusive=True):
        for path in sorted(glob.glob(os.path.join(directory, "*.db"))):
            match = FILE.match(os.path.basename(path))
            if match is None or alive(int(match.group(3))):
                continue
            kind, mode = match.group(1), match.group(2)
            if kind != "gauge":
                _merge(path, os.path.join(directory, f"{kind}_{ARCHIVE}.db"), "sum")
            elif mode in KEPT_GAUGES or mode == "mostrecent":
                _merge(path, os.path.join(directory, f"gauge_{mode}_{ARCHIVE}.db"), mode)
            os.remove(path)
            folded += 1
    return folded


def _merge(dead: str, archive_path: str, how: str) -> None:
    """Add (``sum``), keep the extreme (``max``, ``min``) or the latest (``mostrecent``) of each value of ``dead``'s
    file in the archive's."""
    archive = MmapedDict(archive_path)
    try:
        held = {key: (value, ts) for key, value, ts in archive.read_all_values()}
        for key, value, timestamp, _pos in MmapedDict.read_all_values_from_file(dead):
            if key in held:
                before, before_ts = held[key]
                if how == "sum":
                    value = before + value
                elif how == "mostrecent":
                    value, timestamp = (value, timestamp) if timestamp >= before_ts else (before, before_ts)
                else:
                    value = KEPT_GAUGES[how](before, value)
            archive.write_value(key, value, timestamp)
            held[key] = (value, timestamp)
    finally:
        archive.close()

"""``slowspades backup FILE`` and ``slowspades restore FILE``: Redis' data to a snapshot file and back
(:mod:`service.store.backup`; the procedure and what each copy loses: docs/operating.md, Backups)."""

from __future__ import annotations

from pathlib import Path

import click

from ..store.backup import BackupError, take_snapshot
from .common import emit, fail, json_option, redis_option, services


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_option
@redis_option
def backup(file: Path, as_json: bool, redis_url: str | None) -> None:
    """Write a point-in-time snapshot of the service's Redis (an RDB file, checked) to FILE."""
    svc = services(redis_url)
    try:
        size = take_snapshot(str(svc.config["REDIS_URL"]), file)
    except BackupError as exc:
        fail(str(exc), code=1, as_json=as_json)
    shown = svc.gauges.described()
    emit({"file": str(file), "bytes": size, "redis": shown}, as_json, f"backup of {shown}: {file} ({size} bytes)")


@click.command("restore")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--replace", is_flag=True, help="Restore into a Redis that holds keys already (same names replaced).")
@json_option
@redis_option
def restore(file: Path, replace: bool, as_json: bool, redis_url: str | None) -> None:
    """Copy every key of the snapshot FILE (``slowspades backup``) into the service's Redis, which should be empty.
    Then, before the service takes traffic: ``slowspades games verify --all`` and ``slowspades players
    forget-ledger``."""
    svc = services(redis_url)
    shown = svc.gauges.described()
    if not replace and not svc.snapshots.is_empty():
        fail(f"{shown} holds keys already: restore into an empty Redis (or --replace)", as_json=as_json)
    try:
        keys = svc.snapshots.restore(file)
    except BackupError as exc:
        fail(str(exc), code=1, as_json=as_json)
    emit({"file": str(file), "keys": keys, "redis": shown}, as_json,
         f"restored {keys} keys from {file} into {shown}; next: slowspades games verify --all, "
         "then slowspades players forget-ledger")

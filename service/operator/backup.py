"""``slowspades backup FILE`` and ``slowspades restore FILE``: Redis' data to a snapshot file and back
(:mod:`service.store.backup`; the procedure and what each copy loses: docs/operating.md, Backups)."""

from __future__ import annotations

from pathlib import Path

import click

from ..store.backup import BackupError, is_empty, restore_snapshot, take_snapshot
from ..store.client import describe
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
    emit({"file": str(file), "bytes": size, "redis": describe(svc.redis)}, as_json,
         f"backup of {describe(svc.redis)}: {file} ({size} bytes)")


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
    if not replace and not is_empty(svc.redis):
        fail(f"{describe(svc.redis)} holds keys already: restore into an empty Redis (or --replace)", as_json=as_json)
    db = int(svc.redis.connection_pool.connection_kwargs.get("db", 0)) if hasattr(svc.redis, "connection_pool") else 0
    try:
        keys = restore_snapshot(file, svc.redis, db=db)
    except BackupError as exc:
        fail(str(exc), code=1, as_json=as_json)
    emit({"file": str(file), "keys": keys, "redis": describe(svc.redis)}, as_json,
         f"restored {keys} keys from {file} into {describe(svc.redis)}; next: slowspades games verify --all, "
         "then slowspades players forget-ledger")

"""``slowspades migrate-keys``: a Redis of the layout before issue 13 (global keys) moved to the sharded one."""

from __future__ import annotations

import click

from .common import emit, json_option, redis_option, redis_shown, services


@click.command("migrate-keys")
@json_option
@redis_option
def migrate_keys(as_json: bool, redis_url: str | None) -> None:
    """Move the old global keys (ss:due, outbox:dirty, in:pending, ss:names, outbox:local, ...) into their
    shards (docs/scaling.md); run once with the beat stopped. Running it again moves nothing."""
    svc = services(redis_url)
    moved = svc.store.migrate_legacy()
    lines = [f"Redis: {redis_shown(svc)}"] + [f"{key:<18} {n} moved" for key, n in moved.items()]
    emit({"redis": redis_shown(svc), "moved": moved}, as_json, "\n".join(lines))

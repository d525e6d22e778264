"""``slowspades migrate-keys``: a Redis of an older layout moved to this one: the global keys before issue 13 into
their shards, the players' life and numbers hashes before issue 21 into their records, the games' life hashes into
their metas, the inbound records kept as hashes into strings."""

from __future__ import annotations

import click

from .common import emit, json_option, redis_option, redis_shown, services


@click.command("migrate-keys")
@json_option
@redis_option
def migrate_keys(as_json: bool, redis_url: str | None) -> None:
    """Move the old global keys (ss:due, outbox:dirty, in:pending, ss:names, outbox:local, ...) into their
    shards (docs/scaling.md), each player's {p:<address>}:life and :nums hashes into their record and each game's
    {g:<id>}:life hash into its meta, and each inbound record kept as a hash into the JSON string it is now; run once
    with the beat and workers stopped, before starting the new code. Running it again moves nothing."""
    svc = services(redis_url)
    moved = svc.store.migrate_legacy()
    lines = [f"Redis: {redis_shown(svc.gauges)}"] + [f"{key:<22} {n} moved" for key, n in moved.items()]
    emit({"redis": redis_shown(svc.gauges), "moved": moved}, as_json, "\n".join(lines))

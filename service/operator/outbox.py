"""``slowspades outbox list | resend ID``: every message the service sent or will send, and sending one again."""

from __future__ import annotations

import click
from flask import Flask

from .. import celery_init_app
from ..delivery import deliver
from ..receipts import provider_code
from ..send_errors import TransientSendError
from ..store import game_owner, player_owner
from .common import emit, fail, json_option, normalise, redis_option, redis_shown, services, when


@click.group()
def outbox() -> None:
    """The outbox: every message the service sent or will send, and its delivery status."""


@outbox.command("list")
@click.option("--status", type=click.Choice(["queued", "sending", "sent", "delivered", "failed"]), default=None)
@click.option("--game", "game_id", default=None, help="Only the messages of this game.")
@click.option("--to", "to", default=None, help="Only the messages to this address.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@json_option
@redis_option
def outbox_list(status: str | None, game_id: str | None, to: str | None, limit: int, as_json: bool,
                redis_url: str | None) -> None:
    """Outbox entries, most recently updated first: status, the provider's code of the last receipt (with the
    retries of a temporary failure: ``30003 x2``), and whether the recipient is unreachable."""
    svc = services(redis_url)
    owners = [game_owner(game_id)] if game_id else svc.store.outbox_owners()
    if to and not game_id:
        owners = [o for o in owners if o.startswith("g:")] + [player_owner(normalise(svc.config, to))]
    target = normalise(svc.config, to) if to else None
    entries = [e for o in owners for e in svc.store.outbox_entries(o)]
    entries = [e for e in entries if (status is None or e["status"] == status)
               and (target is None or e.get("to") == target)]
    entries.sort(key=lambda e: (e["updated_ms"], e["id"]), reverse=True)
    entries = entries[:limit]
    addresses = list(dict.fromkeys(str(e.get("to", "")) for e in entries))
    unreachable = dict(zip(addresses, svc.reach.unreachable_many(addresses)))
    for e in entries:  # the provider's code of the last receipt, retries of temporary failures, the recipient
        e["code"] = provider_code(e.get("error"))
        e["unreachable"] = unreachable.get(str(e.get("to", "")), "")
    lines = [f"Redis: {redis_shown(svc.gauges)}", f"{'ID':<30} {'STATUS':<9} {'CODE':<10} {'CHANNEL':<7} {'TO':<24} "
             f"{'UPDATED':<21} BODY"]
    for e in entries:
        body = " ".join(str(e.get("body", "")).split())
        code = e["code"] + (f" x{e['tries']}" if e.get("tries") else "")
        lines.append(f"{e['id']:<30} {e['status']:<9} {code:<10} {e.get('channel', ''):<7} {e.get('to', ''):<24} "
                     f"{when(e['updated_ms']):<21} {body[:60] + ('...' if len(body) > 60 else '')}"
                     + (f"  [{e['error']}]" if e.get("error") else "")
                     + (f"  (unreachable: {e['unreachable']})" if e["unreachable"] else ""))
    if not entries:
        lines.append("(no messages)")
    emit({"redis": redis_shown(svc.gauges), "entries": entries}, as_json, "\n".join(lines))


@outbox.command("resend")
@click.argument("outbox_id")
@click.option("--force", is_flag=True, help="Even if a worker is sending it right now.")
@click.option("--queue", "via_worker", is_flag=True, help="Hand it to the worker instead of sending from here.")
@json_option
@redis_option
def outbox_resend(outbox_id: str, force: bool, via_worker: bool, as_json: bool, redis_url: str | None) -> None:
    """Send an outbox entry again (a failed one, or one a player says never arrived)."""
    svc = services(redis_url)
    try:
        before = svc.store.requeue(outbox_id, int(svc.config["SEND_LEASE"]), force)
    except ValueError as exc:
        fail(str(exc), as_json=as_json)
    if before == "missing":
        fail(f"no outbox entry {outbox_id}", as_json=as_json)
    if before == "busy":
        fail(f"{outbox_id} is being sent right now (use --force to send it again anyway)", 1, as_json)
    if via_worker:
        app = Flask("slowspades-cli")
        app.config.update(svc.config)
        celery_init_app(app).send_task("workers.tasks.deliver", args=[outbox_id])
        status = "queued"
    else:
        try:
            status = svc.inject(deliver)(outbox_id)
        except TransientSendError as exc:
            status = f"queued (provider unavailable: {exc}; the sweep will retry)"
    entry = svc.store.outbox_entry(outbox_id)
    emit({"id": outbox_id, "was": before, "status": entry["status"] if entry else status, "entry": entry},
         as_json, f"{outbox_id}: was {before}, now {status}")

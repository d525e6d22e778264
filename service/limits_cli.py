"""``slowspades limits status``: the operator's view of the abuse limits (today's SMS against the cap)."""

from __future__ import annotations

import json

import click

from . import daily_cap, limits
from .operator.common import json_option, redis_option, services


@click.group("limits")
def limits_group() -> None:
    """The abuse limits (service.limits): flood, invitations, SMS countries, the daily SMS cap."""


@limits_group.command("status")
@json_option
@redis_option
def limits_status(as_json: bool, redis_url: str | None) -> None:
    """Today's outgoing SMS against SLOWSPADES_SMS_DAILY_CAP, and every limit's setting."""
    svc = services(redis_url)
    line = daily_cap.status_line(svc.config, svc.store)
    settings = {name: limits.setting(svc.config, name) for name in limits.SETTINGS}
    if as_json:
        click.echo(json.dumps({"sms": line, "settings": settings}))
        return
    click.echo(line)
    for name, value in settings.items():
        click.echo(f"  SLOWSPADES_{name}={value}")

"""``slowspades telegram set-webhook``: tell Telegram where the bot's updates go (``setWebhook``), with the secret
every update must then carry (``SLOWSPADES_TELEGRAM_SECRET``, checked by ``POST /telegram``)."""

from __future__ import annotations

import re

import click

from ..config import load_config
from ..telegram import BotApiError, redacted, set_webhook

#: What Telegram takes as a ``secret_token``: 1 to 256 of these
SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


@click.group("telegram")
def telegram_group() -> None:
    """The Telegram bot (service.telegram, docs/channels.md#telegram)."""


@telegram_group.command("set-webhook")
@click.option("--url", default="", help="The webhook's URL (default: SLOWSPADES_PUBLIC_BASE_URL + /telegram).")
def set_webhook_command(url: str) -> None:
    """setWebhook: the bot's updates (messages and button taps) to /telegram, with SLOWSPADES_TELEGRAM_SECRET."""
    cfg = load_config()
    if not cfg.get("TELEGRAM_BOT_TOKEN"):
        raise click.ClickException("SLOWSPADES_TELEGRAM_BOT_TOKEN is not set")
    if not SECRET.match(str(cfg.get("TELEGRAM_SECRET") or "")):
        raise click.ClickException("SLOWSPADES_TELEGRAM_SECRET must be 1 to 256 of A-Z a-z 0-9 _ -")
    target = url or f"{str(cfg['PUBLIC_BASE_URL']).rstrip('/')}/telegram"
    if not target.startswith("https://"):
        raise click.ClickException(f"Telegram sends updates to an https:// URL only, not {target}")
    try:
        set_webhook(cfg, target)
    except BotApiError as exc:
        raise click.ClickException(redacted(str(exc), str(cfg["TELEGRAM_BOT_TOKEN"]))) from None
    click.echo(f"webhook set: {target} (updates: messages and button taps; the secret checked on each)")

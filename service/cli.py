"""The ``slowspades`` command line: the engine's arena and replay, and the operator's commands."""

from __future__ import annotations

import click

from spades.cli import arena, replay

from .limits_cli import limits_group
from .operator import games, outbox, players
from .operator.migrate import migrate_keys
from .operator.telegram import telegram_group


@click.group()
def main() -> None:
    """slowspades: two-player Spades by SMS and email."""


main.add_command(arena)
main.add_command(replay)
main.add_command(games)
main.add_command(outbox)
main.add_command(players)
main.add_command(migrate_keys)  # issue 13: the old global keys into their shards

main.add_command(limits_group)  # issue 15: slowspades limits status
main.add_command(telegram_group)  # issue 43: slowspades telegram set-webhook

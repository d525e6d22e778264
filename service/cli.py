"""The ``slowspades`` command line: the engine's arena and replay, and the operator's commands.

Its failures are one line on stderr, never a traceback: a setting that does not read (exit 2), Redis not answering
(exit 3). ``slowspades --version`` prints the installed version.
"""

from __future__ import annotations

from typing import Any

import click

from spades.cli import arena, replay

from .config import SettingsError
from .limits_cli import limits_group
from .operator import games, outbox, players
from .operator.backup import backup, restore
from .operator.migrate import migrate_keys
from .operator.telegram import telegram_group
from .store import UNREACHABLE

EXIT_SETTINGS = 2
EXIT_REDIS = 3


class OneLineErrors(click.Group):
    """A group whose commands fail in one line: a bad setting, or a Redis that does not answer."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SettingsError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(EXIT_SETTINGS)
        except UNREACHABLE as exc:
            click.echo(f"error: Redis does not answer ({type(exc).__name__}): is it running, and are "
                       "SLOWSPADES_REDIS_URL or --redis-url right?", err=True)
            ctx.exit(EXIT_REDIS)


@click.group(cls=OneLineErrors)
@click.version_option(package_name="slowspades", prog_name="slowspades")
def main() -> None:
    """slowspades: two-player Spades by SMS and email."""


main.add_command(arena)
main.add_command(replay)
main.add_command(games)
main.add_command(outbox)
main.add_command(players)
main.add_command(migrate_keys)  # issue 13: the old global keys into their shards
main.add_command(backup)  # issue 44: Redis' data to a snapshot file, and back
main.add_command(restore)

main.add_command(limits_group)  # issue 15: slowspades limits status
main.add_command(telegram_group)  # issue 43: slowspades telegram set-webhook

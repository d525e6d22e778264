"""The ``slowspades`` command line: the engine's arena and replay, and the operator's commands."""

from __future__ import annotations

import click

from spades.cli import arena, replay

from .operator import games, outbox, players


@click.group()
def main() -> None:
    """slowspades: two-player Spades by SMS and email."""


main.add_command(arena)
main.add_command(replay)
main.add_command(games)
main.add_command(outbox)
main.add_command(players)

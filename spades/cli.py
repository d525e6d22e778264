"""The engine's command line: ``arena`` (bots play each other) and ``replay`` (audit an event file).

Both are click commands; ``service/cli.py`` registers them in the ``slowspades`` console
script, and ``python -m spades`` runs them without the service.
"""

from __future__ import annotations

import json
import sys
import time
from functools import partial
from typing import IO

import click

from . import bots
from .arena import run_arena
from .events import HouseRules
from .replay import ReplayError, read_events, verify_log, write_event


@click.command()
@click.option("--games", "-n", type=click.IntRange(min=1), default=100, show_default=True, help="Games to play.")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed for every shuffle and bot.")
@click.option("--players", "-p", default="basic,random", show_default=True,
              help=f"Two strategies, comma-separated ({', '.join(bots.names())}).")
@click.option("--max-hands", type=click.IntRange(min=1), default=200, show_default=True,
              help="Stop a game that has not ended after this many hands.")
@click.option("--draw", type=click.Choice(["simultaneous", "alternating"]), default="simultaneous",
              show_default=True, help="The draw: both players at their own pace, or strict alternation (RULES D11).")
@click.option("--autoplay/--no-autoplay", "auto", default=True, show_default=True,
              help="Forced cards and the play-out of a decided hand play themselves.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Play the games in this many processes.")
@click.option("--duplicate", is_flag=True, default=False,
              help="Play every deal twice with the seats swapped (an even number of games).")
@click.option("--tune", default=None, metavar="JSON",
              help='Trial settings for the first player (pimc or hard), e.g. \'{"bid_samples": 96}\'.')
@click.option("--events", "events_file", type=click.File("w"), default=None,
              help="Write every event of every game to this file as JSON lines.")
def arena(games: int, seed: int, players: str, max_hands: int, draw: str, auto: bool, jobs: int,
          duplicate: bool, tune: str | None, events_file: IO[str] | None) -> None:
    """Play GAMES complete games between two strategies, swapping seats each game.

    Prints each player's wins and win rate with its 95% confidence interval (Wilson), and
    each strategy's time per decision (mean, p50, p95, max; all moves, then by phase).
    With --duplicate every deal is played twice, the seats swapped, so that the luck of the
    draw cancels; it also prints each player's points per hand less the opponent's, with a 95%
    interval on the per-deal paired differences.
    """
    if duplicate and games % 2:
        raise click.BadParameter("a duplicate run plays each deal twice: give an even number", param_hint="--games")
    names = [p.strip() for p in players.split(",")]
    if len(names) != 2 or not all(names):
        raise click.BadParameter("give two strategies, e.g. basic,random", param_hint="--players")
    for name in names:
        if name not in bots.names():
            raise click.BadParameter(f"unknown strategy {name!r}: {', '.join(bots.names())}", param_hint="--players")
    overrides = None
    if tune is not None:
        try:
            overrides = json.loads(tune)
            bots.get(names[0], seed=0, tune=overrides)
        except (ValueError, TypeError) as exc:
            raise click.BadParameter(str(exc), param_hint="--tune") from None
    on_event = partial(write_event, events_file) if events_file is not None else None
    rules = HouseRules(simultaneous_draw=draw == "simultaneous")
    started = time.perf_counter()
    result = run_arena(names, games, seed, max_hands, on_event=on_event, jobs=jobs, rules=rules, auto=auto,
                       duplicate=duplicate, tune=overrides)
    click.echo(f"seed {seed}, hand cap {max_hands}, {draw} draw, autoplay {'on' if auto else 'off'}, "
               f"{jobs} process{'es' if jobs > 1 else ''}{', duplicate' if duplicate else ''}")
    if overrides:
        click.echo(f"{names[0]} tuned: {json.dumps(overrides, separators=(',', ':'))}")
    click.echo(result.report())
    click.echo(f"wall time: {time.perf_counter() - started:.1f} s")


@click.command()
@click.argument("file", type=click.File("r"))
def replay(file: IO[str]) -> None:
    """Re-fold every game in FILE, re-check every event against the rules, print each result.

    Exits with status 1 if any game is inconsistent.
    """
    bad = 0
    logs = read_events(file)
    for log in logs:
        if log.error:
            click.echo(f"{log.game_id}: INCONSISTENT: {log.error}")
            bad += 1
            continue
        try:
            game = verify_log(log.events)
        except ReplayError as exc:
            click.echo(f"INCONSISTENT: {exc}")
            bad += 1
            continue
        score = f"{game.scores[0]} to {game.scores[1]}"
        hands = len(game.history)
        if game.winner is None:
            click.echo(f"{log.game_id}: {score} after {hands} hands, unfinished")
        else:
            click.echo(f"{log.game_id}: {score} after {hands} hands, seat {game.winner} wins ({game.end_reason})")
    click.echo(f"{len(logs)} games, {len(logs) - bad} consistent, {bad} inconsistent")
    if bad:
        sys.exit(1)


@click.group()
def main() -> None:
    """The slowspades engine: arena and replay."""


main.add_command(arena)
main.add_command(replay)

"""The arena: complete games between two strategies, seats swapped every game.

:func:`play_game` plays one game through the full path (view -> strategy -> command ->
:func:`spades.game.decide` -> events -> :meth:`spades.game.Game.apply`); :func:`run_arena`
plays many (in several processes if asked) and sums them up: wins with a 95% confidence
interval (Wilson's score interval) and each strategy's time per decision. Everything random
comes from seeded dealers and strategies, and game ``n`` depends only on the seed and ``n``, so
the same arguments always give the same games, whatever the number of processes.

A *duplicate* run (``duplicate=True``) plays every deal twice, games ``2k`` and ``2k + 1``, with
the seats swapped: the same first player and, hand by hand, the same decks
(:class:`spades.dealer.DuplicateDealer`), so that what one player was dealt in one game the
other is dealt in the other, and the luck of the draw cancels. It also reports points per hand
with a 95% interval computed on the per-deal paired differences.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import partial
from multiprocessing import get_context
from typing import Any, Callable, Mapping, Sequence

from . import bots
from .autoplay import autoplay
from .commands import Command
from .dealer import Dealer, DuplicateDealer
from .events import Event, HouseRules
from .game import OVER, Game, PlayerView, decide, fold, new_game, view

#: The phases decision times are reported for, and how the report names them.
TIMED_PHASES = (("play", "card"), ("bid", "bid"), ("exchange", "exchange"), ("draw", "draw"))


def wilson_interval(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% (``z`` = 1.96) Wilson score interval for a win rate of ``wins`` out of ``games``."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, by the nearest rank."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


class TimedStrategy:
    """Wraps a strategy and records how long each of its decisions takes, by phase: wall-clock time
    and the CPU time of this process (one core, whatever else the machine is doing)."""

    def __init__(self, strategy: bots.Strategy) -> None:
        self.strategy = strategy
        self.name = strategy.name
        self.times: dict[str, list[float]] = {}
        self.cpu_times: dict[str, list[float]] = {}

    def choose(self, player_view: PlayerView) -> Command:
        start, cpu = time.perf_counter(), time.process_time()
        command = self.strategy.choose(player_view)
        self.times.setdefault(player_view.phase, []).append(time.perf_counter() - start)
        self.cpu_times.setdefault(player_view.phase, []).append(time.process_time() - cpu)
        return command


@dataclass
class GameResult:
    """One arena game. ``sides[seat]`` is the index (0 or 1) in the arena's players of who sat there."""

    game_id: str
    sides: tuple[int, int]
    winner: int | None  # the winning seat; None if stopped at the hand cap
    scores: tuple[int, int]  # by seat
    hands: int
    capped: bool
    times: tuple[dict[str, list[float]], dict[str, list[float]]] = ({}, {})  # by side, by phase: seconds
    cpu_times: tuple[dict[str, list[float]], dict[str, list[float]]] = ({}, {})  # the same, CPU seconds
    deal: int | None = None  # in a duplicate run, the deal (0, 1, ...) this game is one of the two plays of

    @property
    def winner_side(self) -> int | None:
        return None if self.winner is None else self.sides[self.winner]

    def side_score(self, side: int) -> int:
        return self.scores[self.sides.index(side)]

    def margin(self, side: int) -> int:
        """``side``'s final score less the other side's."""
        return self.side_score(side) - self.side_score(1 - side)


def normal_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95% (``z`` = 1.96) normal interval, mean +- z * sd / sqrt(n)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, -math.inf, math.inf
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return mean, mean - half, mean + half


@dataclass
class ArenaResult:
    """The sum of an arena run."""

    players: tuple[str, str]
    games: list[GameResult] = field(default_factory=list)

    def wins(self, side: int) -> int:
        return sum(1 for g in self.games if g.winner_side == side)

    def win_rate(self, side: int) -> tuple[float, float, float]:
        """The share of games ``side`` won, and its 95% Wilson interval."""
        n = len(self.games)
        wins = self.wins(side)
        low, high = wilson_interval(wins, n)
        return (wins / n if n else 0.0), low, high

    def decision_times(self, side: int, phase: str | None = None, cpu: bool = False) -> list[float]:
        """Every decision time (seconds; CPU seconds if ``cpu``) of ``side``, in one phase or all, sorted."""
        out: list[float] = []
        for g in self.games:
            by_phase = (g.cpu_times if cpu else g.times)[side]
            if phase is None:
                for values in by_phase.values():
                    out.extend(values)
            else:
                out.extend(by_phase.get(phase, ()))
        out.sort()
        return out

    def avg_score(self, side: int) -> float:
        return sum(g.side_score(side) for g in self.games) / len(self.games) if self.games else 0.0

    @property
    def avg_hands(self) -> float:
        return sum(g.hands for g in self.games) / len(self.games) if self.games else 0.0

    @property
    def capped(self) -> int:
        return sum(1 for g in self.games if g.capped)

    @property
    def duplicate(self) -> bool:
        return bool(self.games) and all(g.deal is not None for g in self.games)

    def deal_points_per_hand(self, side: int) -> list[float]:
        """Per deal of a duplicate run: ``side``'s points less the other's over both plays, per hand played."""
        by_deal: dict[int, list[GameResult]] = {}
        for g in self.games:
            if g.deal is not None:
                by_deal.setdefault(g.deal, []).append(g)
        return [sum(g.margin(side) for g in pair) / sum(g.hands for g in pair)
                for _, pair in sorted(by_deal.items()) if sum(g.hands for g in pair)]

    def points_per_hand(self, side: int) -> tuple[float, float, float]:
        """``side``'s points per hand less the other's, averaged over deals, with its 95% normal interval."""
        return normal_interval(self.deal_points_per_hand(side))

    def report(self) -> str:
        """The figures the ``arena`` command prints."""
        labels = list(self.players)
        if labels[0] == labels[1]:
            labels = [f"{labels[0]} (A)", f"{labels[1]} (B)"]
        width = max(8, *(len(s) for s in labels))
        duplicate = self.duplicate
        if duplicate:
            head = f"{len(self.games)} games: {len(self.deal_points_per_hand(0))} deals, each played twice, seats swapped"
        else:
            head = f"{len(self.games)} games, seats alternating"
        lines = [head,
                 f"{'player':<{width}}  {'wins':>5}  {'win rate':>8}  {'95% CI':>15}  {'avg final score':>15}"]
        for side in (0, 1):
            rate, low, high = self.win_rate(side)
            ci = f"[{100 * low:.1f}%, {100 * high:.1f}%]"
            lines.append(f"{labels[side]:<{width}}  {self.wins(side):>5}  {100 * rate:>7.1f}%  {ci:>15}  "
                         f"{self.avg_score(side):>15.1f}")
        if duplicate:
            lines.append("points per hand, less the opponent's (mean over deals, 95% CI on the paired differences):")
            for side in (0, 1):
                mean, low, high = self.points_per_hand(side)
                lines.append(f"{labels[side]:<{width}}  {mean:>+7.2f}  [{low:+.2f}, {high:+.2f}]")
        lines.append(f"average hands per game: {self.avg_hands:.2f}")
        lines.append(f"games stopped at the hand cap: {self.capped}")
        for cpu in (False, True):
            lines.append("CPU time per decision (ms; this process, one core):" if cpu else "time per decision (ms):")
            lines.append(f"{'player':<{width}}  {'phase':<8}  {'moves':>7}  {'mean':>7}  {'p50':>7}  {'p95':>7}  "
                         f"{'max':>7}")
            for side in (0, 1):
                rows = [("all", None)] + [(label, phase) for phase, label in TIMED_PHASES]
                for label, phase in rows:
                    times = self.decision_times(side, phase, cpu)
                    if not times:
                        continue
                    ms = [1000 * t for t in (sum(times) / len(times), percentile(times, 0.5),
                                             percentile(times, 0.95), times[-1])]
                    lines.append(f"{labels[side]:<{width}}  {label:<8}  {len(times):>7}  "
                                 + "  ".join(f"{x:>7.1f}" for x in ms))
        return "\n".join(lines)

def play_game(game_id: str, strategies: Sequence[bots.Strategy], dealer: Dealer, max_hands: int | None = None,
              rules: HouseRules | None = None, on_event: Callable[[Event], None] | None = None,
              auto: bool = False) -> Game:
    """Play one game, ``strategies[seat]`` at each seat, until it ends or ``max_hands`` hands are scored.

    ``auto``: forced cards and the play-out of a decided hand play themselves (``spades.autoplay``).
    """
    events = new_game(game_id, rules, dealer)
    game = fold(events)
    if on_event:
        for event in events:
            on_event(event)
    apply = game.apply
    while game.phase != OVER and (max_hands is None or len(game.history) < max_hands):
        seat = game.movers[0]  # in a simultaneous draw (D11) the first player draws all their cards first
        for event in decide(game, strategies[seat].choose(view(game, seat)), dealer):
            apply(event)
            if on_event:
                on_event(event)
        if auto:
            for event in autoplay(game, dealer):
                if on_event:
                    on_event(event)
    return game


def arena_game(players: Sequence[str], seed: int, max_hands: int | None, record: bool,
               rules: HouseRules | None, auto: bool, n: int, duplicate: bool = False,
               tune: Mapping[str, Any] | None = None) -> tuple[GameResult, list[Event]]:
    """Game ``n`` of an arena run (seats swapped on odd ``n``), and its events if ``record``.

    ``duplicate``: games ``2k`` and ``2k + 1`` play deal ``k`` (the same decks, the seats swapped),
    and the strategy at each seat gets the same seed in both games: two players that would decide
    alike in a position then do, so only where they differ does the pair's result move.
    ``tune``: settings changed for ``players[0]`` (see :func:`spades.bots.get`).
    """
    sides = (0, 1) if n % 2 == 0 else (1, 0)
    deal: int | None = None
    if duplicate:
        deal = n // 2
        game_seed = seed * 1_000_003 + deal
        dealer: Dealer = DuplicateDealer(game_seed)
        game_id = f"duplicate-{seed}-{deal + 1}{'ab'[n % 2]}"
    else:
        game_seed = seed * 1_000_003 + n
        dealer = Dealer(seed=game_seed)
        game_id = f"arena-{seed}-{n + 1}"
    strategies = [TimedStrategy(bots.get(players[sides[seat]], seed=game_seed * 2 + seat,
                                         tune=tune if sides[seat] == 0 else None)) for seat in (0, 1)]
    events: list[Event] = []
    game = play_game(game_id, strategies, dealer, max_hands, rules,
                     on_event=events.append if record else None, auto=auto)
    times = ({}, {})  # type: tuple[dict[str, list[float]], dict[str, list[float]]]
    cpu_times = ({}, {})  # type: tuple[dict[str, list[float]], dict[str, list[float]]]
    for seat in (0, 1):
        times[sides[seat]].update(strategies[seat].times)
        cpu_times[sides[seat]].update(strategies[seat].cpu_times)
    result = GameResult(
        game_id=game_id, sides=sides, winner=game.winner, scores=(game.scores[0], game.scores[1]),
        hands=len(game.history), capped=game.phase != OVER, times=times,
        cpu_times=cpu_times, deal=deal,
    )
    return result, events


def run_arena(players: Sequence[str], games: int, seed: int, max_hands: int | None = 200,
              on_event: Callable[[str, int, Event], None] | None = None, jobs: int = 1,
              rules: HouseRules | None = None, auto: bool = False, duplicate: bool = False,
              tune: Mapping[str, Any] | None = None) -> ArenaResult:
    """Play ``games`` games between ``players[0]`` and ``players[1]``, swapping seats each game.

    ``on_event(game_id, seq, event)`` is told every event (``seq`` counts from 1 in each game),
    game after game in order. ``jobs`` > 1 plays the games in that many processes.
    ``duplicate``: every deal is played twice, the seats swapped (``games`` must then be even).
    ``tune``: settings changed for ``players[0]`` (``pimc`` or ``hard``; see :func:`spades.bots.get`).
    """
    if duplicate and games % 2:
        raise ValueError("a duplicate run plays each deal twice: give an even number of games")
    result = ArenaResult(players=(players[0], players[1]))
    play = partial(arena_game, (players[0], players[1]), seed, max_hands, on_event is not None, rules, auto,
                   duplicate=duplicate, tune=tune)
    if jobs > 1 and games > 1:
        with get_context("fork").Pool(min(jobs, games)) as pool:
            outcomes = pool.imap(play, range(games), chunksize=1)
            for game, events in outcomes:
                _collect(result, game, events, on_event)
    else:
        for n in range(games):
            game, events = play(n)
            _collect(result, game, events, on_event)
    return result


def _collect(result: ArenaResult, game: GameResult, events: list[Event],
             on_event: Callable[[str, int, Event], None] | None) -> None:
    result.games.append(game)
    if on_event is not None:
        for seq, event in enumerate(events, start=1):
            on_event(game.game_id, seq, event)

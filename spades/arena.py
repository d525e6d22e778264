"""The arena: complete games between two strategies, seats swapped every game.

:func:`play_game` plays one game through the full path (view -> strategy -> command ->
:func:`spades.game.decide` -> events -> :meth:`spades.game.Game.apply`); :func:`run_arena`
plays many and sums them up. Everything random comes from seeded dealers and strategies, so
the same arguments always give the same games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from . import bots
from .autoplay import autoplay
from .dealer import Dealer
from .events import Event, HouseRules
from .game import OVER, Game, decide, fold, new_game, view


@dataclass
class GameResult:
    """One arena game. ``sides[seat]`` is the index (0 or 1) in the arena's players of who sat there."""

    game_id: str
    sides: tuple[int, int]
    winner: int | None  # the winning seat; None if stopped at the hand cap
    scores: tuple[int, int]  # by seat
    hands: int
    capped: bool

    @property
    def winner_side(self) -> int | None:
        return None if self.winner is None else self.sides[self.winner]

    def side_score(self, side: int) -> int:
        return self.scores[self.sides.index(side)]


@dataclass
class ArenaResult:
    """The sum of an arena run."""

    players: tuple[str, str]
    games: list[GameResult] = field(default_factory=list)

    def wins(self, side: int) -> int:
        return sum(1 for g in self.games if g.winner_side == side)

    def avg_score(self, side: int) -> float:
        return sum(g.side_score(side) for g in self.games) / len(self.games) if self.games else 0.0

    @property
    def avg_hands(self) -> float:
        return sum(g.hands for g in self.games) / len(self.games) if self.games else 0.0

    @property
    def capped(self) -> int:
        return sum(1 for g in self.games if g.capped)

    def report(self) -> str:
        """The figures the ``arena`` command prints."""
        labels = list(self.players)
        if labels[0] == labels[1]:
            labels = [f"{labels[0]} (A)", f"{labels[1]} (B)"]
        width = max(8, *(len(s) for s in labels))
        lines = [f"{len(self.games)} games",
                 f"{'player':<{width}}  {'wins':>5}  {'avg final score':>15}"]
        for side in (0, 1):
            lines.append(f"{labels[side]:<{width}}  {self.wins(side):>5}  {self.avg_score(side):>15.1f}")
        lines.append(f"average hands per game: {self.avg_hands:.2f}")
        lines.append(f"games stopped at the hand cap: {self.capped}")
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


def run_arena(players: Sequence[str], games: int, seed: int, max_hands: int | None = 200,
              on_event: Callable[[str, int, Event], None] | None = None,
              rules: HouseRules | None = None, auto: bool = False) -> ArenaResult:
    """Play ``games`` games between ``players[0]`` and ``players[1]``, swapping seats each game.

    ``on_event(game_id, seq, event)`` is told every event (``seq`` counts from 1 in each game).
    """
    result = ArenaResult(players=(players[0], players[1]))
    for n in range(games):
        sides = (0, 1) if n % 2 == 0 else (1, 0)
        game_seed = seed * 1_000_003 + n
        strategies = [bots.get(players[sides[seat]], seed=game_seed * 2 + seat) for seat in (0, 1)]
        game_id = f"arena-{seed}-{n + 1}"
        hook = None
        if on_event is not None:
            counter = [0]

            def hook(event: Event, gid: str = game_id, counter: list[int] = counter) -> None:
                counter[0] += 1
                on_event(gid, counter[0], event)  # type: ignore[misc]

        game = play_game(game_id, strategies, Dealer(seed=game_seed), max_hands, rules, on_event=hook,
                         auto=auto)
        result.games.append(GameResult(
            game_id=game_id, sides=sides, winner=game.winner, scores=(game.scores[0], game.scores[1]),
            hands=len(game.history), capped=game.phase != OVER,
        ))
    return result

"""Games played through the engine over a game log recorder, as the service's writer plays them (``service.games.apply``
and ``start``): read the game (from its snapshot and the events after it, or on from the process's own copy), decide,
append the events with the version decided against and the message's id, read and decide again on a conflict; a
snapshot at the game's start, at each hand's start and when a hand's play begins (``apply``'s rule). The unit tier
runs it over the in-memory recorder (:class:`service.store.memory.MemoryGameLog`), which ``tests/contract`` holds
to the Redis store's behaviour."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

from service.store import game_owner
from service.store.recorder import AppendResult, SnapshottingRecorder
from spades import bots, snapshot
from spades.autoplay import autoplay
from spades.commands import Command
from spades.dealer import Dealer
from spades.events import HandStarted, HouseRules, from_dict, to_dict
from spades.game import Game, decide, fold, new_game, view

MAX_ATTEMPTS = 25


def state(game: Game) -> dict[str, Any]:
    """Everything a game holds (two games equal in this are the same game to both players)."""
    return dict(vars(game))


def dealer(game_id: str, version: int) -> Dealer:
    """The same cards for the same game and version, as the service's seeded ``service.context.dealer_factory``."""
    return Dealer(seed=zlib.crc32(f"{game_id}:{version}".encode()))


@dataclass
class Writer:
    """One process handling moves: the game log it shares with the others, and its own folded copy of each game
    with the last stream id folded in (the service's ``GameCache``)."""

    log: SnapshottingRecorder
    games: dict[str, tuple[Game, str]] = field(default_factory=dict)
    cold_reads: list[int] = field(default_factory=list)  # events folded on a snapshot, per read that started from one

    def start(self, game_id: str, message_id: str, rules: HouseRules | None = None) -> AppendResult:
        game = fold(events := new_game(game_id, rules, dealer(game_id, 0)))
        res = self.log.append(game_owner(game_id), 0, [to_dict(e) for e in events], message_id=message_id,
                              outbox=[{"to": "seat0", "body": "new game"}, {"to": "seat1", "body": "new game"}],
                              snapshot=snapshot.dump(game))
        if res.ok:
            self.games[game_id] = (game, res.last_stream_id)
        return res

    def game(self, game_id: str) -> Game:
        """The game now (this process's copy read on, and kept)."""
        game, sid = self.read(game_id)
        self.games[game_id] = (game, sid)
        return game

    def read(self, game_id: str) -> tuple[Game, str]:
        """The game now and the last stream id folded in, taken out of this process's copies: read on from its copy,
        or from the snapshot if the copy is behind it (a process that never saw the game: from the snapshot)."""
        game, sid = self.games.pop(game_id, (Game(), ""))
        read = self.log.state(game_id, sid or None)
        if read.snapshot is not None:
            game, sid = snapshot.load(read.snapshot), read.snapshot_sid
            self.cold_reads.append(len(read.events))
        for stored in read.events:
            game.apply(from_dict(stored.event))
            sid = stored.stream_id
        return game, sid

    def move(self, game_id: str, message_id: str, choose: Callable[[Game], Command]) -> AppendResult:
        """Decide ``choose``'s command for the game as read and append it, once for ``message_id``."""
        for _ in range(MAX_ATTEMPTS):
            game, _sid = self.read(game_id)  # taken out while deciding: kept only once appended (a conflict drops it)
            version, phase_before = game.version, game.phase
            events = decide(game, choose(game), dealer(game_id, version))
            fold(events, game)
            events += autoplay(game, dealer(game_id, version))
            hand = game.phase != "over" and (any(isinstance(e, HandStarted) for e in events)
                                             or game.phase == "play" != phase_before)
            res = self.log.append(game_owner(game_id), version, [to_dict(e) for e in events], message_id=message_id,
                                  outbox=[{"to": f"seat{s}", "body": message_id} for s in (0, 1)],
                                  snapshot=snapshot.dump(game) if hand else None)
            if res.ok:
                self.games[game_id] = (game, res.last_stream_id)
            if res.status != "conflict":
                return res
        raise AssertionError(f"{message_id}: {MAX_ATTEMPTS} conflicts")


def bot_choice(players: tuple[bots.Strategy, bots.Strategy]) -> Callable[[Game], Command]:
    """The command of the first seat to move, chosen by its computer player from what that seat may see."""
    def choose(game: Game) -> Command:
        seat = game.movers[0]
        return players[seat].choose(view(game, seat))
    return choose

"""Replaying and auditing game logs: re-fold every game and re-check every event against the rules.

:func:`verify_log` re-decides each player's move from the state before it, with a
:class:`spades.dealer.RecordedDealer` that hands back the recorded shuffle or exchange draw
only after checking the rules could have produced it, and requires the decided events to be
exactly the recorded ones. A tampered log (an illegal card, a changed score, a missing or
extra event, a deck that is not 52 different cards) raises :class:`ReplayError`.

Both draw modes replay (RULES D11): the ``rules`` of ``game_started`` say which, and a log
without ``simultaneous_draw`` is an alternating one. A card the service played for a player
(``card_played`` with ``auto``) is derived again with ``spades.autoplay``: a ``forced`` card
must be the only card the rules allowed, and a ``decided`` play-out must start a trick whose
end was decided and be exactly the play-out :func:`spades.autoplay.decided_playout` gives.

:func:`read_events` reads the JSON lines ``slowspades arena --events`` writes: each line is
``spades.events.to_dict(event)`` plus ``game`` (the game id) and ``seq`` (its number in the
game, from 1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Iterable, Sequence

from .autoplay import decided_playout, forced_play, mark
from .commands import (
    FORFEIT_REASONS,
    Bid,
    Command,
    DeclareDoubleNil,
    DeclineDoubleNil,
    Discard,
    Exchange,
    Forfeit,
    Keep,
    Play,
)
from .dealer import RecordedDealer, ReplayMismatch
from .errors import RuleError
from .events import (
    AUTO_DECIDED,
    AUTO_FORCED,
    AUTO_PLAN,
    BidMade,
    CardPlayed,
    CardsExchanged,
    DoubleNilDeclared,
    DoubleNilDeclined,
    DrawDecided,
    Event,
    EventFormatError,
    GameEnded,
    GameStarted,
    HandStarted,
    from_dict,
    to_dict,
)
from .game import Game, decide, fold, new_game
from .plans import mark_planned


class ReplayError(ValueError):
    """A log the rules could not have produced. ``seq`` is the (1-based) number of the first bad event."""

    def __init__(self, message: str, seq: int | None = None, game_id: str | None = None) -> None:
        where = f" at event {seq}" if seq is not None else ""
        super().__init__(f"{game_id or 'game'}{where}: {message}")
        self.message = message
        self.seq = seq
        self.game_id = game_id


def command_for(event: Event) -> Command | None:
    """The player's command that ``event`` records, or ``None`` if it is not a player's move."""
    if isinstance(event, CardPlayed):
        return Play(event.seat, event.card)
    if isinstance(event, DrawDecided):
        return Keep(event.seat) if event.kept_first else Discard(event.seat)
    if isinstance(event, BidMade):
        return Bid(event.seat, event.tricks)
    if isinstance(event, DoubleNilDeclined):
        return DeclineDoubleNil(event.seat)
    if isinstance(event, DoubleNilDeclared):
        return DeclareDoubleNil(event.seat)
    if isinstance(event, CardsExchanged):
        return Exchange(event.seat, event.thrown)
    if isinstance(event, GameEnded) and event.reason in FORFEIT_REASONS and event.winner in (0, 1):
        return Forfeit(1 - event.winner, event.reason)
    return None


def verify_log(events: Sequence[Event]) -> Game:
    """Re-fold ``events`` checking each against the rules; the final state, or :class:`ReplayError`."""
    events = list(events)
    if len(events) < 2 or not isinstance(events[0], GameStarted) or not isinstance(events[1], HandStarted):
        raise ReplayError("a game starts with game_started then hand_started", 1)
    start = events[0]
    game_id = start.game_id
    dealer = RecordedDealer()
    dealer.first = start.first_player
    dealer.deck = events[1].deck
    try:
        opening = new_game(game_id, start.rules, dealer)
    except ReplayMismatch as exc:
        raise ReplayError(str(exc), 2, game_id) from None
    for n, (want, got) in enumerate(zip(opening, events), start=1):
        if want != got:
            raise ReplayError(f"expected {_show(want)}, found {_show(got)}", n, game_id)
    game = fold(opening)
    playout: list[Play] = []  # the rest of a decided play-out being checked
    i = 2
    while i < len(events):
        event = events[i]
        seq = i + 1
        command = command_for(event)
        if command is None:
            raise ReplayError(f"{event.type} does not follow from any move here", seq, game_id)
        auto = getattr(event, "auto", "")
        if auto == AUTO_DECIDED:
            if not playout:
                playout = decided_playout(game) or []
                if not playout:
                    raise ReplayError("a decided play-out where the end of the hand is not decided", seq, game_id)
            if playout.pop(0) != command:
                raise ReplayError("not the engine's play-out of a decided hand", seq, game_id)
        elif playout:
            raise ReplayError(f"{event.type} interrupts the play-out of a decided hand", seq, game_id)
        elif auto == AUTO_FORCED and forced_play(game) != command:
            raise ReplayError("a card played as forced that was not the only legal card", seq, game_id)
        elif auto and auto not in (AUTO_FORCED, AUTO_DECIDED, AUTO_PLAN):
            raise ReplayError(f"unknown auto {auto!r}", seq, game_id)
        dealer.deck = next((e.deck for e in events[i + 1:i + 5] if isinstance(e, HandStarted)), None)
        dealer.received = event.received if isinstance(event, CardsExchanged) else None
        try:
            expected = decide(game, command, dealer)
        except RuleError as exc:
            raise ReplayError(f"illegal {event.type}: {exc}", seq, game_id) from None
        except ReplayMismatch as exc:
            raise ReplayError(str(exc), seq, game_id) from None
        if auto == AUTO_PLAN:  # the player's own move, given ahead (RULES D12): checked as if sent then
            expected = mark_planned(expected)
        elif auto:
            expected = mark(expected, auto)
        for k, want in enumerate(expected):
            recorded = events[i + k] if i + k < len(events) else None
            if recorded != want:
                found = _show(recorded) if recorded is not None else "the end of the log"
                raise ReplayError(f"expected {_show(want)}, found {found}", seq + k, game_id)
            game.apply(want)
        i += len(expected)
    return game


def _show(event: Event) -> str:
    return json.dumps(to_dict(event), separators=(",", ":"))


def write_event(out: IO[str], game_id: str, seq: int, event: Event) -> None:
    """Write one event as a JSON line carrying its game id and sequence number."""
    data = {"game": game_id, "seq": seq}
    data.update(to_dict(event))
    out.write(json.dumps(data, separators=(",", ":")) + "\n")


@dataclass
class GameLog:
    """The events of one game read from a file, or why they could not be read."""

    game_id: str
    events: list[Event]
    error: str | None = None


def read_events(lines: Iterable[str]) -> list[GameLog]:
    """Group JSON lines by game, checking that each game's ``seq`` runs 1, 2, 3... in order."""
    logs: dict[str, GameLog] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            game_id = str(data["game"])
            seq = int(data["seq"])
        except (ValueError, KeyError, TypeError) as exc:
            logs.setdefault(f"<line {lineno}>", GameLog(f"<line {lineno}>", [], f"line {lineno}: unreadable: {exc}"))
            continue
        log = logs.setdefault(game_id, GameLog(game_id, []))
        if log.error:
            continue
        if seq != len(log.events) + 1:
            log.error = f"line {lineno}: event {seq} out of sequence (expected {len(log.events) + 1})"
            continue
        try:
            log.events.append(from_dict(data))
        except EventFormatError as exc:
            log.error = f"line {lineno}: {exc}"
    return list(logs.values())

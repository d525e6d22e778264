"""Several games at once: which game a reply is for, the game numbers a player sees, and ``GAMES``.

* Each of a player's games has a number (``#1``, ``#2``...), given when the game is created:
  the smallest number not held by another of their unfinished games. It never changes while
  the game lasts.
* A reply without a prefix goes to the game whose prompt the player received last;
  ``#2 QH`` goes to game number 2. (Email replies find their game through the reply address.)
* The prompts of a player with more than one unfinished game carry the game's label (``#2``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from ..addresses import is_bot
from ..caches import GameCache
from ..games import levels
from ..games.outbox import recipient
from ..games.players import UNFINISHED, game_by_number, label_of, name_of, number_of, unfinished_games
from ..games.record import head_to_head, record_of
from ..games.seats import opponent_of, seat_of
from ..records import GameMeta
from ..store import Pipeline, Players, Store
from ..store.after_phase import NoteLast, Write
from . import reminders
from .pauses import paused_until

__all__ = ["UNFINISHED", "Target", "game_by_number", "label_of", "listing", "note_outbox_from",
           "note_prompt", "notes_of", "number_of", "prompted_notes", "queue_note_outbox", "resolve", "routed",
           "unfinished_games"]

def note_prompt(store: Store, address: str, game_id: str) -> None:
    """Remember that ``address`` was last prompted about ``game_id``."""
    if not is_bot(address):
        store.set_player_life(address, {"last": game_id})


def routed(outbox_ids: list[str]) -> list[str]:
    """The game messages among ``outbox_ids`` (in order): those whose recipients' last prompted game is noted."""
    return [oid for oid in outbox_ids if oid.startswith("g:")]


def queue_note_outbox(store: Store, pipe: Pipeline, outbox_ids: list[str]) -> list[str]:
    """Queue on ``pipe`` the reads of the game messages among ``outbox_ids``, whose games are noted for their
    recipients (:func:`note_outbox_from`; returns them, in order)."""
    ids = routed(outbox_ids)
    for oid in ids:
        store.queue_outbox_raw(pipe, oid)
    return ids


def prompted_notes(prompted: Iterable[tuple[str, str]]) -> list[Write]:
    """The writes noting each (recipient, game id) of ``prompted`` as that person's last prompted game (not the
    computer's)."""
    return [NoteLast(to, game_id) for to, game_id in prompted if to and game_id and not is_bot(to)]


def notes_of(entries: Iterable[dict[str, Any] | None]) -> list[Write]:
    """:func:`prompted_notes` of the game messages ``entries`` (as stored; None: gone): each message's game for its
    recipient."""
    return prompted_notes((recipient(e), e.get("game", "")) for e in entries if e is not None and e.get("to"))


def note_outbox_from(store: Store, replies: list[Any]) -> list[Write]:
    """The second half of :func:`queue_note_outbox`, with the replies of its reads: the writes noting each message's
    game for its recipient (:func:`notes_of`)."""
    return notes_of(map(store.outbox_entry_from, replies))


@dataclass(frozen=True)
class Target:
    """Where a message goes: ``game_id`` (None if no game fits) and why (``number``, ``last``, ``only``, ...)."""

    game_id: str | None
    how: str
    meta: GameMeta | None = field(default=None, compare=False)  # the game's meta as read, if it was


def resolve(store: Store, players: Players, address: str, number: int | None = None,
            statuses: tuple[str, ...] = ("active",), last: str | None = None,
            last_meta: GameMeta | None = None) -> Target:
    """The game a message from ``address`` is for: ``#number`` if given, else the last prompted game.

    Falls back to the newest game with one of ``statuses`` when the last prompted one is not.
    ``last``: the player's last prompted game if the caller read it already. The target carries
    the meta of its game when it was read on the way (``last_meta``: the meta of ``last``, if the
    caller read it already).
    """
    if number is not None:
        gid = game_by_number(store, address, number)
        if gid is None:
            return Target(None, "no_such_number")
        meta = store.meta(gid)
        if seat_of(meta, address) is None:
            return Target(None, "no_such_number")
        return Target(gid, "number", meta)
    if last is None:
        last = store.player_life_field(address, "last")
    if last:
        meta = last_meta if last_meta is not None else store.meta(last)
        if meta.status in statuses:
            return Target(last, "last", meta)
    games = unfinished_games(store, players, address, statuses)
    return Target(games[0], "newest") if games else Target(None, "none")


def listing(store: Store, players: Players, games: GameCache, address: str) -> list[dict[str, Any]]:
    """``GAMES``: the player's unfinished games with number, opponent, whose turn and the score; then the game that
    ended last, with its final score (issue 23 case 2: after a game, GAMES said there was none); each row's ``h2h``:
    the head-to-head record with its opponent (:func:`service.games.record.head_to_head`, issue 46)."""
    out = []
    record = record_of(store, players, address)  # the head-to-head record with each opponent (issue 46)
    ended = next(iter(unfinished_games(store, players, address, ("over",))[:1]), None)
    for gid in sorted(unfinished_games(store, players, address), key=lambda g: number_of(store, address, g)) + (
            [ended] if ended else []):
        meta = store.meta(gid)
        seat = seat_of(meta, address)
        if seat is None:  # unfinished_games lists only the games they sit in
            continue
        opp = name_of(players, opponent_of(meta, seat))
        row: dict[str, Any] = {"label": f"#{number_of(store, address, gid)}", "opp": opp, "game_id": gid,
                               "status": meta.status, "my_turn": False, "me": 0, "them": 0,
                               "level": levels.level_of(opponent_of(meta, seat)),  # the computer's
                               "h2h": head_to_head(store, players, address, opponent_of(meta, seat), record)}
        if meta.status in ("active", "over"):
            game = games.load(gid)
            row.update(my_turn=game.may_move(seat), me=game.scores[seat], them=game.scores[1 - seat])
        if meta.status == "active":
            t = reminders.turn(store, gid)
            row["paused"] = paused_until(store, gid, store.clock.now_ms()) is not None if t else False
        out.append(row)
    return out

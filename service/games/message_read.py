"""The one read of an inbound message, as one typed :class:`MessageRead`: the message (``sender``'s), the home
``sender`` acts for (``LINK``) and the receipts' mark on it, whether the message was handled (the outbox numbers it
caused), the player's record (with their life fields) and, when this process saw the player in a game before (likely
the one the message is for), that game as a move needs it (:class:`service.games.apply.MoveRead`).

One call to the store (``Store.read_move``: one round trip in the common case) on this process's guesses (its seat
cache's): the home ``sender`` acted for, the game that home was last seen in and that game's seats. When ``sender``
acts for another home than guessed (linked or unlinked since), the store says so, and it is asked again as that
home's. The game read is this read's own (a copy folded on, :meth:`service.caches.GameCache.fold`): a game read and
not used for a move is simply dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..caches import GameCache, SeatCache
from ..context import Config
from ..records import PlayerRecord
from ..store import Store
from .apply import MoveRead, move_read


@dataclass(frozen=True)
class MessageRead:
    """What handling an inbound message reads first (see the module docstring)."""

    actor: str  # the player the message acts as: the home of ``sender``
    msg: dict[str, str] | None  # the message's record; None: handled already, or unknown
    done: list[str] | None  # the outbox numbers the message caused if it was handled, else None
    record: PlayerRecord | None  # the actor's record (their life fields too)
    unreachable: bool  # ``sender`` was marked unreachable by a delivery receipt: it is reached again
    game: MoveRead | None  # the game the actor was seen in last, read for a move (None: not read)


def read_message(config: Config, store: Store, games: GameCache, seats: SeatCache, message_id: str,
                 sender: str) -> MessageRead:
    """:class:`MessageRead` of ``sender``'s message ``message_id`` (see the module docstring)."""
    actor = seats.home_of(sender)
    for _ in range(2):  # once more only when ``sender`` acts for another home than this process saw
        guess = seats.game_of(actor) or ""
        held = games.held(guess) if guess else None
        got = store.read_move(guess, seats=seats.get(guess) if guess else None,
                              after=held.sid if held is not None else None,
                              sender=sender, message_id=message_id, home=actor)
        if got.actor == actor:
            break
        seats.note_home(sender, got.actor)
        actor = got.actor
    game = move_read(config, games, seats, held, got) if guess else None
    return MessageRead(got.actor, got.msg, got.done, got.record, got.unreachable, game)

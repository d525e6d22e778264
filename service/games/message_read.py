"""The one read of an inbound message, as one typed :class:`MessageRead`: the message (``sender``'s), the home
``sender`` acts for (``LINK``) and the receipts' mark on it, whether the message was handled (the outbox numbers it
caused), the player's record (with their life fields) and, when this process saw the player in a game before (likely
the one the message is for), that game as a move needs it (:func:`service.games.apply.queue_read`).

One round trip; one more when ``sender`` acts for another home than this process guessed (then read again as that
home's), or when the guessed game's seats changed since this process saw them. A game read and not used for a move
is back in the game cache once :meth:`MessageRead.done` is called (:mod:`service.inbound` calls it in a ``finally``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..caches import GameCache, SeatCache
from ..context import Config
from ..store import Batch, Links, Store, player_owner
from .apply import MoveRead, queue_read


@dataclass
class MessageRead:
    """What handling an inbound message reads first (see the module docstring)."""

    actor: str  # the player the message acts as: the home of ``sender``
    msg: dict[str, str] | None  # the message's record; None: handled already, or unknown
    done: list[str] | None  # the outbox numbers the message caused if it was handled, else None
    record: dict[str, str] | None  # the actor's record (their life fields too); None until read (:func:`read_message`)
    unreachable: bool  # ``sender`` was marked unreachable by a delivery receipt: it is reached again
    game: MoveRead | None  # the game the actor was seen in last, read for a move (None: not read)
    guess: str | None  # that game's id

    def done_with(self, games: GameCache) -> None:
        """Put the game read back into the game cache unless a move used it."""
        if self.game is not None and self.guess is not None and not self.game.used:
            games.put(self.guess, self.game.taken)
            self.game.used = True


def read_message(config: Config, store: Store, links: Links, games: GameCache, seats: SeatCache, message_id: str,
                 sender: str) -> MessageRead:
    """:class:`MessageRead` of ``sender``'s message ``message_id`` (see the module docstring)."""
    actor = seats.home_of(sender)
    read = _read(config, store, links, games, seats, message_id, sender, actor)
    if read.actor != actor:  # linked or unlinked since this process saw the address: read again as the home's
        read.done_with(games)
        seats.note_home(sender, read.actor)
        read = _read(config, store, links, games, seats, message_id, sender, read.actor)
    if read.msg is not None and read.record is None:  # to come with the game, whose seats changed: read here
        again = Batch(store.pipeline())
        with again.part("record") as p:
            store.queue_owner_meta(p, player_owner(read.actor))
        read.record = store.owner_meta_from(again.run()["record"][0])
    return read


def _read(config: Config, store: Store, links: Links, games: GameCache, seats: SeatCache, message_id: str, sender: str,
          actor: str) -> MessageRead:
    """One round trip, as the player ``actor`` (the guessed home); its :attr:`MessageRead.actor` is the home the
    sender's life names (``sender`` itself if it names none)."""
    guess = seats.game_of(actor)
    seated = guess is not None and actor in (seats.get(guess) or ())
    from_game = seated and sender == actor  # the game's read takes the sender's whole life hash: its home is there
    batch = Batch(store.pipeline())
    with batch.part("message") as p:
        read_stored = store.queue_message(p, sender, message_id, player_owner(actor), with_sender=not from_game,
                                          with_record=not seated)  # the record holds the life fields too
    if guess:
        with batch.part("game") as p:
            read_game = queue_read(config, store, games, seats, guess, message_id, p)
    got = batch.run()
    stored = read_stored(got["message"])
    game = read_game(got["game"]) if guess else None
    mine = game.infos.get(actor) if game is not None and seated else None
    if stored.home_mark is not None:
        home, mark = stored.home_mark
    elif mine is not None:
        home, mark = links.sender_from(mine.life)
    else:  # the seats changed since this process saw them: read it apart
        again = Batch(store.pipeline())
        with again.part("sender") as p:
            links.queue_sender(p, sender)
        home, mark = links.sender_of_reply(again.run()["sender"][0])
    record = mine.record if mine is not None else stored.record
    return MessageRead(home or sender, stored.msg, stored.done, record, bool(mark), game, guess)

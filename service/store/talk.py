"""The talk across a game's table (``SAY``, :mod:`service.lifecycle.talk`): its lines, and how many a player said
in the hour.

A game's lines are one stream in the game's hash slot (:func:`~service.store.keys.game_talk`): each entry ``seat``
and ``text``, its stream id the time it was said. A player's count of the hour is a counter under their own hash
tag (:func:`~service.store.keys.talk_count`), kept two hours. Forgetting a player
(:mod:`service.forget`) deletes the lines of their seat and rewrites the other's naming them (:meth:`Talk.forget_seat`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .base import Client
from .codec import text
from .keys import game_talk, talk_count

KEEP_LINES = 500  # the most lines a game keeps (its oldest go first)


@dataclass(frozen=True)
class Line:
    """One line of a game's talk: the seat that said it, what it said (as relayed), when (ms)."""

    seat: int
    text: str
    at_ms: int


class Talk:
    """A game's talk and the talk's rate counters (a store gateway, as :class:`.players.Players`)."""

    def __init__(self, client: Client) -> None:
        self.r = client

    def add(self, game_id: str, seat: int, line: str) -> None:
        """Keep ``line`` said by ``seat`` in the game's talk."""
        self.r.xadd(game_talk(game_id), {"seat": str(seat), "text": line}, maxlen=KEEP_LINES, approximate=True)

    def lines(self, game_id: str) -> list[Line]:
        """The game's talk, oldest first."""
        out = []
        for sid, fields in self.r.xrange(game_talk(game_id)) or []:
            row = {text(k): text(v) for k, v in (fields or {}).items()}
            out.append(Line(int(row.get("seat", "0")), row.get("text", ""), int(text(sid).partition("-")[0])))
        return out

    def count(self, address: str, hour: int) -> int:
        """Count one line of ``address`` in ``hour``; returns the hour's count so far (this one included)."""
        key = talk_count(address, hour)
        pipe = self.r.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, 7200)
        return int(pipe.execute()[0])

    def forget_seat(self, game_id: str, seat: int, scrub: Callable[[str], str]) -> int:
        """The game's talk without the lines ``seat`` said (its player is forgotten), and the other seat's lines with
        that player's name and addresses replaced (``scrub``); one transaction. Returns the lines changed."""
        key = game_talk(game_id)
        kept: list[tuple[str, dict[str, str]]] = []
        changed = 0
        for sid, fields in self.r.xrange(key) or []:
            row = {text(k): text(v) for k, v in (fields or {}).items()}
            if row.get("seat") == str(seat):
                changed += 1
                continue
            new = dict(row, text=scrub(row.get("text", "")))
            changed += new != row
            kept.append((text(sid), new))
        if changed:
            pipe = self.r.pipeline(transaction=True)
            pipe.delete(key)
            for sid, row in kept:
                pipe.xadd(key, row, id=sid)  # type: ignore[arg-type]
            pipe.execute()
        return changed

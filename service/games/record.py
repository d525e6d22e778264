"""A player's record, read from their finished games' events: ``STATS`` (games, wins, bids made, nils made) and the
head-to-head record between two people (``You lead Ana 3-2``), shown in ``GAMES`` and on the game page.

Read when asked, from the games' own events (``hand_scored``: each seat's contract and whether it was made;
``game_ended``: the winner), so it is never out of step with them and needs no counter of its own; a forgotten
opponent (``slowspades players forget``) is in the player's totals but in no head-to-head record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from chat.names import is_forgotten

from ..store import Players, Store
from .seats import opponent_of, seat_of


@dataclass
class Record:
    """A player's finished games: totals, and the head-to-head ``[wins, losses]`` by opponent address."""

    games: int = 0
    wins: int = 0
    bids: int = 0
    bids_made: int = 0
    nils: int = 0
    nils_made: int = 0
    against: dict[str, list[int]] = field(default_factory=dict)

    def between(self, opponent: str) -> tuple[int, int]:
        """(wins, losses) of the player against ``opponent`` in finished games."""
        won, lost = self.against.get(opponent, [0, 0])
        return won, lost


def record_of(store: Store, players: Players, address: str, but: str = "") -> Record:
    """The record of the player ``address`` over their finished games (but ``but``: a game ending now)."""
    out = Record()
    for gid in players.games(address):
        if gid == but:
            continue
        meta = store.meta(gid)
        seat = seat_of(meta, address)
        if seat is None or meta.status != "over":
            continue
        add_game(out, seat, opponent_of(meta, seat), [se.event for se in store.load(gid)])
    return out


def add_game(out: Record, seat: int, opponent: str, events: Sequence[Mapping[str, Any]]) -> None:
    """Count into ``out`` one finished game of the player in ``seat`` against ``opponent``, from its events: its
    hands' contracts, and the game if it ended with a winner."""
    winner = None
    for e in events:
        if e.get("type") == "hand_scored":
            mine = e["scores"][seat]
            if mine.get("contract") == "bid":
                out.bids += 1
                out.bids_made += bool(mine.get("made"))
            elif mine.get("contract") in ("nil", "double_nil"):
                out.nils += 1
                out.nils_made += bool(mine.get("made"))
        elif e.get("type") == "game_ended":
            winner = e.get("winner")
    if winner is None:
        return
    out.games += 1
    out.wins += winner == seat
    if opponent and not is_forgotten(opponent):
        tally = out.against.setdefault(opponent, [0, 0])
        tally[0 if winner == seat else 1] += 1


def head_to_head(store: Store, players: Players, address: str, opponent: str,
                 record: Record | None = None) -> dict[str, int] | None:
    """The context of the head-to-head line (``h2h``: ``me``, ``them``), None before their first game ended."""
    won, lost = (record or record_of(store, players, address)).between(opponent)
    return {"me": won, "them": lost} if won or lost else None

"""Seat and opponent questions of a game, from its meta (``seat0``, ``seat1``: the seats' addresses): who sits in
a seat, the seat of an address, the opponent, whether a seat is the computer's (:func:`service.addresses.is_bot`)."""

from __future__ import annotations

from ..addresses import is_bot
from ..records import GameMeta


def address_at(meta: GameMeta, seat: int) -> str:
    """The address in ``seat`` ("" for an empty seat)."""
    return meta.seats[seat]


def seats(meta: GameMeta) -> list[str]:
    """The addresses of seats 0 and 1."""
    return [address_at(meta, 0), address_at(meta, 1)]


def seat_of(meta: GameMeta, address: str) -> int | None:
    """The seat of ``address`` in a game (its meta), or None for a stranger."""
    if address:  # (an empty seat is nobody's)
        for seat in (0, 1):
            if meta.seats[seat] == address:
                return seat
    return None


def opponent_of(meta: GameMeta, seat: int) -> str:
    """The address facing ``seat``."""
    return address_at(meta, 1 - seat)


def computer_at(meta: GameMeta, seat: int) -> bool:
    """Whether the computer plays ``seat``."""
    return is_bot(address_at(meta, seat))

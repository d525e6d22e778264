"""Seat and opponent questions of a game, from its meta (``seat0``, ``seat1``: the seats' addresses): who sits in
a seat, the seat of an address, the opponent, whether a seat is the computer's (:func:`service.addresses.is_bot`)."""

from __future__ import annotations

from typing import Mapping

from ..addresses import is_bot


def address_at(meta: Mapping[str, str], seat: int) -> str:
    """The address in ``seat`` ("" for an empty seat)."""
    return meta.get(f"seat{seat}", "")


def seats(meta: Mapping[str, str]) -> list[str]:
    """The addresses of seats 0 and 1."""
    return [address_at(meta, 0), address_at(meta, 1)]


def seat_of(meta: Mapping[str, str], address: str) -> int | None:
    """The seat of ``address`` in a game (its meta), or None for a stranger."""
    for seat in (0, 1):
        if meta.get(f"seat{seat}") == address:
            return seat
    return None


def opponent_of(meta: Mapping[str, str], seat: int) -> str:
    """The address facing ``seat``."""
    return address_at(meta, 1 - seat)


def computer_at(meta: Mapping[str, str], seat: int) -> bool:
    """Whether the computer plays ``seat``."""
    return is_bot(address_at(meta, seat))

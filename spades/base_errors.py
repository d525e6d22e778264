"""The root of the engine's errors, and the error of a text that is not a card.

Below :mod:`spades.cards` (which raises :class:`CardSyntaxError`), so that :mod:`spades.errors`,
which names cards and commands in its rule errors, imports them without a cycle. Import
both from :mod:`spades.errors`.
"""

from __future__ import annotations


class SpadesError(Exception):
    """Base class of every error this package raises."""


class CardSyntaxError(SpadesError, ValueError):
    """The text is not a card (``"XZ"``, ``"11H"``, ``""``)."""

    def __init__(self, text: str) -> None:
        super().__init__(f"not a card: {text!r}")
        self.text = text

"""What a player in a hurry answers on the game page (the browser tests' choices): the first answer that keeps the
game moving, a card the first one that may be played."""

from __future__ import annotations

from typing import Any


def answer(page: Any, keep: bool) -> str:
    """Click the answer a player in a hurry would give to the question the page shows; returns what it was."""
    ask = page.locator("#ask")
    choice = hurried(ask.locator("button").evaluate_all("bs => bs.map(b => b.value)"), keep)
    ask.locator(f'button[value="{choice}"]').click()
    return choice


def hurried(values: list[str], keep: bool) -> str:
    """Of the answers a page offers (the buttons' values), the one a player in a hurry gives."""
    if "DRAW" in values:
        choice = "DRAW"
    elif "KEEP" in values:
        choice = "KEEP" if keep else "DISCARD"
    elif "SWAP" in values:
        choice = "SWAP"
    elif "BID 3" in values:
        choice = "BID 3"
    else:
        choice = values[0]  # the first card that may be played
    return choice

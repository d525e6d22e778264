"""Which question the game asks a player now, as a short key: a move made on the game page, or by a Telegram
button, answers the question it was shown for, and is refused as stale once the key changes."""

from __future__ import annotations

from spades.game import PlayerView


def question_key(v: PlayerView) -> str:
    """Which question the game asks the player at ``v.seat`` now: a move from the page answers the one it showed,
    and is stale once this changes (the hand, the phase, their own draw decisions and the card offered, the cards
    played). The opponent's draws in a simultaneous draw (RULES D11) leave it as it is."""
    if not v.my_turn:
        return f"{v.hand_no}.{v.phase}.wait"
    offered = v.offered.code if v.offered is not None else "-"
    return (f"{v.hand_no}.{v.phase}.{len(v.hand)}.{len(v.kept)}.{len(v.discarded)}.{int(v.double_nil_offer)}."
            f"{offered}.{len(v.played)}")

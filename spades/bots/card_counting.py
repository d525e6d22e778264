"""Card counting: what a player's view tells of the cards the opponent holds, from the rules alone.

:func:`unseen` is the cards the opponent may hold (every card this player has not seen: not in hand, not played,
not among its own discards, except after the opponent's double nil exchange, D5) and the suits they have shown
void in (a suit they failed to follow, section 6); :func:`opponent_played` the cards they have played this hand.
Facts, not guesses: the searching players (``pimc``, ``hard`` and the frozen ``pimc-2026-12``) sample the
opponent's hand among them. Cards are indices (``Card.index``, 0-51, spades 0-12).
"""

from __future__ import annotations

from ..game import BID, PLAY, PlayerView


def unseen(view: PlayerView) -> tuple[list[int], int]:
    """Cards the opponent may hold (indices), and the suits they have shown void in (a 4-bit mask)."""
    seen = {c.index for c in view.hand}
    seen.update(c.index for c in view.played)
    own_discards = {c.index for c in view.discarded}
    if view.exchange:
        own_discards.update(c.index for c in view.exchange[0])
    opp = 1 - view.seat
    if not (view.double_nil[opp] and view.phase in (BID, PLAY)):
        seen |= own_discards  # only a double nil exchange can hand my discards to the opponent (D5)
    pool = [i for i in range(52) if i not in seen]
    voids = 0
    leader = 1 - view.first_player
    played = view.played
    for k in range(0, len(played) - 1, 2):
        lead, follow = played[k], played[k + 1]
        if leader != opp and follow.suit is not lead.suit:
            voids |= 1 << (lead.index // 13)
        follower_won = (follow.suit is lead.suit and follow.rank > lead.rank) or (
            follow.suit.value == "S" and lead.suit.value != "S")
        leader = 1 - leader if follower_won else leader
    return pool, voids


def opponent_played(view: PlayerView) -> list[int]:
    """The cards the opponent has played this hand (indices)."""
    opp = 1 - view.seat
    out = []
    leader = 1 - view.first_player
    played = view.played
    for k in range(0, len(played), 2):
        lead = played[k]
        if leader == opp:
            out.append(lead.index)
        if k + 1 >= len(played):
            break
        follow = played[k + 1]
        if leader != opp:
            out.append(follow.index)
        follower_won = (follow.suit is lead.suit and follow.rank > lead.rank) or (
            follow.suit.value == "S" and lead.suit.value != "S")
        leader = 1 - leader if follower_won else leader
    return out

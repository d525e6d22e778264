"""What a player may know: :func:`view` of a game for one seat, a :class:`PlayerView`.

A view is an immutable record built in one call (it is made for every message and every move of the
computer); what it derives (its legal commands) is built only when asked for.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

from .cards import Card
from .commands import Command
from .events import HandScored, HouseRules, TrickWon
from .legal import legal_commands, playable
from .state import DRAW, PLAY, Game, Seats


class _ViewFields(NamedTuple):
    game_id: str
    seat: int
    hand_no: int
    phase: str
    first_player: int
    to_move: int | None  # the one seat that may move, None when nobody or both may (see ``movers``)
    hand: tuple[Card, ...]  # in display order
    double_nil_offer: bool  # at their first draw decision, to choose double nil or not (D3)
    offered: Card | None  # the card on top of the draw pile, when deciding whether to keep it
    kept: tuple[Card, ...]  # own draw decisions this hand
    discarded: tuple[Card, ...]
    exchange: tuple[tuple[Card, ...], tuple[Card, ...]] | None  # own (thrown, received)
    decisions: tuple[int, int]
    opponent_cards: int
    trick: tuple[tuple[int, Card], ...]
    played: tuple[Card, ...]  # every card played this hand so far, in order (public)
    leader: int
    last_trick: TrickWon | None
    tricks_won: tuple[int, int]
    bids: tuple[int | None, int | None]
    double_nil: tuple[bool, bool]
    scores: tuple[int, int]
    bags: tuple[int, int]
    spades_broken: bool
    last_hand: HandScored | None
    winner: int | None
    end_reason: str | None
    rules: HouseRules
    hands_played: int
    movers: Seats  # the seats that may move now (both during a simultaneous draw, D11)


class PlayerView(_ViewFields):
    """All that the player at ``seat`` may know now, and nothing else (an immutable record).

    ``legal`` (what they may do now) and ``playable`` (the cards they may play now) are
    derived from the view itself, when first asked for. Build views with :func:`view`.
    """

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def my_turn(self) -> bool:
        """True when this player may move now (perhaps with the opponent, in a simultaneous draw)."""
        return self.seat in self.movers

    @cached_property
    def legal(self) -> tuple[Command, ...]:
        """Every command this player may give now (as :func:`legal_moves`)."""
        return tuple(legal_commands(self.phase, self.seat, self.seat in self.movers, self.double_nil_offer, self.hand,
                            self.trick, self.spades_broken))

    @property
    def playable(self) -> list[Card]:
        """The cards this player may play now, in display order (empty unless it is their turn to play)."""
        if self.phase != PLAY or self.seat not in self.movers:
            return []
        return playable(self.hand, self.trick, self.spades_broken)

    def __repr__(self) -> str:
        return "PlayerView(" + ", ".join(f"{k}={v!r}" for k, v in zip(self._fields, self)) + ")"


_tuple_new = tuple.__new__


def view(game: Game, seat: int) -> PlayerView:
    """What the player at ``seat`` may know: their own cards and decisions, public play, scores."""
    phase = game.phase
    movers = game.movers
    mine = seat in movers
    offer = phase == DRAW and mine and not game.dn_decided[seat]
    offered = game.deck[game.draw_position(seat)] if phase == DRAW and mine and not offer else None
    history = game.history
    return _tuple_new(PlayerView, (
        game.game_id,
        seat,
        game.hand_no,
        phase,
        game.first_player,
        movers[0] if len(movers) == 1 else None,
        tuple(game.hands[seat]),
        offer,
        offered,
        tuple(game.kept[seat]),
        tuple(game.discarded[seat]),
        game.exchanged[seat],
        tuple(game.decisions),
        len(game.hands[1 - seat]),
        tuple(game.trick),
        tuple(game.played),
        game.leader,
        game.last_trick,
        tuple(game.tricks_won),
        tuple(game.bids),
        tuple(game.double_nil),
        tuple(game.scores),
        tuple(game.bags),
        game.spades_broken,
        history[-1] if history else None,
        game.winner,
        game.end_reason,
        game.rules,
        len(history),
        movers,
    ))

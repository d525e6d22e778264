"""The game, as the service and the bots use it: the engine's public face, gathered from the modules that hold it.

* :func:`new_game` returns the opening events of a game; :class:`Game` is the state, :meth:`Game.apply` the only
  way it changes, :func:`fold` rebuilds it from its events (:mod:`spades.state`).
* :func:`decide` checks a command against a game and returns the events it causes (the move itself and what
  follows from it: a trick won, a hand scored, the next hand shuffled, the end of the game), or raises a
  :class:`spades.errors.RuleError` (:mod:`spades.rules`).
* :func:`legal_moves` lists what a seat may do now (:mod:`spades.legal`); :func:`view` is all a seat may know
  (:mod:`spades.player_view`).

Who may move: :attr:`Game.movers` holds the seats that may give a command now (none, one, or both during a
simultaneous draw, RULES D11); :meth:`Game.may_move` asks for one seat. :attr:`Game.to_move` is that seat when
exactly one may move, else ``None``.
"""

from __future__ import annotations

from .legal import MAX_EXCHANGE, legal_moves, playable_cards
from .player_view import PlayerView, view
from .rules import decide
from .state import BID, DRAW, EXCHANGE, OVER, PHASES, PLAY, Game, Seats, fold, new_game

__all__ = ["BID", "DRAW", "EXCHANGE", "MAX_EXCHANGE", "OVER", "PHASES", "PLAY", "Game", "PlayerView", "Seats",
           "decide", "fold", "legal_moves", "new_game", "playable_cards", "view"]

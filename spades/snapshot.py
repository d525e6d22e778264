"""A game's folded state as a JSON-ready dict, and back: :func:`dump` / :func:`load`.

A snapshot lets a reader fold only the events that follow it: ``fold(tail, load(dump(fold(head))))``
is the state ``fold(head + tail)`` gives, attribute for attribute. It holds the whole server-side state,
the hidden cards too (the draw pile, both hands): like the event log, it is never shown to a player.

:data:`FORMAT` names what a snapshot was written by: the event schema (``spades.events.SCHEMA_VERSION``,
the events kept inside it: the hands scored, the last trick) and :data:`ENGINE`, the version of the
state's layout and of the fold that built it. Bump :data:`ENGINE` whenever :class:`spades.game.Game`
gains, loses or changes the meaning of an attribute, or a fold rule changes: :func:`load` refuses a
snapshot of any other format (:class:`SnapshotFormatError`), and its reader folds the whole log instead.
"""

from __future__ import annotations

from typing import Any

from .cards import Card
from .events import SCHEMA_VERSION, HandScored, HouseRules, TrickWon, from_dict, to_dict
from .game import Game

ENGINE = 1
FORMAT = f"{SCHEMA_VERSION}.{ENGINE}"

_CARDS = ("deck", "discards", "played")
_CARD_LISTS = ("hands", "kept", "discarded", "won_cards")
_PLAIN = ("game_id", "version", "phase", "hand_no", "first_player", "scores", "bags", "winner", "end_reason",
          "draw_pos", "decisions", "dn_decided", "double_nil", "bids", "leader", "tricks_won", "spades_broken")


class SnapshotFormatError(ValueError):
    """A snapshot this engine did not write (another :data:`FORMAT`), or not a snapshot."""


def _codes(cards: Any) -> list[str]:
    return [c.code for c in cards]


def _cards(codes: list[str]) -> list[Card]:
    return [Card.from_code(c) for c in codes]


def dump(game: Game) -> dict[str, Any]:
    """``game``'s whole state (JSON-ready), with its :data:`FORMAT` under ``format``."""
    out: dict[str, Any] = {"format": FORMAT, "rules": game.rules.to_dict()}
    for name in _PLAIN:
        value = getattr(game, name)
        out[name] = list(value) if isinstance(value, (list, tuple)) else value
    for name in _CARDS:
        out[name] = _codes(getattr(game, name))
    for name in _CARD_LISTS:
        out[name] = [_codes(cs) for cs in getattr(game, name)]
    out["exchanged"] = [None if x is None else [_codes(x[0]), _codes(x[1])] for x in game.exchanged]
    out["trick"] = [[seat, card.code] for seat, card in game.trick]
    out["movers"] = list(game.movers)
    out["history"] = [to_dict(e) for e in game.history]
    out["last_trick"] = None if game.last_trick is None else to_dict(game.last_trick)
    return out


def load(data: dict[str, Any]) -> Game:
    """The :class:`Game` :func:`dump` gave ``data`` for; :class:`SnapshotFormatError` if this engine did not
    write it (the caller then folds the whole log)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SnapshotFormatError(f"snapshot format {data.get('format') if isinstance(data, dict) else None!r}, "
                                  f"not {FORMAT!r}")
    try:
        game = Game()
        game.rules = HouseRules.from_dict(data["rules"])
        for name in _PLAIN:
            value = data[name]
            setattr(game, name, list(value) if isinstance(value, list) else value)
        game.deck = tuple(_cards(data["deck"]))
        game.discards = _cards(data["discards"])
        game.played = _cards(data["played"])
        for name in _CARD_LISTS:
            setattr(game, name, [_cards(cs) for cs in data[name]])
        game.exchanged = [None if x is None else (tuple(_cards(x[0])), tuple(_cards(x[1])))
                          for x in data["exchanged"]]
        game.trick = [(int(seat), Card.from_code(code)) for seat, code in data["trick"]]
        game.movers = tuple(int(s) for s in data["movers"])
        game.history = [_event(d, HandScored) for d in data["history"]]
        game.last_trick = None if data["last_trick"] is None else _event(data["last_trick"], TrickWon)
    except (KeyError, TypeError, ValueError) as exc:
        raise SnapshotFormatError(f"not a snapshot: {exc}") from exc
    return game


def _event(d: dict[str, Any], kind: type) -> Any:
    event = from_dict(d)
    if not isinstance(event, kind):
        raise SnapshotFormatError(f"expected {kind.__name__}, got {type(event).__name__}")
    return event

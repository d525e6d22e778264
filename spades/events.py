"""Events: the facts a game's history is made of.

Every event is an immutable record with a ``type`` and a schema version ``v``,
and turns into a JSON-ready dict with :func:`to_dict` and back with
:func:`from_dict`. A game's state is the fold of its events
(``spades.game.fold``). ``docs/events.md`` documents each event: its fields,
its meaning and who may see it; :func:`redact` is that visibility rule in code.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterable, Union

from .cards import BY_CODE, Card

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The switches of RULES.md section 10 that a game may choose when it is created.

    ``failed_nil_bags`` (D6): tricks won by a failed nil or double nil bidder count as bags.
    ``floor`` (D8): a player whose score is at or below this after a hand loses (``None``: no floor).
    ``simultaneous_draw`` (D11): both players make their draw decisions at their own pace (true for
    new games); false is the house rule of strict alternation. A stored ``rules`` without the field
    is read as false, so games recorded before D11 replay as they were played.
    """

    failed_nil_bags: bool = False
    floor: int | None = None
    target: int = 500
    simultaneous_draw: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"failed_nil_bags": self.failed_nil_bags, "floor": self.floor, "target": self.target,
                "simultaneous_draw": self.simultaneous_draw}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HouseRules":
        return cls(bool(data.get("failed_nil_bags", False)), data.get("floor"), int(data.get("target", 500)),
                   bool(data.get("simultaneous_draw", False)))


DEFAULT_FLOOR = -200  # the floor used when the D8 house rule is switched on without a value


@dataclass(frozen=True, slots=True)
class HandScore:
    """One player's score for one hand, line by line (sections 4, 5, 7 and 8)."""

    contract: str  # "bid", "nil" or "double_nil"
    bid: int  # tricks bid; 0 for nil and double nil
    tricks: int  # tricks won
    made: bool  # bid made, or nil / double nil kept
    bid_points: int  # 10 a trick bid plus 1 a bag if made, minus 10 a trick bid if set; 0 for nil
    bags: int  # bags taken this hand
    nil_points: int  # +100 / -100 for nil, +200 / -200 for double nil, else 0
    sandbag_penalty: int  # -100 for each time the running count of bags reached 10
    hand_total: int
    game_total: int
    bags_carried: int  # the running count of bags after this hand

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HandScore":
        return cls(*[data[name] for name in _HAND_SCORE_FIELDS])


_HAND_SCORE_FIELDS = tuple(f.name for f in fields(HandScore))


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A game was created. ``first_player`` is the first player of hand 1, drawn at random (D1)."""

    game_id: str
    rules: HouseRules
    first_player: int
    type = "game_started"


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand began: ``deck`` is the shuffled draw pile, top card first (sections 2, 3; D10). Secret."""

    hand: int
    first_player: int
    deck: tuple[Card, ...]
    type = "hand_started"


@dataclass(frozen=True, slots=True)
class DoubleNilDeclared:
    """``seat`` bid double nil at their first draw decision, before seeing its card (section 4, D3)."""

    seat: int
    type = "double_nil_declared"


@dataclass(frozen=True, slots=True)
class DoubleNilDeclined:
    """``seat`` passed on double nil at their first draw decision and may now see the card (D3)."""

    seat: int
    type = "double_nil_declined"


@dataclass(frozen=True, slots=True)
class DrawDecided:
    """``seat`` made a draw decision: kept the first card (``kept_first``) or discarded it (section 3)."""

    seat: int
    kept_first: bool
    kept: Card
    discarded: Card
    type = "draw_decided"


@dataclass(frozen=True, slots=True)
class CardsExchanged:
    """A double nil bidder threw ``thrown`` and drew ``received`` at random from the discards (section 4, D5)."""

    seat: int
    thrown: tuple[Card, ...]
    received: tuple[Card, ...]
    auto: str = ""  # ``"plan"``: the exchange the player gave ahead (RULES D12, ``spades.plans``)
    type = "cards_exchanged"


@dataclass(frozen=True, slots=True)
class BidMade:
    """``seat`` bid ``tricks`` (0 is nil) (section 5)."""

    seat: int
    tricks: int
    auto: str = ""  # ``"plan"``: the bid the player gave ahead (RULES D12, ``spades.plans``)
    type = "bid_made"


AUTO_FORCED = "forced"  # the player's only legal card, played for them (spades.autoplay.forced_play)
AUTO_DECIDED = "decided"  # part of the play-out of a decided hand (spades.autoplay.decided_playout)
#: The player's own move, given ahead in their plan and applied when it became legal (RULES D12, ``spades.plans``):
#: a move like any other, only its owner is told where it came from (:func:`redact`).
AUTO_PLAN = "plan"
#: The events whose ``auto`` says how a player's move was made (left out of the dict when empty).
AUTO_TYPES = frozenset({"card_played", "bid_made", "cards_exchanged"})


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """``seat`` played ``card`` to the current trick (section 6).

    ``auto`` says the service played it for them: ``"forced"`` (their only legal card) or
    ``"decided"`` (the rest of the hand could only end one way); ``"plan"`` for a card the
    player chose ahead (RULES D12); ``""`` (left out of the dict) for a card the player sent.
    """

    seat: int
    card: Card
    auto: str = ""
    type = "card_played"


@dataclass(frozen=True, slots=True)
class TrickWon:
    """Trick number ``trick`` (1 to 13) was won by ``seat``; ``cards`` in play order as (seat, card)."""

    trick: int
    seat: int
    cards: tuple[tuple[int, Card], ...]
    type = "trick_won"


@dataclass(frozen=True, slots=True)
class HandScored:
    """Hand ``hand`` was scored; ``scores`` holds the breakdown of seat 0 and seat 1 (sections 7, 8)."""

    hand: int
    scores: tuple[HandScore, HandScore]
    type = "hand_scored"


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: ``winner`` won, with final ``scores``. ``reason``: score, floor, resigned or timeout."""

    winner: int
    scores: tuple[int, int]
    reason: str
    hands: int
    type = "game_ended"


Event = Union[
    GameStarted, HandStarted, DoubleNilDeclared, DoubleNilDeclined, DrawDecided,
    CardsExchanged, BidMade, CardPlayed, TrickWon, HandScored, GameEnded,
]
EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (GameStarted, HandStarted, DoubleNilDeclared, DoubleNilDeclined, DrawDecided,
                CardsExchanged, BidMade, CardPlayed, TrickWon, HandScored, GameEnded)
}


def _encode(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, (HouseRules, HandScore)):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


#: The field types written as they are (no card, score or tuple in them: :func:`_encode` would return them unchanged).
_PLAIN_TYPES = frozenset({"int", "str", "bool"})
#: Each event type's fields in order, each with whether its value is written as it is (``dataclasses.fields`` walks
#: the class on every call; most fields are numbers and words, which need no :func:`_encode`).
_FIELD_PLANS: dict[type[Event], tuple[tuple[str, bool], ...]] = {
    cls: tuple((f.name, f.type in _PLAIN_TYPES) for f in fields(cls)) for cls in EVENT_TYPES.values()}
_NOTHING_HIDDEN: frozenset[str] = frozenset()


def _as_dict(event: Event, hidden: frozenset[str]) -> dict[str, Any]:
    """:func:`to_dict` of ``event`` without the fields named in ``hidden`` (not encoded at all, to be left out)."""
    out: dict[str, Any] = {"type": event.type, "v": SCHEMA_VERSION}
    plan = _FIELD_PLANS.get(type(event)) or tuple((f.name, False) for f in fields(event))
    for name, plain in plan:
        if name not in hidden:
            value = getattr(event, name)
            out[name] = value if plain else _encode(value)
    if event.type in AUTO_TYPES and not out["auto"]:
        del out["auto"]  # a move the player sent is written as before ``auto`` existed
    return out


def to_dict(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict: ``{"type": ..., "v": 1, ...fields}``."""
    return _as_dict(event, _NOTHING_HIDDEN)


_card = BY_CODE.__getitem__  # a stored card's code -> the card (an unknown code is a KeyError: a format error)


def _cards(values: list[str]) -> tuple[Card, ...]:
    return tuple(map(_card, values))


_Decoder = Callable[[Any], Any]  # a field's JSON value -> its value in the event

_DECODERS: dict[str, _Decoder] = {
    "rules": HouseRules.from_dict,
    "deck": _cards,
    "thrown": _cards,
    "received": _cards,
    "kept": _card,
    "discarded": _card,
    "card": _card,
    "cards": lambda vs: tuple((int(s), _card(c)) for s, c in vs),
    "scores": lambda vs: tuple(HandScore.from_dict(v) if isinstance(v, dict) else int(v) for v in vs),
}


class EventFormatError(ValueError):
    """A stored event that cannot be read back (unknown type, newer schema, missing field)."""


_PLANS: dict[str, tuple[type[Event], tuple[tuple[str, _Decoder | None], ...]]] = {
    name: (cls, tuple((f.name, _DECODERS.get(f.name)) for f in fields(cls) if f.name != "auto"))
    for name, cls in EVENT_TYPES.items()
}


def from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :func:`to_dict`'s output."""
    try:
        cls, plan = _PLANS[data["type"]]
    except (KeyError, TypeError):
        raise EventFormatError(f"unknown event type: {data.get('type')!r}") from None
    version = data.get("v", 1)
    if version != SCHEMA_VERSION and int(version) > SCHEMA_VERSION:
        raise EventFormatError(f"event schema v{data['v']} is newer than this engine (v{SCHEMA_VERSION})")
    try:
        event = cls(*[decode(data[name]) if decode else data[name] for name, decode in plan])
        if data.get("auto") and isinstance(event, (CardPlayed, BidMade, CardsExchanged)):
            event = replace(event, auto=str(data["auto"]))
        return event
    except (KeyError, TypeError, ValueError) as exc:
        raise EventFormatError(f"bad {cls.type} event: {exc}") from None


_DECK = frozenset({"deck"})
_DRAW_SECRETS = frozenset({"kept", "discarded", "kept_first"})
_EXCHANGE_SECRETS = frozenset({"thrown", "received"})


def redact(event: Event, seat: int) -> dict[str, Any] | None:
    """What the player at ``seat`` may know of ``event``, as a dict; ``None`` if they may know nothing of it.

    Hidden: the deck of ``hand_started``; the cards of the opponent's ``draw_decided``
    and whether they kept the first card (the opponent learns only that a decision was
    made); the cards of the opponent's ``cards_exchanged`` (only how many were exchanged);
    that the opponent's move came from their plan (``auto`` ``"plan"``, RULES D12).
    """
    if isinstance(event, HandStarted):
        return _as_dict(event, _DECK)
    if isinstance(event, DrawDecided) and event.seat != seat:
        return _as_dict(event, _DRAW_SECRETS)
    data = _as_dict(event, _EXCHANGE_SECRETS if isinstance(event, CardsExchanged) and event.seat != seat
                    else _NOTHING_HIDDEN)
    if data.get("auto") == AUTO_PLAN and data.get("seat") != seat:
        del data["auto"]  # the opponent sees an ordinary move (RULES D12)
    if isinstance(event, CardsExchanged) and event.seat != seat:
        data["count"] = len(event.thrown)
    return data


def redact_all(events: Iterable[Event], seat: int) -> list[dict[str, Any]]:
    """:func:`redact` of each event for ``seat``, leaving out those they may know nothing of."""
    return [d for d in (redact(e, seat) for e in events) if d is not None]


def from_dicts(datas: Iterable[dict[str, Any]]) -> list[Event]:
    """:func:`from_dict` of each stored event, in order."""
    return [from_dict(d) for d in datas]

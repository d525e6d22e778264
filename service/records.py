"""The typed records the store hands out, parsed once at its edge: a game's meta (:class:`GameMeta`), a player's
record (:class:`PlayerRecord`) and a home's route to its addresses (:class:`Route`).

Redis keeps each as one hash of text fields; the store reads the hash, makes the record and nothing above it goes
back to the store to read a field. A record is read-only and still answers as a mapping of its raw fields (the
rare field with no property of its own: a seat's page marks, a plan, a pause); code that writes a hash gives plain
``dict`` updates, and :meth:`GameMeta.updated` is the meta those leave. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NoReturn

UNFINISHED = ("invited", "active")  # a game's statuses before its end (issue 9: one game per pair at a time)
UNREACH = "unreach"  # a player's life field: the code delivery receipts marked their home unreachable with


def _ms(raw: Mapping[str, str], name: str) -> int:
    value = raw.get(name)
    return int(value) if value else 0


class _Record(dict[str, str]):
    """A hash's text fields, read-only: a ``dict`` (so it is read at C speed, compared, copied with ``dict(r)`` or
    ``{**r}`` and written as JSON like the hash it was) whose every way to change it in place raises."""

    __slots__ = ()

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"a {type(self).__name__} is read-only: write updates, or use updated()")

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = __ior__ = _read_only

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} fields)"  # never the fields: addresses stay out of logs

    def as_dict(self) -> dict[str, str]:
        """The raw fields, a copy to change (a hash to write)."""
        return dict(self)


class GameMeta(_Record):
    """A game's meta: its status, its seats' addresses, its house rules and times, and the fields its life keeps
    there (the turn, pauses, page marks: :func:`service.store.keys.game_life`). An empty meta is a game that does not
    exist (or is forgotten): :attr:`exists` is False."""

    __slots__ = ("status", "seats", "created_ms", "expires_ms", "ended_ms", "held_until", "archived")

    def __init__(self, raw: Mapping[str, str] | None = None) -> None:
        super().__init__(raw or ())
        r = raw or {}
        self.status: str = r.get("status", "")
        self.seats: tuple[str, str] = (r.get("seat0", ""), r.get("seat1", ""))
        self.created_ms: int = _ms(r, "created")
        self.expires_ms: int = _ms(r, "expires")  # an invitation's end, unanswered
        self.ended_ms: int = _ms(r, "ended")
        self.held_until: int = _ms(r, "held")  # an invitation the daily cap holds back until then (0: none)
        self.archived: bool = bool(r.get("archived"))  # its log compressed into the archive (a finished game)

    def __reduce__(self) -> tuple[type[GameMeta], tuple[dict[str, str]]]:
        return GameMeta, (dict(self),)

    @property
    def exists(self) -> bool:
        return bool(self)

    @property
    def unfinished(self) -> bool:
        """Invited or being played."""
        return self.status in UNFINISHED

    @property
    def over(self) -> bool:
        return self.status == "over"

    def of_seat(self, name: str, seat: int) -> str:
        """A field kept per seat (``web0``, ``tok1``, ``seen0``...): ``name`` and the seat; "" when not set."""
        return self.get(f"{name}{seat}", "")

    def updated(self, updates: Mapping[str, str]) -> GameMeta:
        """The meta with ``updates`` written over it (what a write of them leaves)."""
        return GameMeta({**self, **updates})


@dataclass(frozen=True)
class Route:
    """What routing needs of a home, from its life hash: its linked addresses (in link order), those of them
    that sent STOP, whether the home itself did, the kind prompts go to first (``""``: the default), and the code
    delivery receipts marked the home unreachable with (``""``: none; :mod:`service.store.reach`, a field of the
    same hash)."""

    home: str
    links: tuple[str, ...] = ()
    off: frozenset[str] = frozenset()
    stopped: bool = False
    via: str = ""
    unreach: str = ""

    @classmethod
    def of(cls, home: str, life: Mapping[str, str]) -> Route:
        """The route of ``home`` from its life hash as read (a :class:`PlayerRecord`)."""
        return cls(home, tuple((life.get("links") or "").split()), frozenset((life.get("off") or "").split()),
                   life.get("stopped") == "1", life.get("via") or "", life.get(UNREACH) or "")

    @property
    def linked(self) -> list[str]:
        """The home first, then its linked addresses in link order."""
        return [self.home, *self.links]

    def is_off(self, address: str) -> bool:
        """Whether ``address`` (the home or one linked to it) sent STOP."""
        return self.stopped if address == self.home else address in self.off

    def reachable(self) -> list[str]:
        """:attr:`linked` without the addresses that sent STOP."""
        return [a for a in self.linked if not self.is_off(a)]


class PlayerRecord(_Record):
    """A player's record: the name and language they chose, their settings, whether they sent STOP, their linked
    addresses (:attr:`route`), the game they last played, and their game numbers (``#2``: fields ``<n>`` → game id
    and ``g:<game id>`` → n). An empty record is a player never seen: :attr:`known` is False."""

    __slots__ = ("address", "lang", "name", "stopped", "last")

    def __init__(self, address: str, raw: Mapping[str, str] | None = None) -> None:
        super().__init__(raw or ())
        r = raw or {}
        self.address = address
        self.lang: str = r.get("lang", "")  # "" until they choose one (LANG FR)
        self.name: str = r.get("name", "")  # "" until they give one (NAME)
        self.stopped: bool = r.get("stopped") == "1"
        self.last: str = r.get("last", "")  # the game their last move or answer was in

    def __reduce__(self) -> tuple[type[PlayerRecord], tuple[str, dict[str, str]]]:
        return PlayerRecord, (self.address, dict(self))

    @property
    def known(self) -> bool:
        return bool(self)

    def flag(self, name: str, default: bool) -> bool:
        """A setting said ON or OFF (``AUTOPLAY OFF``: ``autoplay`` is ``0``); ``default`` when never said."""
        raw = self.get(name)
        return default if raw is None else raw == "1"

    @property
    def route(self) -> Route:
        return Route.of(self.address, self)

    def number_of(self, game_id: str) -> int | None:
        """The player's number for ``game_id`` (``#2``), if it has one."""
        n = self.get(f"g:{game_id}")
        return int(n) if n else None

"""What composing messages asks of the world (:class:`Lookups`), and :class:`Known`: the answers a move read before
composing its messages, so that composing them (:mod:`.turns`, :mod:`.summaries`, :mod:`.compose_entry`) calls no
gateway.

A lifecycle message asks the store as it composes (:class:`service.games.live_lookups.Live`, the same questions
answered by reading); a move asks :class:`Known`, filled by :func:`service.games.compose_read.read_for_compose`
from the move's read (its players' records, the clock, the newest events the game cache holds) and, when they are
needed, one more read: the WhatsApp windows and receipt marks of linked addresses, the events since a seat's last
message beyond those held, the head-to-head records at a game's start and end, and a token a seat begun without one
needs (made there, before composing). A question :class:`Known` was not given the answer of raises
:class:`NotRead`: composing never falls back to a read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol

from spades.events import Event

from ..addresses import is_bot
from ..channels import Destination, destination_by
from ..context import Config
from ..records import GameMeta, PlayerRecord, Route
from .players import PlayerInfo, info_of


class NotRead(LookupError):
    """Composing asked :class:`Known` what the move did not read before (a bug of
    :func:`~service.games.compose_read.read_for_compose`)."""


class Lookups(Protocol):
    """What composing an outbox entry asks: the player's language, record, name and game number, where a message
    goes, the tokens of an email's reply address and of a page's link, and the record between two players."""

    config: Config

    def lang(self, address: str) -> str: ...

    def life(self, address: str) -> PlayerRecord: ...

    def name(self, address: str) -> str: ...

    def label(self, address: str, game_id: str) -> str: ...

    def destination(self, home: str, kind: str, lang: str, life: Mapping[str, str] | None = None) -> Destination: ...

    def game_reply_token(self, game_id: str, seat: int | None, meta: GameMeta | None, address: str,
                         home: str) -> str | None: ...

    def own_reply_token(self, address: str) -> str: ...

    def web_token(self, address: str, game_id: str, seat: int | None, meta: GameMeta | None,
                  meta_updates: Mapping[str, str] | None) -> str: ...

    def head_to_head(self, address: str, opponent: str, game_id: str, winner: int | None,
                     seat: int) -> dict[str, int] | None: ...


def h2h_line(won: int, lost: int, winner: int | None, seat: int) -> dict[str, int] | None:
    """The head-to-head line (``h2h``: ``me``, ``them``) from the record before a game, counting that game when
    it just ended (``winner``: the seat that won it); None before their first game ended."""
    if winner is not None:
        won, lost = won + (winner == seat), lost + (winner != seat)
    return {"me": won, "them": lost} if won or lost else None


def web_status_open(meta: GameMeta, meta_updates: Mapping[str, str] | None) -> bool:
    """Whether the game is under way (a page to link): not an invitation."""
    status = (meta_updates or {}).get("status") or meta.status
    return status not in ("", "invited")


@dataclass
class Known:
    """The answers to :class:`Lookups` for one move in ``game_id``, read before composing (the module docstring)."""

    config: Config
    game_id: str
    meta: GameMeta
    infos: dict[str, PlayerInfo]  # the seats' players, their labels of ``game_id`` resolved
    now_ms: int
    first: int = 0  # the version of the first event of ``stored``
    stored: list[Event] = field(default_factory=list)  # the stored events from ``first`` up to before the move's
    windows: dict[str, int | None] = field(default_factory=dict)  # WhatsApp address -> when it last wrote (ms)
    marks: dict[str, str] = field(default_factory=dict)  # linked address -> its receipt mark ("" none)
    records: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (player, opponent) -> (won, lost)
    web: dict[int, str] = field(default_factory=dict)  # seat -> page token
    reply: dict[int, str] = field(default_factory=dict)  # seat -> the game's reply token ("" none)
    own_reply: dict[str, str] = field(default_factory=dict)  # address -> its own reply token

    def _info(self, address: str) -> PlayerInfo:
        if address not in self.infos:
            raise NotRead(f"the record of a player the move did not read ({self.game_id})")
        return self.infos[address]

    def stored_since(self, since: int, before: int) -> list[Event]:
        """The stored events of versions ``since`` .. ``before - 1``."""
        if before <= since:
            return []
        if since < self.first or before > self.first + len(self.stored):
            raise NotRead(f"events {since}..{before} of {self.game_id}")
        return self.stored[since - self.first:before - self.first]

    # -- Lookups
    def lang(self, address: str) -> str:
        return self._info(address).lang

    def life(self, address: str) -> PlayerRecord:
        return self._info(address).record

    def name(self, address: str) -> str:
        return info_of(self.infos, address, self.config).name

    def label(self, address: str, game_id: str) -> str:
        labels = self._info(address).labels
        if game_id not in labels:
            raise NotRead(f"the game number of {game_id}")
        return labels[game_id]

    def destination(self, home: str, kind: str, lang: str, life: Mapping[str, str] | None = None) -> Destination:
        route = Route.of(home, life) if life is not None else self._info(home).record.route
        return destination_by(self.config, self, self, route, kind, lang, self.now_ms)

    def game_reply_token(self, game_id: str, seat: int | None, meta: GameMeta | None, address: str,
                         home: str) -> str | None:
        if is_bot(home):
            return None
        if seat is None or game_id != self.game_id:
            raise NotRead(f"a reply token outside {self.game_id}")
        token = self.meta.of_seat("tok", seat)
        if not token and home != address:  # a linked mailbox's token, made before composing
            if seat not in self.reply:
                raise NotRead(f"the reply token of seat {seat}")
            token = self.reply[seat]
        return token or None

    def own_reply_token(self, address: str) -> str:
        if address not in self.own_reply:
            raise NotRead("an own reply token")
        return self.own_reply[address]

    def web_token(self, address: str, game_id: str, seat: int | None, meta: GameMeta | None,
                  meta_updates: Mapping[str, str] | None) -> str:
        if seat is None or game_id != self.game_id:
            raise NotRead(f"a page token outside {self.game_id}")
        if not web_status_open(self.meta, meta_updates):
            return ""
        token = self.web.get(seat) or self.meta.of_seat("web", seat)
        if not token:
            raise NotRead(f"the page token of seat {seat}")
        return token

    def head_to_head(self, address: str, opponent: str, game_id: str, winner: int | None,
                     seat: int) -> dict[str, int] | None:
        if (address, opponent) not in self.records:
            raise NotRead("a head-to-head record")
        return h2h_line(*self.records[(address, opponent)], winner, seat)

    # -- the steps' questions (service.channels.Window, .Marks)
    def last_inbound_ms(self, address: str) -> int | None:
        if address not in self.windows:
            raise NotRead("a WhatsApp window")
        return self.windows[address]

    def last_inbound_and_now(self, address: str) -> tuple[int | None, int]:
        return self.last_inbound_ms(address), self.now_ms

    def unreachable_many(self, addresses: list[str]) -> list[str]:
        if any(a not in self.marks for a in addresses):
            raise NotRead("a receipt mark")
        return [self.marks[a] for a in addresses]

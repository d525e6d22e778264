""":class:`Live`: the :class:`~service.games.known.Lookups` a lifecycle message composes with, answered by reading
the store as it asks (a reply, an invitation, a reminder, a game's notice: one message, read when it is written).
A move composes with :class:`~service.games.known.Known` instead, read before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..addresses import is_bot
from ..channels import Destination, destination
from ..context import Config
from ..records import GameMeta, PlayerRecord
from ..store import Links, Players, Reach, Store
from .known import h2h_line, web_status_open
from .players import label_of, lang_of, name_of
from .record import record_of
from .seats import seat_of


@dataclass
class Live:
    """:class:`~service.games.known.Lookups` read through the gateways, one question at a time."""

    config: Config
    store: Store
    players: Players
    links: Links | None = None  # (where a message goes: only a caller that asks it passes them)
    reach: Reach | None = None

    def lang(self, address: str) -> str:
        return lang_of(self.config, self.players, address)

    def life(self, address: str) -> PlayerRecord:
        return self.store.player_life(address)

    def name(self, address: str) -> str:
        return name_of(self.players, address)

    def label(self, address: str, game_id: str) -> str:
        return label_of(self.store, self.players, address, game_id)

    def destination(self, home: str, kind: str, lang: str, life: Mapping[str, str] | None = None) -> Destination:
        assert self.links is not None and self.reach is not None, "Live(links=, reach=) to ask where a message goes"
        return destination(self.config, self.store, self.links, self.reach, home, kind, lang, life=life)

    def game_reply_token(self, game_id: str, seat: int | None, meta: GameMeta | None, address: str,
                         home: str) -> str | None:
        """The reply token of ``home``'s seat in ``game_id`` for an email to ``address`` (issue 45 case 2: every
        email that may ask for a move takes a move by reply): the seat's (an email player's, made with the game),
        or for a player's linked mailbox one made once; None when ``home`` holds no seat (or is the computer)."""
        if is_bot(home):
            return None
        if meta is None or seat is None:
            meta = self.store.meta(game_id) if meta is None else meta
            seat = seat_of(meta, home)
            if seat is None:
                return None
        token = meta.of_seat("tok", seat)
        if not token and home != address:  # a player's linked mailbox: the seat's own reply address, made once
            token = self.players.ensure_reply_token(game_id, seat, home)
        return token or None

    def own_reply_token(self, address: str) -> str:
        return self.players.own_reply_token(address)

    def web_token(self, address: str, game_id: str, seat: int | None, meta: GameMeta | None,
                  meta_updates: Mapping[str, str] | None) -> str:
        """The page token of ``address``'s seat in ``game_id`` (made once); ``""`` before the game is under way."""
        if meta is None:
            meta = self.store.meta(game_id)
        if seat is None:
            seat = seat_of(meta, address)
        if seat is None or not web_status_open(meta, meta_updates):  # an invitation: no game to show yet
            return ""
        return meta.of_seat("web", seat) or self.players.ensure_web_token(game_id, seat)

    def head_to_head(self, address: str, opponent: str, game_id: str, winner: int | None,
                     seat: int) -> dict[str, int] | None:
        return h2h_line(*record_of(self.store, self.players, address, but=game_id).between(opponent), winner, seat)

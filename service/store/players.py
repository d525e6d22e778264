"""Player records in Redis: the record, the address -> games index, chosen names, and the per-game email
reply tokens (``play+<token>@<domain>``) and the private game page tokens (``/g/<token>``), each a random
128-bit token per seat.
"""

from __future__ import annotations

import re
import secrets
from typing import Callable

from ..addresses import OWN, address_kind
from ..records import PlayerRecord
from . import keys
from .base import Client, now_ms
from .codec import text
from .keys import game_owner, owner_keys, player_owner


class Players:
    """Player records and indexes in Redis."""

    def __init__(self, client: Client) -> None:
        self.r = client

    def get(self, address: str) -> PlayerRecord | None:
        """The player's record (None: a player never seen)."""
        raw = self.r.hgetall(owner_keys(player_owner(address))["meta"])
        return PlayerRecord(address, {text(a): text(b) for a, b in raw.items()}) if raw else None

    def ensure(self, address: str, lang: str = "en") -> PlayerRecord:
        """The player's record, created (kind, lang, created) on first contact (one round trip)."""
        key = owner_keys(player_owner(address))["meta"]
        known = {text(a): text(b) for a, b in self.r.hgetall(key).items()}
        if "kind" in known and "lang" in known:
            return PlayerRecord(address, known)
        pipe = self.r.pipeline(transaction=False)
        pipe.hsetnx(key, "kind", address_kind(address))
        pipe.hsetnx(key, "lang", lang)
        pipe.hsetnx(key, "created", now_ms())
        pipe.hgetall(key)
        raw = pipe.execute()[-1]
        return PlayerRecord(address, {text(a): text(b) for a, b in raw.items()})

    def set_lang(self, address: str, lang: str) -> None:
        """``LANG FR``: the player's language from now on."""
        self.r.hset(owner_keys(player_owner(address))["meta"], "lang", lang)

    def set_colours(self, address: str, four: bool) -> None:
        """The card colours of the player's game pages from now on: four (diamonds blue, clubs green) or two."""
        self.r.hset(owner_keys(player_owner(address))["meta"], "colours", "4" if four else "2")

    def claim_name(self, address: str, name: str) -> bool:
        """``NAME Ana``: the player's name from now on, unless another player holds it (any case): False then.

        The :func:`~service.store.keys.names_key` shards hold each chosen name once; the player's previous name is
        released. The computer's name (``Bot``) is held by nobody and refused to everyone."""
        wanted = keys.name_field(name)
        if wanted == keys.name_field("Bot"):
            return False
        self.r.hsetnx(keys.names_key(wanted), wanted, address)
        holder = self.r.hget(keys.names_key(wanted), wanted)
        if holder is None or text(holder) != address:
            return False
        meta = owner_keys(player_owner(address))["meta"]
        old = self.r.hget(meta, "name")
        self.r.hset(meta, "name", name)
        released = keys.name_field(text(old)) if old is not None else wanted
        if released != wanted and text(self.r.hget(keys.names_key(released), released) or b"") == address:
            self.r.hdel(keys.names_key(released), released)
        return True

    def langs(self, addresses: list[str], default: str = "en") -> list[str]:
        """The language of each address (one round trip)."""
        pipe = self.r.pipeline(transaction=False)
        for address in addresses:
            pipe.hget(owner_keys(player_owner(address))["meta"], "lang")
        return [text(v) if v else default for v in pipe.execute()]

    def add_game(self, address: str, game_id: str, created_ms: int) -> None:
        self.r.zadd(owner_keys(player_owner(address))["games"], {game_id: created_ms}, nx=True)

    def games(self, address: str) -> list[str]:
        """The player's game ids, newest first."""
        return [text(g) for g in self.r.zrevrange(owner_keys(player_owner(address))["games"], 0, -1)]

    def _issue(self, key: Callable[[str], str], value: str) -> str:
        """A fresh 128-bit token stored at ``key(token)`` with ``value``."""
        token = secrets.token_hex(16)
        self.r.set(key(token), value)
        return token

    def _issued(self, key: Callable[[str], str], token: str) -> tuple[str, str] | None:
        """The two words a token of :meth:`_issue` was stored with, or None (no such token, or not one)."""
        if not re.fullmatch(r"[0-9a-f]{32}", token or ""):
            return None
        raw = self.r.get(key(token))
        if raw is None:
            return None
        first, _, second = text(raw).partition(" ")
        return first, second

    def new_reply_token(self, game_id: str, address: str) -> str:
        """A fresh 128-bit token naming (game, address); the reply address is ``play+<token>@<domain>``."""
        return self._issue(keys.reply_token, f"{game_id} {address}")

    def own_reply_token(self, address: str) -> str:
        """The player's own reply token (``rtok`` of their record; made on first use), for the emails of no
        game: it is issued for (:data:`OWN`, address), and a command that changes the player comes only there
        or to a game's reply address (``service.email_identity.command_allowed``, issue 22 case 2)."""
        meta = owner_keys(player_owner(address))["meta"]
        found = self.r.hget(meta, "rtok")
        if found is not None:
            return text(found)
        return self._kept(meta, "rtok", keys.reply_token, self._issue(keys.reply_token, f"{OWN} {address}"))

    def _kept(self, meta: str, field: str, key: Callable[[str], str], token: str) -> str:
        """``token`` (issued at ``key(token)``) kept in ``field`` of the hash ``meta`` unless one is there already:
        then that one (another process made one first), and ``token`` is forgotten."""
        if not self.r.hsetnx(meta, field, token):
            self.r.delete(key(token))
            token = text(self.r.hget(meta, field) or b"")
        return token

    def ensure_reply_token(self, game_id: str, seat: int, address: str) -> str:
        """The seat's game reply token (``tok<seat>`` of the game's meta, issued for (game, ``address``: the seat's
        player)), made now for a seat begun without one (a player whose linked mailbox gets the game's email)."""
        return self._kept(owner_keys(game_owner(game_id))["meta"], f"tok{seat}", keys.reply_token,
                          self.new_reply_token(game_id, address))

    def reply_token(self, token: str) -> tuple[str, str] | None:
        """(game id, address) that a reply token was issued for, or None."""
        return self._issued(keys.reply_token, token)

    def new_web_token(self, game_id: str, seat: int) -> str:
        """A fresh 128-bit token naming (game, seat): the seat's private page is ``/g/<token>``."""
        return self._issue(keys.web_token, f"{game_id} {seat}")

    def ensure_web_token(self, game_id: str, seat: int) -> str:
        """The seat's page token (``web<seat>`` of the game's meta), made now for a game begun without one."""
        return self._kept(owner_keys(game_owner(game_id))["meta"], f"web{seat}", keys.web_token,
                          self.new_web_token(game_id, seat))

    def renew_web_token(self, game_id: str, seat: int, now_ms: int) -> str:
        """``WEB`` once the seat's page expired: a fresh page token (``web<seat>``, renewed at ``webat<seat>``);
        the old one is forgotten (its link stays dead)."""
        meta = owner_keys(game_owner(game_id))["meta"]
        old = self.r.hget(meta, f"web{seat}")
        token = self.new_web_token(game_id, seat)
        self.r.hset(meta, mapping={f"web{seat}": token, f"webat{seat}": str(now_ms)})
        if old is not None:
            self.r.delete(keys.web_token(text(old)))
        return token

    def web_token(self, token: str) -> tuple[str, int] | None:
        """(game id, seat) that a page token was issued for, or None."""
        found = self._issued(keys.web_token, token)
        if found is None or found[1] not in ("0", "1"):
            return None
        return found[0], int(found[1])

"""Who is on their game page now (issue 23): a seat's page, open or moved from lately, quiets the game's SMS and
email to that seat (the rule: :mod:`service.games.presence`); and the key that signs the pages' forms.

``{g:<id>}:page`` (hash, the game's hash tag): seat -> the ms until which that seat counts as on its page. The
page's poll and a move from it push it later, never earlier (one Lua script: the larger of the two wins).
``{page}:secret``: a random key made once (SET NX) that every web process signs the pages' forms with.
"""

from __future__ import annotations

import secrets
from typing import Any, Callable

from redis.client import Pipeline
from redis.commands.core import Script

from .base import Client, queue_script
from .codec import text
from .keys import PAGE_SECRET, game_page

MARK_PAGE_LUA = r"""
-- KEYS: the game's page hash; ARGV: seat, until ms, key ttl s. The later of the stored and the given time wins.
local old = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > old then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""


class PagePresence:
    """The seats on their game page, and the pages' signing key."""

    r: Client
    SCRIPTS = {"_mark_page": MARK_PAGE_LUA}
    _mark_page: Script
    _page_secret: bytes | None = None
    shared_secret: Callable[[str, Callable[[], str]], str]  # (game_log.py's, on the same Store)

    def queue_mark_page(self, pipe: Pipeline, game_id: str, seat: int, until_ms: int) -> None:
        """Queue on ``pipe``: ``seat`` counts as on its page of ``game_id`` until ``until_ms`` at least."""
        queue_script(pipe, self._mark_page, [game_page(game_id)], [seat, until_ms, 86400])

    @staticmethod
    def queue_page_presence(pipe: Pipeline, game_id: str) -> None:
        """Queue the read :func:`presence_from` parses."""
        pipe.hgetall(game_page(game_id))

    def page_presence(self, game_id: str) -> dict[int, int]:
        """seat -> the ms until which it counts as on its page (seats never on it left out)."""
        return presence_from(self.r.hgetall(game_page(game_id)))

    def page_secret(self) -> bytes:
        """The key that signs the pages' forms: one for every process (``shared_secret``), then kept here."""
        if self._page_secret is None:
            self._page_secret = self.shared_secret(PAGE_SECRET, lambda: secrets.token_hex(32)).encode()
        return self._page_secret


def presence_from(raw: Any) -> dict[int, int]:
    """The reply of ``HGETALL {g:<id>}:page`` as seat -> until ms."""
    return {int(text(k)): int(text(v)) for k, v in (raw or {}).items() if text(k) in ("0", "1")}

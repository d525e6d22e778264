"""Who is on their game page now (issue 23): a seat's page, open or moved from lately, quiets the game's SMS and
email to that seat (the rule: :mod:`service.games.presence`); and the key that signs the pages' forms.

The life fields ``page0`` and ``page1`` of the game's meta (``{g:<id>}:meta``, :func:`service.store.keys.game_life`):
the ms until which that seat counts as on its page. The page's poll and a move from it push it later, never earlier
(one Lua script: the larger of the two wins). ``shown0`` and ``shown1``: the newest game version that seat's page
showed (what the page told them: the SMS that catches them up once they left does not tell it again, issue 45). In the meta, a move reads them with the turn (no command of
their own); a mark long past reads as "not on the page", so they need no expiry.
``{page}:secret``: a random key made once (SET NX) that every web process signs the pages' forms with.
"""

from __future__ import annotations

import secrets
from typing import Callable, Mapping

from redis.client import Pipeline
from redis.commands.core import Script

from .base import Client, queue_script
from .codec import text
from .keys import PAGE_SECRET, game_life

MARK_PAGE_LUA = r"""
-- KEYS: the game's meta (its life fields); ARGV: seat, until ms[, the game version the page showed]. The later of
-- the stored and the given time wins, and the newer of the versions.
local field = 'page' .. ARGV[1]
local old = tonumber(redis.call('HGET', KEYS[1], field) or '0')
if tonumber(ARGV[2]) > old then redis.call('HSET', KEYS[1], field, ARGV[2]) end
if ARGV[3] then
  local shown = tonumber(redis.call('HGET', KEYS[1], 'shown' .. ARGV[1]) or '0')
  if tonumber(ARGV[3]) > shown then redis.call('HSET', KEYS[1], 'shown' .. ARGV[1], ARGV[3]) end
end
return 1
"""

SEATS = (0, 1)


class PagePresence:
    """The seats on their game page, and the pages' signing key."""

    r: Client
    SCRIPTS = {"_mark_page": MARK_PAGE_LUA}
    _mark_page: Script
    _page_secret: bytes | None = None
    shared_secret: Callable[[str, Callable[[], str]], str]  # (game_log.py's, on the same Store)

    def queue_mark_page(self, pipe: Pipeline, game_id: str, seat: int, until_ms: int, shown: int | None = None) -> None:
        """Queue on ``pipe``: ``seat`` counts as on its page of ``game_id`` until ``until_ms`` at least; ``shown``:
        the game's version the page showed it (``shown<seat>``, the newest kept: what the page told them)."""
        queue_script(pipe, self._mark_page, [game_life(game_id)], [seat, until_ms] + ([shown] if shown is not None else []))

    def page_presence(self, game_id: str) -> dict[int, int]:
        """seat -> the ms until which it counts as on its page (seats never on it left out)."""
        names = [f"page{seat}" for seat in SEATS]
        marks = self.r.hmget(game_life(game_id), names)
        return presence_from({name: text(v) for name, v in zip(names, marks) if v is not None})

    def page_secret(self) -> bytes:
        """The key that signs the pages' forms: one for every process (``shared_secret``), then kept here."""
        if self._page_secret is None:
            self._page_secret = self.shared_secret(PAGE_SECRET, lambda: secrets.token_hex(32)).encode()
        return self._page_secret


def presence_from(life: Mapping[str, str]) -> dict[int, int]:
    """seat -> until ms, from the game's meta as read (``text_hash``'d: its life fields)."""
    return {seat: int(life[f"page{seat}"]) for seat in SEATS if f"page{seat}" in life}

"""Linked channels in Redis: which addresses act for which player, where their prompts go, and the ``LINK``
codes that prove an address before it is linked.

A player is known by their *home* address (the one they first played from: the games' seats, the ``{p:<home>}``
keys). A *linked* address acts for its home. Nothing here crosses a hash slot in one command or script:

* on the linked address, in its life fields (of its record, ``{p:<linked>}:player``): ``home``, the address it acts for. The inbound
  path reads it in the round trip that reads the message (:meth:`Links.queue_sender`);
* on the home, in its life fields (``{p:<home>}:player``): ``links`` (the linked addresses, space-separated, in link
  order), ``off`` (those of them that sent STOP) and ``via`` (the kind of address prompts go to first). Whoever
  reads the home's life hash (a move's read of its players does) has them without another read;
* the pending code of an address, ``{p:<address>}:linkcode`` (:func:`~service.store.keys.link_code`), in the
  same slot as that address's life hash: one script checks a code sent back and, if it is right, writes ``home``.

Linking writes the address's ``home`` first (the script that takes its code), then the home's ``links``;
unlinking removes ``home`` first. A crash between the two leaves a link that acts but is not prompted, never one
that is prompted but cannot act; a retried handling finishes the home's side (:meth:`Links.add_link` is
idempotent).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Mapping

from redis.client import Pipeline
from redis.commands.core import Script

from ..records import UNREACH, Route
from .base import Client
from .codec import text
from .keys import link_code, player_life

CODE_DIGITS = 6
#: the fields of a home's life hash its :class:`Route` is made of
ROUTE_FIELDS = ("links", "off", "stopped", "via", UNREACH)

TAKE_CODE_LUA = r"""
-- KEYS: the address's code hash, the address's life hash. ARGV: code sent back, max tries, now ms.
-- 'linked' <home>: the address acts for <home> already; 'none': no code pending; 'expired' <home>;
-- 'locked' <home>: too many wrong codes; 'wrong' <home>; 'ok' <home>: right, and the address now acts for it.
local home = redis.call('HGET', KEYS[2], 'home')
if home then return {'linked', home} end
local c = redis.call('HMGET', KEYS[1], 'home', 'code', 'tries', 'until')
if not c[1] then return {'none', ''} end
if tonumber(ARGV[3]) > tonumber(c[4] or '0') then return {'expired', c[1]} end
local max = tonumber(ARGV[2])
if tonumber(c[3] or '0') >= max then return {'locked', c[1]} end
if c[2] ~= ARGV[1] then
  if redis.call('HINCRBY', KEYS[1], 'tries', 1) >= max then return {'locked', c[1]} end
  return {'wrong', c[1]}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'home', c[1])
return {'ok', c[1]}
"""

UNHOME_LUA = r"""
-- KEYS: an address's life hash. ARGV: a home. The address no longer acts for that home (if it did): 1, else 0.
if redis.call('HGET', KEYS[1], 'home') == ARGV[1] then redis.call('HDEL', KEYS[1], 'home') return 1 end
return 0
"""

# a space-separated list field of a hash, an address added (once) or removed
LIST_LUA = r"""
-- KEYS: a life hash. ARGV: field, address, 'add' or 'del'. Returns 1 if the field changed.
local old = redis.call('HGET', KEYS[1], ARGV[1]) or ''
local out, found = {}, false
for a in string.gmatch(old, '%S+') do
  if a == ARGV[2] then found = true end
  if a ~= ARGV[2] then table.insert(out, a) end
end
if ARGV[3] == 'add' then
  if found then return 0 end
  table.insert(out, ARGV[2])
elseif not found then
  return 0
end
if #out == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], table.concat(out, ' ')) end
return 1
"""


@dataclass(frozen=True)
class CodeCheck:
    """What a code sent back from an address did: ``status`` (``ok``, ``linked``, ``none``, ``expired``,
    ``locked``, ``wrong``) and the home that asked for it (``""`` for ``none``)."""

    status: str
    home: str


class Links:
    """Linked channels and ``LINK`` codes in Redis (see the module docstring)."""

    _take: Script
    _list: Script
    _unhome: Script

    def __init__(self, client: Client) -> None:
        self.r = client
        self._take = client.register_script(TAKE_CODE_LUA)
        self._list = client.register_script(LIST_LUA)
        self._unhome = client.register_script(UNHOME_LUA)

    # -- who an address acts for -------------------------------------------------------------------------
    def home(self, address: str) -> str:
        """The address ``address`` acts for: its home, or itself when it is not linked."""
        raw = self.r.hget(player_life(address), "home")
        return text(raw) if raw else address

    @staticmethod
    def queue_sender(pipe: Pipeline, address: str) -> None:
        """What the inbound path needs of the address that wrote, queued on its pipeline (one ``HMGET`` of its life
        hash): its reply is ``[home, unreachable]``, the home it acts for (None: itself) and the code delivery receipts
        marked it with (None: none, :mod:`.reach`)."""
        pipe.hmget(player_life(address), "home", UNREACH)

    @staticmethod
    def sender_of_reply(reply: list[Any]) -> list[str | None]:
        """:meth:`queue_sender`'s reply as text: ``[home, unreachable]``."""
        return [None if v is None else text(v) for v in reply]

    @staticmethod
    def sender_from(life: Mapping[str, str]) -> list[str | None]:
        """:meth:`queue_sender`'s reply taken from the address's whole life hash, when the caller read it anyway."""
        return [life.get("home"), life.get(UNREACH)]

    # -- where a home's messages go ------------------------------------------------------------------------
    def route(self, home: str) -> Route:
        """The :class:`Route` of ``home`` (one read of five fields of its life hash)."""
        raw = self.r.hmget(player_life(home), *ROUTE_FIELDS)
        return Route.of(home, {k: text(v) for k, v in zip(ROUTE_FIELDS, raw) if v is not None})

    def linked(self, home: str) -> list[str]:
        """The home first, then the addresses linked to it, in link order."""
        return self.route(home).linked

    def via(self, home: str) -> str:
        """The kind of address the home's prompts go to first (``VIA SMS``), or ``""`` for the default."""
        raw = self.r.hget(player_life(home), "via")
        return text(raw) if raw else ""

    def set_via(self, home: str, kind: str) -> None:
        """``VIA <kind>`` (``""``: back to the default, the home first)."""
        if kind:
            self.r.hset(player_life(home), "via", kind)
        else:
            self.r.hdel(player_life(home), "via")

    def set_off(self, home: str, address: str, off: bool) -> None:
        """Note on the home that its linked ``address`` sent STOP (``off``) or START."""
        self._list(keys=[player_life(home)], args=["off", address, "add" if off else "del"])

    # -- linking and unlinking ---------------------------------------------------------------------------
    def add_link(self, home: str, address: str) -> bool:
        """The home's side of a link (after :meth:`take_code` wrote the address's ``home``): ``address`` added to
        its ``links`` once. True if it was not there yet."""
        return bool(self._list(keys=[player_life(home)], args=["links", address, "add"]))

    def attach(self, home: str, address: str) -> None:
        """Link ``address`` to ``home`` without a code, for an address the service made for the player itself (a
        browser their game page subscribed to Web Push, :mod:`service.webpush`): its ``home`` written first (taken
        from another home it acted for), then the home's ``links``. Idempotent."""
        before = self.home(address)
        if before not in (address, home):
            self.unlink(before, address)
        self.r.hset(player_life(address), "home", home)
        self.add_link(home, address)

    def unlink(self, home: str, address: str) -> bool:
        """``address`` no longer acts for ``home`` (its ``home`` removed first), nor is prompted (removed from the
        home's ``links`` and ``off``). True if it was linked to ``home``."""
        acted = bool(self._unhome(keys=[player_life(address)], args=[home]))
        changed = bool(self._list(keys=[player_life(home)], args=["links", address, "del"]))
        self._list(keys=[player_life(home)], args=["off", address, "del"])
        return acted or changed

    # -- codes ---------------------------------------------------------------------------------------------
    def new_code(self, home: str, address: str, now_ms: int, ttl_s: int) -> str:
        """A fresh random code for linking ``address`` to ``home``, valid ``ttl_s`` seconds from ``now_ms`` (the
        service clock's); it replaces any code pending for ``address`` (its wrong tries forgotten)."""
        code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
        key = link_code(address)
        pipe = self.r.pipeline(transaction=False)
        pipe.delete(key)
        pipe.hset(key, mapping={"home": home, "code": code, "tries": "0", "until": str(now_ms + ttl_s * 1000)})
        pipe.expire(key, ttl_s + 86400)  # kept a day past its time (it says "expired", not "no code"), then gone
        pipe.execute()
        return code

    def pending(self, address: str) -> dict[str, str]:
        """The code pending for ``address`` as stored (empty if none)."""
        return {text(k): text(v) for k, v in self.r.hgetall(link_code(address)).items()}

    def take_code(self, address: str, code: str, now_ms: int, max_tries: int) -> CodeCheck:
        """A code sent back from ``address`` (:data:`TAKE_CODE_LUA`): if right, still valid and not locked by
        ``max_tries`` wrong ones, ``address`` acts for the home that asked from now on (status ``ok``)."""
        status, home = self._take(keys=[link_code(address), player_life(address)], args=[code, max_tries, now_ms])
        return CodeCheck(text(status), text(home))

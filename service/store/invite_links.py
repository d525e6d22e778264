"""Invitations by link in Redis (``service.lifecycle.invite_links``): a 128-bit token naming who invites and the
house rules, issued once per ``NEW`` message, taken once, gone when it expires.

``ilink:<token>`` (:func:`service.store.keys.invite_link`) is a hash ``from rules expires`` with the link's lifetime
as its TTL; ``game`` is written by the one who takes it (``HSETNX``: the first taker wins, a retry of the same
handling finds its own game), removed when that invitation is refused (``refused`` counts those). ``ilinkm:<hash of the message id>`` names the token a ``NEW`` made, so a retried
message answers with the same link.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from . import keys
from .base import Client
from .codec import text

_TOKEN = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class InviteLink:
    """A link's record: the inviter, the house rules (JSON), when it expires (ms), the game it became ("") and how
    many times an invitation by it was refused (the link given back each time)."""

    token: str
    inviter: str
    rules: str
    expires: int
    game: str = ""
    refused: int = 0


def issue(r: Client, message_id: str, inviter: str, rules: str, expires_ms: int, now_ms: int) -> str:
    """The link ``message_id`` makes (the same one if it made one before)."""
    ttl = max(1, (expires_ms - now_ms) // 1000 + 86400)  # kept a day past its expiry: "expired" is told, not "unknown"
    token = secrets.token_hex(16)
    if not r.set(keys.invite_link_of(message_id), token, nx=True, ex=ttl):
        token = text(r.get(keys.invite_link_of(message_id)) or b"") or token
    key = keys.invite_link(token)
    r.hsetnx(key, "from", inviter)
    r.hsetnx(key, "rules", rules)
    r.hsetnx(key, "expires", str(expires_ms))
    r.expire(key, ttl)
    return token


def get(r: Client, token: str) -> InviteLink | None:
    """The link of ``token``, or None (not a token, or none of a link)."""
    if not _TOKEN.fullmatch(token or ""):
        return None
    found = {text(k): text(v) for k, v in r.hgetall(keys.invite_link(token)).items()}
    if not found.get("from"):
        return None
    return InviteLink(token, found["from"], found.get("rules", "{}"), int(found.get("expires") or 0),
                      found.get("game", ""), int(found.get("refused") or 0))


def take(r: Client, token: str, game_id: str) -> bool:
    """Whether the link is ``game_id``'s: taken now for it, or taken for it before (a retry)."""
    key = keys.invite_link(token)
    if r.hsetnx(key, "game", game_id):
        return True
    return text(r.hget(key, "game") or b"") == game_id


def release(r: Client, token: str, game_id: str) -> None:
    """The link given back by ``game_id`` (its invitation refused): another may take it; ``refused`` counts it."""
    key = keys.invite_link(token)
    if text(r.hget(key, "game") or b"") == game_id:
        pipe = r.pipeline(transaction=False)
        pipe.hdel(key, "game")
        pipe.hincrby(key, "refused", 1)
        pipe.execute()


class InviteLinks:
    """The invitation links on this process's client (the functions above): what a process holds."""

    def __init__(self, r: Client) -> None:
        self.r = r

    def issue(self, message_id: str, inviter: str, rules: str, expires_ms: int, now_ms: int) -> str:
        return issue(self.r, message_id, inviter, rules, expires_ms, now_ms)

    def get(self, token: str) -> InviteLink | None:
        return get(self.r, token)

    def take(self, token: str, game_id: str) -> bool:
        return take(self.r, token, game_id)

    def release(self, token: str, game_id: str) -> None:
        release(self.r, token, game_id)

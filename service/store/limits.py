"""The counters of the abuse limits (:mod:`service.limits`): messages a minute, invitations a day, the day's
SMS and what they cost (a mixin of :class:`service.store.Store`). Keys: :func:`service.store.keys.limit_keys`."""

from __future__ import annotations

from typing import Mapping

from ..addresses import BOT_PREFIX
from .base import Client
from .codec import text
from .keys import game_owner, limit_keys, owner_keys, player_owner


class LimitCounters:
    """The limits' reads and writes on :class:`service.store.Store`'s connection ``r``."""

    r: Client

    def count_message(self, sender: str, minute: int) -> int:
        """Count one inbound message of ``sender`` in ``minute``; returns that minute's count so far. A slow game's
        message is most often its sender's first of the minute: one ``SET NX`` with the counter's expiry; only a
        second message of the minute adds an ``INCR``."""
        key = limit_keys(sender, minute)["rate"]
        if self.r.set(key, 1, ex=120, nx=True):
            return 1
        return int(self.r.incr(key))

    def invitations_waiting(self, sender: str, game_ids: list[str]) -> int:
        """How many of ``game_ids`` are invitations of ``sender`` still waiting for an answer."""
        if not game_ids:
            return 0
        pipe = self.r.pipeline(transaction=False)
        for gid in game_ids:
            pipe.hmget(owner_keys(game_owner(gid))["meta"], "status", "seat0")
        return sum(1 for status, seat0 in pipe.execute()
                   if status is not None and text(status) == "invited" and seat0 is not None and text(seat0) == sender)

    def count_invitation(self, sender: str, day: str, message_id: str) -> tuple[bool, int]:
        """Count ``sender``'s invitation (message ``message_id``, once) in ``day``: (newly counted, day's count)."""
        key = limit_keys(sender, 0, day)["invites"]
        pipe = self.r.pipeline(transaction=False)
        pipe.sadd(key, message_id)
        pipe.scard(key)
        pipe.expire(key, 2 * 86400)
        added, count, _ = pipe.execute()
        return bool(added), int(count)

    def uncount_invitation(self, sender: str, day: str, message_id: str) -> None:
        """Take back :meth:`count_invitation` (the invitation was refused)."""
        self.r.srem(limit_keys(sender, 0, day)["invites"], message_id)

    def count_sms(self, day: str, n: int) -> int:
        """Count ``n`` outgoing SMS in ``day``; returns the day's count so far."""
        key = limit_keys("", 0, day)["sms_day"]
        pipe = self.r.pipeline(transaction=False)
        pipe.incrby(key, n)
        pipe.expire(key, 3 * 86400)
        return int(pipe.execute()[0])

    def count_sent(self, day: str, n: int, micros: int) -> tuple[int, int]:
        """Count ``n`` outgoing messages costing ``micros`` (millionths) in ``day``, in one round trip; returns the
        day's (count, spend in millionths) so far."""
        keys = limit_keys("", 0, day)
        pipe = self.r.pipeline(transaction=False)
        pipe.incrby(keys["sms_day"], n)
        pipe.incrby(keys["spend_day"], micros)
        pipe.expire(keys["sms_day"], 3 * 86400)
        pipe.expire(keys["spend_day"], 3 * 86400)
        count, spend, _, _ = pipe.execute()
        return int(count), int(spend)

    def mark_sms_capped(self, day: str, count: int) -> None:
        """Note that ``day``'s SMS cap was reached (at ``count``)."""
        self.r.set(limit_keys("", 0, day)["capped"], str(count), ex=3 * 86400)

    def sms_today(self, day: str) -> tuple[int, bool]:
        """(SMS counted in ``day``, whether its cap was reached)."""
        sent, _spend, capped = self.sent_today(day)
        return sent, capped

    def sent_today(self, day: str) -> tuple[int, int, bool]:
        """(messages counted in ``day``, their cost in millionths, whether the day's cap was reached)."""
        keys = limit_keys("", 0, day)
        sent, spend, capped = self.r.mget(keys["sms_day"], keys["spend_day"], keys["capped"])
        return int(sent or 0), int(spend or 0), capped is not None

    def in_people_games(self, addresses: list[str], newest: int = 20,
                        known: Mapping[str, str | None] | None = None) -> list[bool]:
        """For each address, whether it has been in a game between people (not the computer): the ``people``
        mark of its record (``1``: :meth:`mark_people_game`; ``0``: looked for and not found), else (a record
        older than the mark) one of its ``newest`` games begun between two people, the answer then marked, so
        that the games are looked through once per player, not at every message to them. ``known``: the marks of
        records the caller read already (address -> mark, None: missing): not read again."""
        known = known or {}
        unread = [a for a in addresses if a not in known]
        pipe = self.r.pipeline(transaction=False)
        for address in unread:
            pipe.hget(owner_keys(player_owner(address))["meta"], "people")
        read = dict(zip(unread, [None if x is None else text(x) for x in pipe.execute()])) if unread else {}
        marks = [known[a] if a in known else read[a] for a in addresses]
        out = []
        for address, mark in zip(addresses, marks):
            if mark is None and not address.startswith(BOT_PREFIX):
                out.append(self._played_people(address, newest))
            else:
                out.append(mark == "1")
        return out

    def _played_people(self, address: str, newest: int) -> bool:
        gids = [text(g) for g in self.r.zrevrange(owner_keys(player_owner(address))["games"], 0, newest - 1)]
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            pipe.hmget(owner_keys(game_owner(gid))["meta"], "seat0", "seat1", "status")
        for seat0, seat1, status in pipe.execute() if gids else []:
            if (seat0 and seat1 and status and text(status) not in ("invited", "declined", "expired")
                    and not text(seat0).startswith(BOT_PREFIX) and not text(seat1).startswith(BOT_PREFIX)):
                self.mark_people_game([address])
                return True
        if gids:  # games, none between people: marked so (HSETNX: one marked meanwhile keeps its 1); a stranger
            self.r.hsetnx(owner_keys(player_owner(address))["meta"], "people", "0")  # gets no record from this
        return False

    def mark_people_game(self, addresses: list[str]) -> None:
        """Mark each address as a player of a game between people (the limits treat them as known)."""
        pipe = self.r.pipeline(transaction=False)
        for address in addresses:
            pipe.hset(owner_keys(player_owner(address))["meta"], "people", "1")
        pipe.execute()

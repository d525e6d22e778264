"""Reads queued on a caller's pipeline, so a caller joins them to its own round trip (a mixin of
:class:`service.store.Store`): an owner's consumed message, a game's meta, an outbox entry's JSON, the newest
events of a game's stream."""

from __future__ import annotations

import json
from typing import Any

from redis.client import Pipeline

from .base import Client, unpack_log
from .codec import text, text_hash, text_hashes
from .keys import game_head, game_owner, owner_keys, split_outbox_id


class QueuedReads:
    r: Client

    def pipeline(self) -> Pipeline:
        """A pipeline (no transaction) for a caller's own round trip: whoever creates one executes it."""
        return self.r.pipeline(transaction=False)

    @staticmethod
    def queue_consumed(pipe: Pipeline, owner: str, message_id: str) -> None:
        """The outbox numbers ``message_id`` caused (comma list), or None."""
        pipe.hget(owner_keys(owner)["consumed"], message_id)

    @staticmethod
    def consumed_from(reply: Any) -> list[str] | None:
        """:meth:`queue_consumed`'s reply: the outbox numbers the message caused, or None if it was not consumed."""
        return None if reply is None else [n for n in text(reply).split(",") if n]

    @staticmethod
    def queue_meta(pipe: Pipeline, game_id: str) -> None:
        pipe.hgetall(owner_keys(game_owner(game_id))["meta"])

    @staticmethod
    def queue_owner_meta(pipe: Pipeline, owner: str) -> None:
        """An owner's record: a game's meta, a player's record."""
        pipe.hgetall(owner_keys(owner)["meta"])

    @staticmethod
    def owner_meta_from(reply: Any) -> dict[str, str]:
        """:meth:`queue_owner_meta`'s reply (or :meth:`queue_meta`'s, or ``queue_player``'s) as text."""
        return text_hash(reply)

    @staticmethod
    def owner_metas_from(replies: list[Any]) -> list[dict[str, str]]:
        """:meth:`owner_meta_from` of each of several replies, in one call."""
        return text_hashes(replies)

    @staticmethod
    def queue_meta_fields(pipe: Pipeline, game_id: str, *fields: str) -> None:
        pipe.hmget(owner_keys(game_owner(game_id))["meta"], *fields)

    @staticmethod
    def meta_fields_from(reply: list[Any]) -> list[str | None]:
        """:meth:`queue_meta_fields`'s reply: each field's value as text (None: not set)."""
        return [None if v is None else text(v) for v in reply]

    @staticmethod
    def queue_outbox_raw(pipe: Pipeline, outbox_id: str) -> None:
        """An outbox entry's JSON (without its status)."""
        owner, n = split_outbox_id(outbox_id)
        pipe.hget(owner_keys(owner)["outbox"], n)

    @staticmethod
    def outbox_entry_from(reply: Any) -> dict[str, Any] | None:
        """:meth:`queue_outbox_raw`'s reply: the entry (None if it is gone)."""
        return None if reply is None else dict(json.loads(text(reply)))

    def newest_events(self, game_id: str, count: int) -> list[dict[str, Any]]:
        """The ``count`` newest events of the game in play, oldest first, as dicts (from its head too when the
        stream holds fewer: ``service.store.snapshot``)."""
        entries: list[Any] = self.r.xrevrange(owner_keys(game_owner(game_id))["ev"], count=count) or []
        out = [json.loads(fields[b"e"]) for _sid, fields in reversed(entries)]
        if len(out) < count:
            older = unpack_log(self.r.get(game_head(game_id)))
            out = [e.event for e in older[max(0, len(older) - (count - len(out))):]] + out
        return out

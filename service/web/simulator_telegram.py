"""The simulator's Telegram phone (:mod:`service.web.simulator`): the updates Telegram would post to ``/telegram`` for
what is typed or tapped on it, and what the page shows of a message the service sent it from the local outbox."""

from __future__ import annotations

import time
import uuid
from typing import Any, Mapping

from ..addresses import TELEGRAM_PREFIX
from .telegram import SECRET_HEADER


def telegram_update(chat: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """The update Telegram posts for a private chat's text message, or (``tap``: a button's data, ``message_id``: the
    message it is on) for a tapped inline button."""
    user = {"id": chat, "is_bot": False, "first_name": "Simulator", "language_code": "en"}
    private = {"id": chat, "type": "private", "first_name": "Simulator"}
    update_id = time.time_ns() // 1000 % 2**31  # Telegram's are increasing ints; the service claims each once
    if data.get("tap"):
        message = {"message_id": int(data.get("message_id") or 0), "date": int(time.time()), "chat": private}
        return {"update_id": update_id, "callback_query": {"id": uuid.uuid4().hex, "from": user, "message": message,
                                                           "chat_instance": str(chat), "data": str(data["tap"])}}
    return {"update_id": update_id, "message": {"message_id": update_id, "date": int(time.time()), "from": user,
                                                "chat": private, "text": str(data.get("body") or "")}}


def telegram_request(sender: str, data: Mapping[str, Any], secret: str) -> dict[str, Any] | None:
    """The request Telegram would make for what ``sender`` (``telegram:<chat id>``) typed or tapped: path, update
    and the secret header; None for a sender that is no Telegram chat."""
    chat = sender[len(TELEGRAM_PREFIX):]
    if not sender.startswith(TELEGRAM_PREFIX) or not chat.isdigit():
        return None
    return {"path": "/telegram", "json": telegram_update(int(chat), data), "headers": {SECRET_HEADER: secret}}


def telegram_fields(stream_id: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A Telegram message as the page shows it: its length, its inline keyboard (``[label, data]`` pairs) and the
    number Telegram would give it (from its place in the local outbox: what a tap says it was on); or the answer to a
    tap (``callback``: a toast in the app) and the message whose keyboard it removes (``tgmsg``)."""
    ms, _, seq = stream_id.partition("@")[0].partition("-")
    number = (int(ms) % 10**9) * 1000 + int(seq or 0) % 1000
    return {"chars": len(str(entry.get("body") or "")), "buttons": entry.get("buttons") or [],
            "callback": bool(entry.get("callback")), "tgmsg": str(entry.get("tgmsg") or ""),
            "message_id": str(number)}

"""Telegram's Bot API: the calls the service makes, and the buttons of a message.

A Telegram player is the private chat the bot is written from (``telegram:<chat id>``,
:func:`service.addresses.telegram_address`). Updates come to ``POST /telegram`` (:mod:`service.web.telegram`);
messages go out by ``sendMessage`` (:class:`service.delivery.TelegramSender`), a prompt with **an inline keyboard of
its legal answers** (:func:`keyboard`, from :attr:`chat.render.Rendered.replies`). A tap comes back as a
``callback_query`` whose data (:func:`callback_data`) is the answer as a player would type it and a tag of the
question it answers (the game and :func:`chat.questions.question_key`): the worker plays it only while the game
still asks that question (:mod:`service.lifecycle.buttons`), answers the tap (``answerCallbackQuery``) and removes
the keyboard (``editMessageReplyMarkup``).

Plain HTTPS with ``requests`` (already installed with the Twilio SDK), not a bot library: the service is a sync
Flask app and Celery worker that needs four methods, each one JSON POST; python-telegram-bot and aiogram are
asyncio frameworks built around their own update loop, and a thin sync client would add nothing but a dependency.
The API's base URL is a setting (``SLOWSPADES_TELEGRAM_API_URL``), so tests run a real HTTP server that answers as
the Bot API does. The bot's token is a secret: it is part of every method's URL and never logged
(:func:`redacted`).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import requests

from chat.taps import button_label

#: Telegram's callback data: at most 64 bytes
CALLBACK_DATA_MAX = 64
#: The most answers a prompt offers as buttons; a question with more (which cards to exchange) is typed
KEYBOARD_MAX = 40
ROW = 5  # buttons a row
#: ``allowed_updates`` of the webhook: the only updates the service reads
UPDATES = ("message", "callback_query")
SEP = "|"


class BotApiError(Exception):
    """A Bot API call that did not succeed: ``status`` (the HTTP status, or 0 for no answer), the API's
    ``description``, and ``retry_after`` (seconds) when it asked to wait."""

    def __init__(self, method: str, status: int, description: str, retry_after: int = 0) -> None:
        super().__init__(f"telegram {method}: {status} {description}")
        self.status = status
        self.description = description
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """Worth trying again later: no answer, too many requests, or the API's own failure."""
        return self.status in (0, 429) or self.status >= 500

    @property
    def blocked(self) -> bool:
        """The player blocked the bot, or their account is gone: nothing will reach them (like STOP)."""
        return self.status == 403


def redacted(text: str, token: str) -> str:
    """``text`` without the bot's token (an error of ``requests`` names the URL, and the URL holds it)."""
    return text.replace(token, "<token>") if token else text


def call(cfg: Mapping[str, Any], method: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Call the Bot API ``method`` with ``payload`` (JSON); returns its ``result``. Raises :class:`BotApiError`."""
    token = str(cfg.get("TELEGRAM_BOT_TOKEN") or "")
    url = f"{str(cfg.get('TELEGRAM_API_URL') or '').rstrip('/')}/bot{token}/{method}"
    try:
        resp = requests.post(url, json=dict(payload), timeout=float(cfg.get("TELEGRAM_TIMEOUT") or 10.0))
    except requests.RequestException as exc:
        raise BotApiError(method, 0, redacted(str(exc), token)) from None
    try:
        body = resp.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise BotApiError(method, resp.status_code or 0, "not a Bot API answer")
    if not body.get("ok"):
        params = body.get("parameters")
        params = params if isinstance(params, dict) else {}
        raise BotApiError(method, int(body.get("error_code") or resp.status_code or 0),
                          str(body.get("description") or ""), int(params.get("retry_after") or 0))
    result = body.get("result")
    return result if isinstance(result, dict) else {"value": result}


# -- the buttons ------------------------------------------------------------------------------------------
def question_tag(game_id: str, ask: str) -> str:
    """The tag of a game's question (11 characters): what a button says it answers, short enough for 64 bytes."""
    digest = hashlib.sha256(f"{game_id}{SEP}{ask}".encode()).digest()[:8]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def callback_data(reply: str, tag: str = "") -> str:
    """A button's data: the question's tag (empty: an answer to no game's question) and the reply as typed."""
    return f"{tag}{SEP}{reply}"


@dataclass(frozen=True)
class Tap:
    """A tapped button: the reply it sends and the tag of the question it answers (``""``: none)."""

    tag: str
    reply: str

    @classmethod
    def of(cls, data: str) -> "Tap | None":
        tag, sep, reply = (data or "").partition(SEP)
        if not sep or not reply.strip() or len(data.encode()) > CALLBACK_DATA_MAX:
            return None
        return cls(tag, reply)


def buttons(replies: Sequence[str], game_id: str = "", ask: str = "") -> list[list[str]]:
    """The ``[label, callback data]`` of each reply a message offers (none past :data:`KEYBOARD_MAX`, or a reply too
    long for a button's data): tagged with the question when the replies answer one of ``game_id``'s."""
    if len(replies) > KEYBOARD_MAX:
        return []
    tag = question_tag(game_id, ask) if game_id and ask else ""
    out = [[button_label(r), callback_data(r, tag)] for r in replies]
    return [b for b in out if len(b[1].encode()) <= CALLBACK_DATA_MAX]


def keyboard(pairs: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The ``reply_markup`` of a message with these buttons (:func:`buttons`): an inline keyboard, rows of
    :data:`ROW`."""
    row: list[dict[str, str]] = []
    rows: list[list[dict[str, str]]] = []
    for text, data in pairs:
        row.append({"text": text, "callback_data": data})
        if len(row) == ROW:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    return {"inline_keyboard": rows}


def set_webhook(cfg: Mapping[str, Any], url: str) -> dict[str, Any]:
    """``setWebhook``: updates of the message and callback kinds to ``url``, with the secret Telegram then sends in
    ``X-Telegram-Bot-Api-Secret-Token`` on every update (``SLOWSPADES_TELEGRAM_SECRET``)."""
    return call(cfg, "setWebhook", {"url": url, "secret_token": str(cfg.get("TELEGRAM_SECRET") or ""),
                                    "allowed_updates": list(UPDATES)})

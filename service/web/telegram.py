"""``POST /telegram``: the Telegram bot's webhook. Verify the secret, claim the ``update_id``, record, queue, answer.

Telegram sends every update with the ``secret_token`` given to ``setWebhook`` in ``X-Telegram-Bot-Api-Secret-Token``
(``SLOWSPADES_TELEGRAM_SECRET``; ``slowspades telegram set-webhook``): an update without it is refused (401), one with
another (403), compared in constant time; none is taken while no secret is configured. A body past
:data:`BODY_MAX` is refused (413), one that is not an update (400).

Two kinds of update are read, from a private chat (the player is ``telegram:<chat id>``); any other is answered 200
and dropped (Telegram would only send it again):

* a text ``message``: what the player typed, handled by the worker as an SMS is (``/start``: the first words of a
  chat, answered as any first message; ``/help`` as ``HELP``: a command's slash and the bot's name are dropped);
  ``/start <token>``, an invitation's link opened, records the token (:mod:`service.lifecycle.telegram_start`);
  the language of the player's app is recorded too, and a new player's first language is it when slowspades speaks
  it (a chat has no phone number to tell it by);
* a ``callback_query``: a tapped button (:mod:`service.telegram`): its data, its query id (the worker answers it)
  and the message it came from (whose keyboard the worker removes).

Each update is recorded under ``tg:<update_id>`` by the same claim as an SMS's MessageSid
(:func:`service.web.take_inbound`): an update Telegram sends again, or one replayed, is handled once. While Redis
does not answer it is kept in the local spool and 200 answered; if the disk fails too, 503: Telegram sends the update
again later (unlike Twilio, it retries).
"""

from __future__ import annotations

import hmac
import logging
import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request
from flask.blueprints import BlueprintSetupState

from ..addresses import TELEGRAM, telegram_address
from ..spool import SpoolError
from ..store import now_ms
from . import install_spool, take_inbound
from .sms import flood_answer

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: The largest update taken (bytes): a text message is at most 4,096 characters, a callback's data 64 bytes
BODY_MAX = 64 * 1024
#: The most of a message's text recorded (characters): what Telegram lets a message hold
TEXT_MAX = 4096
#: ``/start <token>``: a ``t.me/<bot>?start=<token>`` link opened (Telegram allows 64 of these characters)
START = re.compile(r"^/start(?:@\w+)?\s+([A-Za-z0-9_-]{1,64})$")

bp = Blueprint("telegram", __name__)


def _spool_once(state: BlueprintSetupState) -> None:
    """The app's spool and its drainer (:func:`install_spool`), unless ``/sms`` installed them."""
    if "slowspades_drainer" not in state.app.extensions:
        install_spool(state.app)  # type: ignore[arg-type]  # the app is a Flask


bp.record_once(_spool_once)


def secret_ok() -> None:
    """Abort unless the request carries the configured secret: 401 without one, 403 with another (or none set)."""
    given = request.headers.get(SECRET_HEADER)
    if not given:
        abort(401)
    secret = str(current_app.config.get("TELEGRAM_SECRET") or "")
    if not secret or not hmac.compare_digest(given.encode(), secret.encode()):
        abort(403)


def typed(text: str) -> str:
    """What a player typed, as the parser reads it: a bot command's slash and ``@bot`` dropped (``/help@x_bot``:
    ``help``); ``/start`` alone (the first words of every chat) as nothing: a first message."""
    text = text.strip()[:TEXT_MAX]
    if not text.startswith("/"):
        return text
    word, _, rest = text[1:].partition(" ")
    word = word.split("@", 1)[0]
    if word.lower() == "start" and not rest.strip():
        return ""  # (the worker reads it as START for a chat that is stopped: the bot unblocked and started again)
    return f"{word} {rest}".strip()


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def read_update(update: dict[str, Any]) -> tuple[int, dict[str, str]] | None:
    """The chat id and the fields to record of an update the service reads; None for any other."""
    query = _object(update.get("callback_query"))
    if query:
        tapped = _object(query.get("message"))
        chat = _object(tapped.get("chat"))
        number = tapped.get("message_id")
        if chat.get("type") != "private" or not isinstance(chat.get("id"), int) or not isinstance(number, int) \
                or not isinstance(query.get("id"), str) or not isinstance(query.get("data"), str):
            return None
        return chat["id"], {"body": "", "tap": query["data"][:256], "callback": query["id"][:128],
                            "tgmsg": str(number)}
    message = _object(update.get("message"))
    chat = _object(message.get("chat"))
    text = message.get("text")
    if chat.get("type") != "private" or not isinstance(chat.get("id"), int) or not isinstance(text, str):
        return None
    start = START.match(text.strip())
    fields = {"body": "", "start": start.group(1)} if start else {"body": typed(text)}  # start: an invitation's link
    if not start and fields["body"] == "" and text.strip().lower().startswith("/start"):
        fields["hello"] = "1"  # /start alone: a first message, or the bot started again after it was blocked
    code = _object(message.get("from")).get("language_code")
    if isinstance(code, str) and code[:2].isalpha():  # the app's language: a new player's first language
        fields["lang"] = code[:2].lower()
    return chat["id"], fields


def ok() -> Response:
    return jsonify({})


@bp.post("/telegram")
def inbound_telegram() -> Response:
    secret_ok()
    if request.content_length is None or request.content_length > BODY_MAX:
        abort(413)
    update = request.get_json(silent=True)
    if not isinstance(update, dict) or not isinstance(update.get("update_id"), int):
        abort(400)
    read = read_update(update)
    if read is None:
        return ok()  # an update of a kind the service does not read (a group, a sticker, an edit): dropped
    chat_id, fields = read
    sender = telegram_address(chat_id)
    dropped, flood = flood_answer(sender)  # over SLOWSPADES_LIMIT_MESSAGES_PER_MINUTE: dropped (told once)
    if dropped is not None:
        return ok()
    message_id = f"tg:{update['update_id']}"
    fields.update({"channel": TELEGRAM, "from": sender, "to": "", "received": str(now_ms()), "status": "queued"})
    if flood:
        fields["flood"] = flood
    try:  # recorded and queued; or, while Redis does not answer, kept on local disk (service.spool)
        take_inbound(message_id, sender, fields, int(current_app.config["MESSAGE_TTL"]))
    except SpoolError:  # not even the disk: Telegram sends the update again later
        log.exception("inbound %s could not be kept: Telegram will send it again", message_id)
        return Response("", status=503)
    return ok()

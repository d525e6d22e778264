"""A local stand-in for Telegram's Bot API at its HTTP boundary: a real HTTP server answering ``POST
/bot<token>/<method>`` with the JSON the Bot API answers (``{"ok": true, "result": ...}``, or ``{"ok": false,
"error_code": ..., "description": ...}``), recording every call; and the updates Telegram posts to a webhook, as it
writes them, sent with its secret header."""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT_TOKEN = "123456:test-bot-token-AAAA"
SECRET = "test-webhook-secret_1"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_update_ids = itertools.count(100_000)
_query_ids = itertools.count(1)


class FakeBotApi:
    """The Bot API on 127.0.0.1: ``calls`` holds ``(method, payload)`` of every call with the right token, in order;
    ``blocked`` chats answer 403 as a blocked bot does; ``fail_next`` answers that many calls 502 first."""

    def __init__(self, token: str = BOT_TOKEN) -> None:
        self.token = token
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.blocked: set[str] = set()
        self.fail_next = 0
        self.lock = threading.Lock()
        self._ids = itertools.count(1)
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, answer = api.answer(self.path, body)
                raw = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "FakeBotApi":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        prefix = f"/bot{self.token}/"
        if not path.startswith(prefix):
            return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
        method = path[len(prefix):]
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            return 400, {"ok": False, "error_code": 400, "description": "Bad Request: can't parse JSON"}
        with self.lock:
            if self.fail_next:
                self.fail_next -= 1
                return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}
            chat = str(payload.get("chat_id", ""))
            if chat in self.blocked:
                return 403, {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}
            self.calls.append((method, payload))
            if method == "sendMessage":
                if not payload.get("text"):
                    return 400, {"ok": False, "error_code": 400, "description": "Bad Request: message text is empty"}
                message = {"message_id": next(self._ids), "date": int(time.time()), "text": payload["text"],
                           "chat": {"id": int(chat), "type": "private", "first_name": "Player"},
                           "from": {"id": 123456, "is_bot": True, "first_name": "Slow Spades"}}
                if payload.get("reply_markup"):
                    message["reply_markup"] = payload["reply_markup"]
                return 200, {"ok": True, "result": message}
            if method == "editMessageReplyMarkup":
                return 200, {"ok": True, "result": {"message_id": payload.get("message_id"), "date": int(time.time()),
                                                    "chat": {"id": int(chat), "type": "private"}}}
            if method in ("answerCallbackQuery", "setWebhook"):
                return 200, {"ok": True, "result": True}
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}

    def sent(self, chat: int | str, method: str = "sendMessage") -> list[dict[str, Any]]:
        """The payloads of ``method`` to ``chat`` so far, in order (``sendMessage``'s with their ``message_id``)."""
        with self.lock:
            calls = list(self.calls)
        out = []
        n = 0
        for m, p in calls:
            if m == "sendMessage":
                n += 1
            if m == method and str(p.get("chat_id")) == str(chat):
                out.append(dict(p, message_id=n) if m == "sendMessage" else p)
        return out

    def of_method(self, method: str) -> list[dict[str, Any]]:
        with self.lock:
            return [p for m, p in self.calls if m == method]


def message_update(chat: int, text: str, update_id: int | None = None, chat_type: str = "private",
                   lang: str = "en") -> dict[str, Any]:
    """A text message's update, as Telegram posts it."""
    return {"update_id": next(_update_ids) if update_id is None else update_id,
            "message": {"message_id": next(_update_ids), "date": int(time.time()), "text": text,
                        "from": {"id": chat, "is_bot": False, "first_name": "Player", "language_code": lang},
                        "chat": {"id": chat, "type": chat_type, "first_name": "Player"}}}


def tap_update(chat: int, message_id: int, data: str, update_id: int | None = None) -> dict[str, Any]:
    """A tapped inline button's update (``callback_query``), as Telegram posts it."""
    return {"update_id": next(_update_ids) if update_id is None else update_id,
            "callback_query": {"id": str(next(_query_ids)), "chat_instance": "-1",
                               "from": {"id": chat, "is_bot": False, "first_name": "Player"},
                               "message": {"message_id": message_id, "date": int(time.time()), "text": "...",
                                           "chat": {"id": chat, "type": "private", "first_name": "Player"}},
                               "data": data}}


def post_update(client: Any, update: dict[str, Any], secret: str | None = SECRET) -> Any:
    """POST an update to ``/telegram`` as Telegram does (with the secret header, unless ``secret`` is None)."""
    headers = {SECRET_HEADER: secret} if secret is not None else {}
    return client.post("/telegram", data=json.dumps(update), content_type="application/json", headers=headers)

"""The fixtures of the service's tests beyond tests/conftest.py's: ``bot``, the Telegram Bot API answered by a local
HTTP server speaking its JSON (:mod:`tests.service.fake_telegram`), the app configured to call it."""

from __future__ import annotations

import pytest

from .fake_telegram import BOT_TOKEN, SECRET, FakeBotApi


@pytest.fixture()
def bot(app, svc):  # type: ignore[no-untyped-def]
    api = FakeBotApi().start()
    app.config.update(TELEGRAM_BOT_TOKEN=BOT_TOKEN, TELEGRAM_SECRET=SECRET, TELEGRAM_API_URL=api.url)
    app.config.pop("_SENDERS", None)
    yield api
    api.stop()

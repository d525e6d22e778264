"""Fixtures of the browser tests: the real app served over HTTP with a real Celery worker, and Chromium.

The app runs in a werkzeug server thread on a free port, started once a session (``live_server``;
``live_service`` gives each test an empty Redis), the worker in a thread (:mod:`tests.inthread`) against
the session's real Redis;
messages go to the local outbox, as in a local run. Chromium is Debian's
``/usr/bin/chromium`` driven by Playwright (never a downloaded browser);
``scripts/ensure-chromium`` installs it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from dataclasses import dataclass
from typing import Any, Iterator

import pytest
import redis as redis_lib
from flask import Flask

CHROMIUM = os.environ.get("SLOWSPADES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveService:
    """The running service: its base URL and Flask app (for reading the store in assertions)."""

    url: str
    app: Flask

    @property
    def svc(self) -> Any:
        return self.app.extensions["slowspades"]


@pytest.fixture(scope="session")
def live_server(redis_url: str) -> Iterator[LiveService]:
    """The app served over HTTP, started once a session (each test empties Redis first)."""
    from werkzeug.serving import make_server

    from service import create_app

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    app = create_app({"REDIS_URL": redis_url, "BROKER_URL": redis_url, "SIMULATOR": True,
                      "PUBLIC_BASE_URL": url, "DEALER_SEED": "simulator-test", "DELIVERY": "local"})
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-web", daemon=True)
    thread.start()
    try:
        yield LiveService(url, app)
    finally:
        server.shutdown()
        thread.join(10)


@pytest.fixture()
def live_service(live_server: LiveService, redis_url: str, redis_client: redis_lib.Redis) -> Iterator[LiveService]:
    """The running service and its worker (in a thread, :mod:`tests.inthread`) on an empty Redis, as a test found
    it when each built its own: its settings as created, no game in its process's cache; what the test left to
    the worker is done before the next."""
    from tests import inthread
    from tests.conftest import wait_worker_idle

    app = live_server.app
    inthread.worker_for(app.extensions["celery"])
    saved = dict(app.config)
    live_server.svc.games.clear()
    yield live_server
    with contextlib.suppress(AssertionError):
        wait_worker_idle(redis_url, app.config["QUEUE"], timeout=30)
    for key in [k for k in app.config if k not in saved]:
        del app.config[key]
    app.config.update(saved)
    app.config.pop("_SENDERS", None)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()

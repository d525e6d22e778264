"""Fixtures of the browser tests: the real app served over HTTP with a real Celery worker, and Chromium.

The app runs in a werkzeug server thread on a free port, the worker in a thread
(``celery.contrib.testing.worker.start_worker``) against the session's real Redis;
messages go to the local outbox, as in a local run. Chromium is Debian's
``/usr/bin/chromium`` driven by Playwright (never a downloaded browser);
``scripts/ensure-chromium`` installs it.
"""

from __future__ import annotations

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


@pytest.fixture()
def live_service(redis_url: str, redis_client: redis_lib.Redis) -> Iterator[LiveService]:
    from celery.contrib.testing.worker import start_worker
    from werkzeug.serving import make_server

    from service import create_app

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    app = create_app({"REDIS_URL": redis_url, "BROKER_URL": redis_url, "SIMULATOR": True,
                      "PUBLIC_BASE_URL": url, "DEALER_SEED": "simulator-test", "DELIVERY": "local"})
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-web", daemon=True)
    with start_worker(app.extensions["celery"], pool="solo", perform_ping_check=False, shutdown_timeout=20):
        thread.start()
        try:
            yield LiveService(url, app)
        finally:
            server.shutdown()
            thread.join(10)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()

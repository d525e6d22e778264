"""Fixtures of the CLI tests: games played through the real webhooks and a real Celery worker.

:func:`played_once` starts the app and a worker thread (:mod:`tests.inthread`) once a session
(a backend), posts Twilio-signed SMS to ``/sms`` and waits until every message it caused reached
the local outbox, then keeps every key of the store (``DUMP``). Each test gets a fresh (flushed)
Redis into which :func:`played` restores those keys, so the operator commands read a store exactly
as a local run leaves it, and what one test changes no other sees.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterator

import pytest
import redis as redis_lib
from click.testing import CliRunner, Result
from flask import Flask
from twilio.request_validator import RequestValidator

from service import conversation_port as port
from spades.commands import Bid, Command, DeclineDoubleNil, Discard, Exchange, Keep
from spades.events import from_dict
from spades.game import Game, fold, legal_moves
from tests.waiting import wait_for

TOKEN = "cli-test-token"
ANN, BOB, CAROL = "+15550001001", "+15550001002", "+15550001003"


def choose(game: Game, seat: int, n: int) -> Command:
    legal = legal_moves(game, seat)
    if any(isinstance(c, DeclineDoubleNil) for c in legal):
        return DeclineDoubleNil(seat)
    if any(isinstance(c, Keep) for c in legal):
        return Keep(seat) if n % 3 else Discard(seat)
    if any(isinstance(c, Exchange) for c in legal):
        return Exchange(seat, ())
    if any(isinstance(c, Bid) for c in legal):
        return Bid(seat, 2)
    return legal[0]


@dataclass
class Played:
    """A service with games played through its webhooks; :meth:`cli` runs ``slowspades`` against its Redis."""

    app: Flask
    redis_url: str
    games: dict[str, str] = field(default_factory=dict)

    @property
    def svc(self) -> Any:
        return self.app.extensions["slowspades"]

    def sms(self, sender: str, body: str) -> str:
        """Post one SMS as Twilio would; returns the inbound message id once the worker handled it."""
        form = {"MessageSid": "SM" + uuid.uuid4().hex, "AccountSid": "AC" + "0" * 32, "From": sender,
                "To": "+15550000000", "Body": body, "NumMedia": "0"}
        url = self.app.config["PUBLIC_BASE_URL"] + "/sms"
        sig = RequestValidator(TOKEN).compute_signature(url, form)
        resp = self.app.test_client().post("/sms", data=form, headers={"X-Twilio-Signature": sig})
        assert resp.status_code == 200
        mid = "sms:" + form["MessageSid"]
        wait_for(f"{body!r} to be handled", lambda: (self.svc.store.inbound(sender, mid) or {}).get("status") == "done")
        wait_for("the outbox to drain", self.drained)
        return mid

    def drained(self) -> bool:
        store = self.svc.store
        owners = [f"g:{g}" for g in self.games.values()] + [f"p:{a}" for a in (ANN, BOB, CAROL)]
        return all(e["status"] != "queued" and e["status"] != "sending"
                   for o in owners for e in store.outbox_entries(o))

    def game(self, game_id: str) -> Game:
        return fold(from_dict(se.event) for se in self.svc.store.load(game_id))

    def play(self, game_id: str, moves: int) -> None:
        meta = self.svc.store.meta(game_id)
        for n in range(moves):
            g = self.game(game_id)
            assert g.movers
            self.sms(meta[f"seat{g.movers[0]}"], port.command_text(choose(g, g.movers[0], n)))

    def cli(self, *args: str) -> Result:
        from service.cli import main

        return CliRunner().invoke(main, [*args, "--redis-url", self.redis_url], catch_exceptions=False)


def _dump(client: Any, queue: str) -> list[tuple[bytes, int, bytes]]:
    """Every key of the store (not the broker's: its queue, bindings, unacknowledged tasks) as ``DUMP`` gives it,
    with its time to live in ms (0: none)."""
    from tests.backends import keys_of

    broker = (b"_kombu", b"unacked", queue.encode())
    return [(k, max(int(client.pttl(k)), 0), client.dump(k)) for k in keys_of(client, "*") if not k.startswith(broker)]


@pytest.fixture(scope="session")
def played_once(redis_url: str, broker_url: str, backend: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """The games of :func:`played`, played once a session (a backend) through the webhooks and a real worker,
    and the store they left, key by key (``DUMP``); the app and its worker stay up for the tests."""
    from service import create_app
    from tests import inthread

    queue = f"cli-tests-{backend}"
    from tests.conftest import emptied

    client = emptied(redis_url, backend, request)
    app = create_app({"REDIS_URL": redis_url, "BROKER_URL": broker_url, "QUEUE": queue,
                      "TWILIO_AUTH_TOKEN": TOKEN,
                      "DELIVERY": "local", "DEALER_SEED": "cli-tests", "SMS_FICTIONAL_NUMBERS": True})
    inthread.worker_for(app.extensions["celery"])
    p = Played(app, redis_url)
    p.sms(ANN, f"NEW {BOB}")
    p.games["ann-bob"] = p.svc.players.games(BOB)[0]
    p.sms(BOB, "YES")
    p.play(p.games["ann-bob"], 12)
    p.sms(CAROL, f"NEW {ANN}")
    p.games["carol-ann"] = next(g for g in p.svc.players.games(CAROL))
    yield p, _dump(client, queue)
    client.close()


@pytest.fixture()
def played(played_once: Any, broker_url: str, redis_client: redis_lib.Redis) -> Iterator[Played]:
    """Ann and Bob in a game 12 moves in; Carol has invited Ann (not answered): the store exactly as the games
    left it (restored key by key into the emptied Redis: a test may change it), the app's game cache empty."""
    from tests import inthread
    from tests.conftest import wait_worker_idle

    base, keys = played_once
    for key, ttl, value in keys:
        redis_client.restore(key, ttl, value, replace=True)
    base.svc.games.clear()
    inthread.worker_for(base.app.extensions["celery"])
    yield Played(base.app, base.redis_url, dict(base.games))
    with contextlib.suppress(AssertionError):
        wait_worker_idle(broker_url, base.app.config["QUEUE"])

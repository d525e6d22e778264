"""Helpers of the lifecycle tests: players, starting a game, a move as a player would send it, one beat tick."""

from __future__ import annotations

import uuid
from typing import Any

from service.bootstrap import Dependencies
from service.delivery import deliver
from service.games.result import Result
from service.inbound import handle_inbound
from service.lifecycle import hooks
from spades.events import from_dict
from spades.game import Game, fold
from workers.beat import run_tick

ALICE = "+4791234567"   # Norway: Europe/Oslo
BOB = "+4798765432"     # Norway: Europe/Oslo
CAROL = "+12125550123"  # New York
DAVE = "dave@example.com"


def local(svc: Dependencies, to: str | None = None) -> list[dict[str, Any]]:
    """The messages "sent" through the local outbox, oldest first (to ``to`` only if given)."""
    out = [m for _i, m in svc.store.read_local(count=1_000_000)]
    return [m for m in out if to is None or m["to"] == to]


def send_now(svc: Dependencies, ids: list[str]) -> None:
    """Deliver outbox entries at once with the real delivery code (the local outbox)."""
    for oid in ids:
        svc.inject(deliver)(oid)


def load(svc: Dependencies, gid: str) -> Game:
    return fold(from_dict(e.event) for e in svc.store.load(gid))


def inbound(svc: Dependencies, sender: str, text: str, game: str | None = None) -> str:
    """Record an inbound SMS as the webhook does; returns its message id. ``game``: an email player's
    reply to that game's email (to their own reply address: a move by email needs it, issue 15); without it,
    an email player replies to one of the service's other emails (their own reply address: a command that
    changes a game or the player needs one, issue 22)."""
    mid = "SM" + uuid.uuid4().hex
    fields = {"from": sender, "body": text, "channel": "sms"}
    if game is not None and "@" in sender:
        meta = svc.store.meta(game)
        fields.update(channel="email", token=meta["tok0" if meta.get("seat0") == sender else "tok1"])
    elif "@" in sender:
        fields.update(channel="email", token=svc.players.own_reply_token(sender))
    svc.store.record_inbound(sender, mid, fields, 3600)
    return mid


def lifecycle_command(svc: Dependencies, sender: str, text: str) -> Result:
    """A lifecycle command (NEW, YES, NO, PAUSE, CLAIM, GAMES, STOP...) through the real handler."""
    return move(svc, sender, text)


def move(svc: Dependencies, sender: str, text: str, game: str | None = None) -> Result:
    """A message sent by ``sender``, handled as the worker handles it (handler, then the lifecycle hook)."""
    mid = inbound(svc, sender, text, game)
    res = svc.inject(handle_inbound)(mid, sender)
    send_now(svc, res.outbox_ids)
    hooks.after_handled(svc.config, svc.store, svc.games, res.game_id, res.outbox_ids, after=res.after,
                        duplicate=res.outcome == "duplicate")
    svc.store.mark_inbound(sender, mid, "done")
    return res


def start_game(svc: Dependencies, a: str = ALICE, b: str = BOB, rules: str = "") -> str:
    """``a`` invites ``b`` (``rules``: house rule words, e.g. ``ALT``), who says YES; returns the game id."""
    res = lifecycle_command(svc, a, f"NEW {b} {rules}".strip())
    assert res.outcome == "invited", res
    out = lifecycle_command(svc, b, "YES")
    assert out.outcome == "started", out
    return str(res.game_id)


def tick(svc: Dependencies) -> list[dict[str, Any]]:
    """One beat tick; the messages it caused are delivered; returns them."""
    before = len(local(svc))
    sent: list[str] = []
    run_tick(svc.config, svc.store, svc.steps, sent.extend, lambda turn: None)
    send_now(svc, sent)
    return local(svc)[before:]


def mover(svc: Dependencies, gid: str) -> str:
    """The address of the player to move."""
    game = load(svc, gid)
    assert game.movers
    return svc.store.meta(gid)[f"seat{game.movers[0]}"]


def other(svc: Dependencies, gid: str, address: str) -> str:
    meta = svc.store.meta(gid)
    return meta["seat1"] if meta["seat0"] == address else meta["seat0"]

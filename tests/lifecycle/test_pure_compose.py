"""Composing a move's messages calls no gateway (issue 42): the guard of :mod:`tests.pure_compose` holds every move
the suite plays to it; these tests show that it is on, and that a read brought back into composing fails a move."""

from __future__ import annotations

import pytest

from service.games import apply
from service.games.known import Known, NotRead
from service.records import GameMeta
from tests import pure_compose

from .helpers import load, move, mover, start_game


def test_every_move_composes_under_the_guard(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    assert hasattr(apply.turn_messages, "__wrapped__")  # the compose step is marked (tests.pure_compose.install)
    version = load(svc, gid).version
    res = move(svc, mover(svc, gid), "DRAW")
    assert res.outcome == "applied" and load(svc, gid).version > version
    assert not pure_compose.violations


def test_a_read_while_composing_fails_the_move(svc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    stored_since = Known.stored_since

    def reading(self: Known, since: int, before: int) -> list:  # type: ignore[type-arg]
        svc.store.meta(self.game_id)  # a read brought back into composing
        return stored_since(self, since, before)

    monkeypatch.setattr(Known, "stored_since", reading)
    with pytest.raises(AssertionError, match="composing"):
        move(svc, mover(svc, gid), "DRAW")
    assert pure_compose.violations  # (the guard saw it; emptied so this test passes)
    pure_compose.violations.clear()


def test_what_the_move_did_not_read_is_not_read_while_composing() -> None:
    known = Known({}, "g1", GameMeta({"status": "active", "seat0": "+15550000001", "seat1": "+15550000002"}), {}, 0)
    with pytest.raises(NotRead):
        known.lang("+15550000001")
    with pytest.raises(NotRead):
        known.stored_since(0, 3)
    with pytest.raises(NotRead):
        known.web_token("+15550000001", "g1", 0, None, None)

"""REMATCH while a game is still going, REMATCH sent twice, and resigning before a hand is scored (issue 45 case 6),
through the real signed webhook, a real Celery worker and the local outbox."""

from __future__ import annotations

from .test_linked_channels import ALICE, BOB, send


def alices(out: list[dict[str, str]]) -> list[str]:
    return [m["body"] for m in out if m["to"] == ALICE]


def test_rematch_during_a_live_game_against_a_person_says_the_game_goes_on(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, ALICE, f"NEW {BOB}")
    send(client, svc, BOB, "YES")
    [answer] = alices(send(client, svc, ALICE, "REMATCH"))
    assert "still going" in answer and "+1..0002" in answer and "RESIGN" in answer, answer
    assert len(svc.players.games(ALICE)) == 1  # no game, no invitation


def test_resigning_at_nil_nil_and_rematch_twice_against_the_computer(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, ALICE, "NEW BOT")
    send(client, svc, ALICE, "RESIGN")
    ended = alices(send(client, svc, ALICE, "YES"))
    assert ended and ended[-1].startswith("You resigned.") and "0 to 0" not in ended[-1], ended
    assert "wins" not in ended[-1], ended
    send(client, svc, ALICE, "REMATCH")
    assert len(svc.players.games(ALICE)) == 2
    [again] = alices(send(client, svc, ALICE, "REMATCH"))  # sent twice (no answer seen yet): one game
    assert len(svc.players.games(ALICE)) == 2, again
    assert "still going" in again, again

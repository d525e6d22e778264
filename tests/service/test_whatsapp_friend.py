"""A friend on WhatsApp invited by SMS (issue 45 case 4), through the real signed webhook, a real Celery worker and
the local outbox: ``NEW whatsapp:+1...`` invites that WhatsApp address (a refusal repeats every digit typed); YES
from WhatsApp finds the invitation, also one sent to the same number by SMS; GAMES tells two opponents of the same
number apart."""

from __future__ import annotations

from .helpers import local_messages
from .test_linked_channels import send as say
from .test_sms_game import ALICE

FRIEND = "whatsapp:+15550001003"
FRIEND_BY_SMS = "+15550001003"


def test_a_whatsapp_friend_is_invited_and_answers_yes_from_whatsapp(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    [refused] = say(client, svc, ALICE, "NEW whatsapp:+1555")  # too short: repeated as typed, every digit
    assert "whatsapp:+1555 is not" in refused["body"], refused["body"]
    [refused] = say(client, svc, ALICE, "NEW whatsapp:+99912345678901")  # no such country: every digit repeated
    assert "whatsapp:+99912345678901" in refused["body"], refused["body"]
    out = say(client, svc, ALICE, f"NEW {FRIEND}")
    assert svc.players.games(FRIEND) and not svc.players.games(FRIEND_BY_SMS)  # the WhatsApp address is invited
    # it never wrote to the service and no template is approved: WhatsApp would refuse the invitation, so it goes
    # to the same number by SMS (not lost in the outbox)
    [invitation] = [m for m in out if m["to"] != ALICE]
    assert invitation["to"] == FRIEND_BY_SMS and "invites you" in invitation["body"], out
    say(client, svc, FRIEND, "YES")
    gid = svc.players.games(ALICE)[0]
    assert svc.store.meta(gid)["status"] == "active" and svc.store.meta(gid)["seat1"] == FRIEND


def test_yes_from_whatsapp_finds_an_invitation_sent_to_the_same_number_by_sms(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    say(client, svc, ALICE, f"NEW {FRIEND_BY_SMS}")
    gid = svc.players.games(ALICE)[0]
    out = say(client, svc, FRIEND, "YES")
    assert svc.store.meta(gid)["status"] == "active", [m["body"] for m in out]
    assert svc.store.meta(gid)["seat1"] == FRIEND  # they play where they answered
    assert any(m["to"] == FRIEND for m in out) and not local_messages(svc, FRIEND_BY_SMS)[1:]


def test_games_tells_two_opponents_of_the_same_number_apart(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    say(client, svc, ALICE, f"NEW {FRIEND_BY_SMS}")
    say(client, svc, FRIEND_BY_SMS, "YES")
    say(client, svc, ALICE, f"NEW {FRIEND}")
    say(client, svc, FRIEND, "YES")
    [listing] = [m["body"] for m in say(client, svc, ALICE, "GAMES") if m["to"] == ALICE]
    first, _, second = listing.partition(", #")
    assert "+1..1003 " in first and "WA +1..1003 " in second, listing  # the game by WhatsApp says so
    assert "WA " not in first, listing

"""Linked channels through the real webhooks (Twilio's RequestValidator, Mailgun's signature, a real Celery worker,
the local outbox): LINK with the right code links, a wrong, expired or locked one links nothing; a move from the
linked address plays the home's game and its answer goes back where it came from; VIA moves the prompts; STOP on one
address leaves the other in play; a forged email From links nothing; UNLINK."""

from __future__ import annotations

import re
from typing import Any

from service.conversation_port import command_text
from spades.events import from_dict
from spades.game import fold
from tests.backends import BOTH

from .chooser import choose
from .helpers import local_messages, post_email, post_sms, wait_handled, wait_outbox_settled

ALICE, BOB, PHONE2 = "+15551230001", "+15551230002", "+15551230009"  # PHONE2: Alice's second phone
MAIL = "alice@example.org"


def send(client: Any, svc: Any, sender: str, text: str) -> list[dict[str, Any]]:
    """``text`` from ``sender`` through the webhook, handled; the messages it caused (to anyone)."""
    before = len(local_messages(svc))
    resp, mid = post_sms(client, sender, text)
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    return local_messages(svc)[before:]


def mail(client: Any, svc: Any, sender: str, recipient: str, text: str, **kw: Any) -> tuple[int, list[dict[str, Any]]]:
    """An email through Mailgun's route; (its status, the messages it caused once handled)."""
    before = len(local_messages(svc))
    resp, mid = post_email(client, sender, recipient, text, **kw)
    if resp.status_code == 200:
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
    return resp.status_code, local_messages(svc)[before:]


def start(client: Any, svc: Any) -> str:
    """Alice invites Bob, Bob says YES: the game id."""
    out = send(client, svc, ALICE, f"NEW {BOB}")
    assert any(m["to"] == BOB and "invites you" in m["body"] for m in out)
    send(client, svc, BOB, "YES")
    gid = svc.players.games(ALICE)[0]
    assert svc.store.meta(gid)["status"] == "active"
    return gid


def game(svc: Any, gid: str) -> Any:
    return fold(from_dict(e.event) for e in svc.store.load(gid))


def code_in(messages: list[dict[str, Any]], to: str) -> str:
    found = [m for m in messages if m["to"] == to and re.search(r"LINK (\d{6})", m["body"])]
    assert found, messages
    return re.search(r"LINK (\d{6})", found[-1]["body"]).group(1)  # type: ignore[union-attr]


def link_phone(client: Any, svc: Any) -> None:
    """Alice links PHONE2 with the code it receives."""
    code = code_in(send(client, svc, ALICE, f"LINK {PHONE2}"), PHONE2)
    out = send(client, svc, PHONE2, f"LINK {code}")
    assert [m["to"] for m in out] == [PHONE2, ALICE], out  # the address linked is told, and so is the player
    assert out[0]["body"].startswith("Linked: messages from here now play as")
    assert svc.links.home(PHONE2) == ALICE and svc.links.linked(ALICE) == [ALICE, PHONE2]


def alice_moves_from(client: Any, svc: Any, gid: str, sender: str) -> list[dict[str, Any]]:
    """Alice's next move, sent from ``sender`` (Bob's first while only he may move: who begins a hand is dealt)."""
    seat = int(svc.store.meta(gid)["seat0"] != ALICE)
    g = game(svc, gid)
    for _ in range(30):
        if g.may_move(seat):
            break
        send(client, svc, BOB, command_text(choose(g, 1 - seat)))
        g = game(svc, gid)
    version = g.version
    out = send(client, svc, sender, command_text(choose(g, seat)))
    assert svc.store.version(gid) > version, out  # applied to Alice's game
    return out


def bob_prompts_alice(client: Any, svc: Any, gid: str, alice_from: str = ALICE) -> list[dict[str, Any]]:
    """Bob moves (and Alice, from ``alice_from``, when only she may) until a move of Bob's sends Alice a message:
    the messages of that move."""
    bob = int(svc.store.meta(gid)["seat0"] != BOB)
    for _ in range(60):
        g = game(svc, gid)
        if g.may_move(bob):
            out = send(client, svc, BOB, command_text(choose(g, bob)))
            if [m for m in out if m["to"] in (ALICE, PHONE2, MAIL)]:
                return out
        else:
            alice_moves_from(client, svc, gid, alice_from)
    raise AssertionError("no move of Bob's sent Alice anything")


@BOTH
def test_the_right_code_links_and_a_move_from_the_linked_phone_plays_the_homes_game(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start(client, svc)
    link_phone(client, svc)
    svc.seats.note_home(PHONE2, PHONE2)  # as a worker that never saw the link: the home is read with the message
    out = alice_moves_from(client, svc, gid, PHONE2)
    assert svc.store.meta(gid)["seat0"] == ALICE  # the home stays who plays
    mine = [m for m in out if m["to"] in (ALICE, PHONE2)]
    assert mine and all(m["to"] == PHONE2 for m in mine)  # the answer to a message goes back where it came from
    # what Bob's moves send Alice goes to the home (no VIA): the default route
    out = bob_prompts_alice(client, svc, gid)
    assert [m["to"] for m in out if m["to"] in (ALICE, PHONE2)] == [ALICE]


def test_a_wrong_an_expired_or_a_locked_code_links_nothing(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    start(client, svc)
    code = code_in(send(client, svc, ALICE, f"LINK {PHONE2}"), PHONE2)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    out = send(client, svc, PHONE2, f"LINK {wrong}")
    assert [m["body"] for m in out] == ["Wrong code: nothing is linked. Check it and send it again."]
    assert svc.links.home(PHONE2) == PHONE2 and svc.links.linked(ALICE) == [ALICE]

    for _ in range(3):  # five wrong codes in all lock it: the right one then links nothing either
        send(client, svc, PHONE2, f"LINK {wrong}")
    assert "Too many wrong codes" in send(client, svc, PHONE2, f"LINK {wrong}")[0]["body"]
    assert "Too many wrong codes" in send(client, svc, PHONE2, f"LINK {code}")[0]["body"]
    assert svc.links.home(PHONE2) == PHONE2

    code = code_in(send(client, svc, ALICE, f"LINK {PHONE2}"), PHONE2)  # a new code: tries forgotten
    svc.store.clock.advance(16 * 60)  # past its 15 minutes, on the service's clock
    out = send(client, svc, PHONE2, f"LINK {code}")
    assert out[0]["body"].startswith("That code has expired: nothing is linked.")
    assert svc.links.home(PHONE2) == PHONE2 and svc.links.linked(ALICE) == [ALICE]
    assert send(client, svc, "+15551230003", f"LINK {code}")[0]["body"].startswith("No code is waiting")  # not its code
    assert svc.links.linked(ALICE) == [ALICE]


def test_via_sends_the_prompts_to_the_linked_mailbox_rendered_as_email(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start(client, svc)
    out = send(client, svc, ALICE, f"LINK {MAIL}")
    sent = next(m for m in out if m["to"] == MAIL)
    assert sent["channel"] == "email" and sent.get("subject") and sent.get("reply_to", "").startswith("play+")
    status, out = mail(client, svc, MAIL, sent["reply_to"], f"LINK {code_in([sent], MAIL)}")
    assert status == 200 and svc.links.home(MAIL) == ALICE
    assert send(client, svc, ALICE, "VIA EMAIL")[0]["body"].startswith("Your turns now go to ")
    # what Bob's move sends Alice goes to the mailbox, as an email (a subject, the game's reply address)
    mine = [m for m in bob_prompts_alice(client, svc, gid) if m["to"] in (ALICE, MAIL)]
    assert mine and all(m["to"] == MAIL and m["channel"] == "email" and m.get("subject") for m in mine), mine
    # and a move by email from the linked mailbox, to the game's reply address it got, is Alice's
    version = svc.store.version(gid)
    g = game(svc, gid)
    seat = int(svc.store.meta(gid)["seat0"] != ALICE)
    assert g.may_move(seat)  # prompted: her move
    status, out = mail(client, svc, MAIL, mine[-1]["reply_to"], command_text(choose(g, seat)))
    assert status == 200 and svc.store.version(gid) > version
    assert [m["to"] for m in out if m["to"] in (ALICE, MAIL)] in ([MAIL], [])  # its answer: to the mailbox
    assert send(client, svc, ALICE, "VIA WHATSAPP")[0]["body"] == (
        "You have no WhatsApp number: LINK one first, e.g. LINK whatsapp:+4791234567.")


def test_a_forged_from_cannot_link_an_email_address(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    start(client, svc)
    out = send(client, svc, ALICE, f"LINK {MAIL}")
    sent = next(m for m in out if m["to"] == MAIL)
    code = code_in([sent], MAIL)
    # a forged From (SPF fails for it): refused at the webhook, even with the right code at the right address
    status, _ = mail(client, svc, "mallory@evil.example", sent["reply_to"], f"LINK {code}", from_=MAIL)
    assert status == 406 and svc.links.home(MAIL) == MAIL
    status, _ = mail(client, svc, MAIL, sent["reply_to"], f"LINK {code}", spf="Fail")
    assert status == 406 and svc.links.home(MAIL) == MAIL
    # a verified sender writing to the bare address (not the reply address the code came with): refused too
    status, out = mail(client, svc, MAIL, "play@spades.example.test", f"LINK {code}")
    assert status == 200 and svc.links.home(MAIL) == MAIL
    assert [m["to"] for m in out] == [MAIL]
    assert svc.links.linked(ALICE) == [ALICE]


def test_stop_on_one_address_leaves_the_other_in_play(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start(client, svc)
    link_phone(client, svc)
    assert send(client, svc, ALICE, f"VIA {PHONE2}")[0]["body"] == "Your turns now go to +1..0009."
    out = send(client, svc, PHONE2, "STOP")  # the carrier's word: it confirms it itself; nothing else happens
    assert out == [] and svc.store.player_life_field(PHONE2, "stopped") == "1"
    assert svc.store.game_life_field(gid, f"pause:stop:{ALICE}") is None  # the game goes on
    out = alice_moves_from(client, svc, gid, PHONE2)  # a move from the stopped phone still plays; its answer
    assert [m["to"] for m in out if m["to"] in (ALICE, PHONE2)] == [ALICE]  # goes where the route says: home
    before = len(local_messages(svc))
    out = bob_prompts_alice(client, svc, gid)  # what Bob's move sends Alice goes home now
    assert [m["to"] for m in out if m["to"] in (ALICE, PHONE2)] == [ALICE]
    assert not [m for m in local_messages(svc)[before:] if m["to"] == PHONE2]  # nothing to the stopped phone
    out = send(client, svc, ALICE, "STOP")  # now no address of hers takes messages: paused, Bob told
    assert svc.store.game_life_field(gid, f"pause:stop:{ALICE}") is not None
    assert [m["to"] for m in out] == [BOB]
    out = send(client, svc, PHONE2, "START")  # back on the phone: the game resumes, Bob told, the phone welcomed
    assert sorted(m["to"] for m in out) == sorted([BOB, PHONE2])


def test_unlink_from_the_linked_phone(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start(client, svc)
    link_phone(client, svc)
    send(client, svc, ALICE, "VIA SMS")
    out = send(client, svc, PHONE2, "UNLINK")
    assert [m["to"] for m in out] == [PHONE2] and out[0]["body"].startswith("Unlinked: +1..0009.")
    assert svc.links.home(PHONE2) == PHONE2 and svc.links.linked(ALICE) == [ALICE]
    version = svc.store.version(gid)
    svc.seats.note_home(PHONE2, ALICE)  # as a worker that saw it act for Alice before: its guess is checked
    send(client, svc, PHONE2, "K")  # no longer Alice: nothing changes in her game
    assert svc.store.version(gid) == version


def test_the_page_word_with_an_address_links_it(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    """French HELP lists LIEN (the page's link): ``LIEN moi@example.fr`` means LINK, not "not understood" (issue 45
    case 12)."""
    french = "+33612345678"
    send(client, svc, french, "NOUVELLE BOT")
    out = send(client, svc, french, "LIEN moi@example.fr")
    assert {m["to"] for m in out} == {french, "moi@example.fr"}, out  # the code sent there, the player told
    assert re.search(r"LINK \d{6}", next(m["body"] for m in out if m["to"] == "moi@example.fr"))

"""Invitations by link (issue 43), through the real webhooks, the real link page and a real Celery worker, the Bot API
answered by the tests' local server: ``NEW`` alone answers with a link on SMS, WhatsApp, email and Telegram; the
friend who opens it on Telegram is invited there and plays after one tap on YES; one who opens it in a browser gives
an address and is invited there through the gate of any ``NEW`` (the countries, role addresses); a link is taken
once, expires, and says so."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.games.players import unfinished_games
from service.store import clock

from .helpers import local_messages, post_sms, wait_for, wait_handled, wait_outbox_settled
from .test_linked_channels import mail
from .test_linked_channels import send as sms
from .test_telegram import send, tap

A, B, WA = "+15551230001", "+15551230002", "whatsapp:+15551230003"
DANA = "dana@example.org"
FRIEND = 5550002  # a friend's Telegram chat
PAGE = re.compile(r"https://spades\.example\.test/i/([0-9a-f]{32})")
TG = re.compile(r"https://t\.me/slowspades_test_bot\?start=([0-9a-f]{32})")


@pytest.fixture()
def named(app, svc, bot):  # type: ignore[no-untyped-def]
    """The Bot API's local server, and a bot named: its links in the answers."""
    svc.config["TELEGRAM_BOT_NAME"] = "slowspades_test_bot"
    return bot


def link_in(text: str) -> str:
    """The token of the one invitation link in ``text``: the page's and Telegram's are the same link."""
    [token] = PAGE.findall(text)
    assert TG.findall(text) == [token], text
    return token


def sms_link(client: Any, svc: Any, sender: str = A, words: str = "NEW") -> str:
    out = sms(client, svc, sender, words)
    [reply] = [m for m in out if m["to"] == sender]
    return link_in(reply["body"])


def test_new_alone_answers_with_a_link_on_every_channel(client, svc, named, celery_worker) -> None:  # type: ignore[no-untyped-def]
    tokens = [sms_link(client, svc, A, "NEW TO 300 BAGS"), sms_link(client, svc, WA)]
    status, out = mail(client, svc, DANA, "play@spades.example.test", "HELP")
    [helped] = [m for m in out if m["to"] == DANA]
    status, out = mail(client, svc, DANA, helped["reply_to"], "NEW")  # a command: to her own reply address
    [reply] = [m for m in out if m["to"] == DANA]
    tokens.append(link_in(reply["body"]))
    send(client, svc, 5550001, "NEW")
    wait_for(lambda: named.sent(5550001), 15, "the Telegram answer")
    tokens.append(link_in(named.sent(5550001)[-1]["text"]))
    assert len(set(tokens)) == 4
    page = client.get(f"/i/{tokens[0]}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "+1..0001 invites you" in html and "first to 300" in html and "failed nil tricks count as bags" in html
    assert f'href="https://t.me/slowspades_test_bot?start={tokens[0]}"' in html
    assert not any(m["to"] not in (A, WA, DANA) for m in local_messages(svc))  # nobody else was written to


@pytest.mark.slow
def test_a_friend_opens_the_link_on_telegram_and_plays_after_one_tap_on_yes(client, svc, named, celery_worker) -> None:  # type: ignore[no-untyped-def]
    token = sms_link(client, svc)
    send(client, svc, FRIEND, f"/start {token}")  # the link opened in Telegram
    chat = f"telegram:{FRIEND}"

    def invitation() -> dict[str, Any] | None:
        last = named.sent(FRIEND)[-1] if named.sent(FRIEND) else {}
        rows = (last.get("reply_markup") or {}).get("inline_keyboard") or []
        return last if [b["callback_data"] for row in rows for b in row] == ["|YES", "|NO"] else None
    message = wait_for(invitation, 15, "the invitation with its YES and NO")
    assert "+1..0001 invites you" in message["text"]
    wait_outbox_settled(svc)
    assert "Invitation sent to tg..0002" in local_messages(svc, A)[-1]["body"]
    tap(client, svc, named, FRIEND, message, "YES")
    wait_outbox_settled(svc)
    started = [m for m in local_messages(svc, A) if "New game vs tg..0002" in m["body"]]
    assert started and any("New game vs +1..0001" in m["text"] for m in named.sent(FRIEND))
    other = FRIEND + 1  # the link forwarded on: taken already, it invites nobody more
    send(client, svc, other, f"/start {token}")
    wait_for(lambda: named.sent(other), 15, "the answer to a used link")
    assert "expired or was already used" in named.sent(other)[-1]["text"]
    assert not unfinished_games(svc.store, svc.players,
                                f"telegram:{other}") and len(unfinished_games(svc.store, svc.players, chat)) == 1


def test_the_inviters_own_link_and_an_expired_one_invite_nobody(client, svc, named, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, FRIEND, "NEW")
    wait_for(lambda: named.sent(FRIEND), 15, "the link")
    token = link_in(named.sent(FRIEND)[-1]["text"])
    send(client, svc, FRIEND, f"/start {token}")
    wait_for(lambda: len(named.sent(FRIEND)) == 2, 15, "the answer")
    assert "your own invitation link" in named.sent(FRIEND)[-1]["text"]
    clock.advance(svc.redis, 3 * 86400 + 60)  # past SLOWSPADES_INVITE_TTL
    send(client, svc, FRIEND + 1, f"/start {token}")
    wait_for(lambda: named.sent(FRIEND + 1), 15, "the answer")
    assert "expired or was already used" in named.sent(FRIEND + 1)[-1]["text"]
    assert client.get(f"/i/{token}").status_code == 410
    wait_outbox_settled(svc)
    assert not unfinished_games(svc.store, svc.players, f"telegram:{FRIEND + 1}")


@pytest.mark.slow
def test_a_friend_opens_the_link_in_a_browser_and_is_invited_by_sms(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    [reply] = [m for m in sms(client, svc, A, "NEW") if m["to"] == A]
    [token] = PAGE.findall(reply["body"])
    assert "t.me" not in reply["body"]  # no bot named: the page's link alone
    html = client.get(f"/i/{token}").get_data(as_text=True)
    assert "Play on Telegram" not in html and 'name="address"' in html
    bad = client.post(f"/i/{token}", data={"address": "<script>alert(1)</script>"})
    assert bad.status_code == 400
    text = bad.get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; is not a phone number or email address" in text
    assert "<script>alert" not in text
    sent = client.post(f"/i/{token}", data={"address": "+1 555 123 0002"})
    assert sent.status_code == 200 and "on its way to +1..0002: answer YES there" in sent.get_data(as_text=True)
    wait_outbox_settled(svc)
    [invite] = local_messages(svc, B)
    assert "+1..0001 invites you" in invite["body"]
    assert "Invitation sent to +1..0002" in local_messages(svc, A)[-1]["body"]
    again = client.post(f"/i/{token}", data={"address": "+15551230002"})  # sent twice: the same invitation
    assert again.status_code == 200
    resp, mid = post_sms(client, B, "YES")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert any("New game vs +1..0002" in m["body"] for m in local_messages(svc, A))
    assert len(local_messages(svc, B)) == 2  # the invitation once, then the game
    assert client.get(f"/i/{token}").status_code == 410
    other = client.post(f"/i/{token}", data={"address": "+15551230004"})
    assert other.status_code == 410 and "Ask your friend for a new one" in other.get_data(as_text=True)
    wait_outbox_settled(svc)
    assert not local_messages(svc, "+15551230004")


def test_an_address_a_link_brings_in_passes_the_gate_of_any_new(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc.config["SMS_INVITE_COUNTRIES"] = "US"
    token = PAGE.findall(next(m for m in sms(client, svc, A, "NEW") if m["to"] == A)["body"])[0]
    for address, why in (("+4791234567", "cannot be sent by SMS to"), ("postmaster@example.com", "does not write to")):
        refused = client.post(f"/i/{token}", data={"address": address})
        assert refused.status_code == 200 and "could not be sent to" in refused.get_data(as_text=True), address
        wait_outbox_settled(svc)
        assert not local_messages(svc, address)
        assert why in local_messages(svc, A)[-1]["body"]  # the inviter is told why, as for NEW <address>
    sent = client.post(f"/i/{token}", data={"address": "carl@example.org"})  # the link given back each time
    assert "on its way to" in sent.get_data(as_text=True)
    wait_outbox_settled(svc)
    assert "invites you" in local_messages(svc, "carl@example.org")[0]["body"]


def test_an_unknown_link_is_a_friendly_410(client, svc) -> None:  # type: ignore[no-untyped-def]
    for token in ("0" * 32, "not-a-token"):
        for resp in (client.get(f"/i/{token}"), client.post(f"/i/{token}", data={"address": "+15551230002"})):
            assert resp.status_code == 410 and "Ask your friend for a new one" in resp.get_data(as_text=True)
    assert not local_messages(svc)



def test_an_email_players_link_taken_in_a_browser_invites_the_address_given(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    status, out = mail(client, svc, DANA, "play@spades.example.test", "HELP")
    [helped] = [m for m in out if m["to"] == DANA]
    status, out = mail(client, svc, DANA, helped["reply_to"], "NEW TO 200")
    [token] = PAGE.findall(next(m for m in out if m["to"] == DANA)["body"])
    sent = client.post(f"/i/{token}", data={"address": B})
    assert sent.status_code == 200 and "on its way to +1..0002" in sent.get_data(as_text=True)
    wait_outbox_settled(svc)
    [invite] = local_messages(svc, B)
    assert "dana@.. invites you" in invite["body"] and "first to 200" in invite["body"]
    assert "Invitation sent to +1..0002" in local_messages(svc, DANA)[-1]["body"]


def test_a_link_refused_three_times_is_spent(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    """Each refusal is a message to the inviter: whoever holds the link cannot make them unending."""
    token = PAGE.findall(next(m for m in sms(client, svc, A, "NEW") if m["to"] == A)["body"])[0]
    for local in ("postmaster", "abuse", "hostmaster"):
        refused = client.post(f"/i/{token}", data={"address": f"{local}@example.com"})
        assert "could not be sent to" in refused.get_data(as_text=True)
    wait_outbox_settled(svc)
    told = len(local_messages(svc, A))
    spent = client.post(f"/i/{token}", data={"address": "carl@example.org"})
    assert spent.status_code == 410 and "Ask your friend for a new one" in spent.get_data(as_text=True)
    wait_outbox_settled(svc)
    assert not local_messages(svc, "carl@example.org") and len(local_messages(svc, A)) == told

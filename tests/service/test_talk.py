"""The talk across the table (SAY, MUTE, UNMUTE; issue 46), through the real webhooks and worker: a line reaches the
opponent by SMS, by email and on both game pages, marked as the sayer's and escaped; a link is refused, a long line
trimmed to one SMS segment, a flood of lines cut at the hour's limit, each with a reply saying why; MUTE and STOP
are honoured; the computer does not talk back."""

from __future__ import annotations

import html
import re
from typing import Any

from chat.gsm import segments
from service.lifecycle.invitations import game_id_for
from service.web.game import form_token

from .helpers import local_messages, post_email, post_sms, wait_handled, wait_outbox_settled
from .test_game_page import DANA, start_email_game
from .test_sms_game import ALICE, BOB, start_sms_game

HOSTILE = '<script>alert("x")</script> & <b>bold</b>'


def send(client: Any, svc: Any, who: str, body: str) -> None:
    resp, mid = post_sms(client, who, body)
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)


def bodies(svc: Any, who: str, since: int = 0) -> list[str]:
    return [m["body"] for m in local_messages(svc, who)[since:]]


def mails_to(smtp_server: Any, who: str) -> list[Any]:
    return [m for _f, rcpts, m in smtp_server.messages if who in rcpts]


def test_say_by_sms_reaches_the_opponent_marked_as_theirs_and_both_pages(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    send(client, svc, ALICE, "NAME Ana")
    send(client, svc, BOB, "NAME Bo")
    wait_outbox_settled(svc)
    before_b, before_a = len(local_messages(svc, BOB)), len(local_messages(svc, ALICE))
    send(client, svc, ALICE, "SAY nice play!")
    assert bodies(svc, BOB, before_b) == ["Ana says: nice play!"]
    assert bodies(svc, ALICE, before_a) == []  # relayed: nothing more to say to the sayer
    send(client, svc, BOB, "chat " + HOSTILE)
    [line] = bodies(svc, ALICE, before_a)
    assert line.startswith("Bo says: ") and "alert" in line
    for seat in (0, 1):  # the talk is on both pages, escaped, each line marked
        page = client.get(f"/g/{svc.players.ensure_web_token(gid, seat)}").get_data(as_text=True)
        assert "<script>alert" not in page and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
        assert "nice play!" in page and 'id="talk"' in page


def test_say_by_email_and_from_the_page_is_escaped_in_html(client, svc, smtp_server, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid, _invite = start_email_game(client, svc, smtp_server)
    send(client, svc, ALICE, "SAY " + HOSTILE)
    mail = mails_to(smtp_server, DANA)[-1]
    text = mail.get_body(("plain",)).get_content()
    page_html = mail.get_body(("html",)).get_content()
    assert "says: " + HOSTILE in text
    assert "<script>" not in page_html and html.escape(HOSTILE, quote=False).replace('"', "&#34;") in page_html \
        or "&lt;script&gt;" in page_html
    before = len(local_messages(svc, ALICE))
    reply_to = mail["Reply-To"]
    resp, mid = post_email(client, DANA, reply_to, "SAY good luck\n\nOn Mon, Slow Spades wrote:\n> hello")
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    [line] = bodies(svc, ALICE, before)
    assert line.endswith("says: good luck"), line
    # from Alice's page: a plain form, relayed to Dana by email
    token = svc.players.ensure_web_token(gid, 0)
    page = client.get(f"/g/{token}").get_data(as_text=True)
    assert f'action="/g/{token}/say"' in page
    sent = len(mails_to(smtp_server, DANA))
    resp = client.post(f"/g/{token}/say", data={"csrf": form_token(svc.store, token), "text": "well played <3"})
    assert resp.status_code == 303
    wait_outbox_settled(svc)
    wait_for_mails = mails_to(smtp_server, DANA)[sent:]
    assert any("says: well played <3" in m.get_body(("plain",)).get_content() for m in wait_for_mails)
    forged = client.post(f"/g/{token}/say", data={"csrf": "1.x", "text": "forged"})
    assert forged.status_code == 403


def test_hostile_lines_are_refused_or_trimmed_saying_why(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    start_sms_game(client, svc)
    before_b, before_a = len(local_messages(svc, BOB)), len(local_messages(svc, ALICE))
    send(client, svc, ALICE, "SAY play on https://evil.example/x now")
    send(client, svc, ALICE, "SAY see bit.ly/abc")
    assert bodies(svc, BOB, before_b) == []
    told = bodies(svc, ALICE, before_a)
    assert len(told) == 2 and all("link" in t for t in told), told
    before_a = len(local_messages(svc, ALICE))
    send(client, svc, ALICE, "SAY " + "blah " * 400)  # 2,000 characters
    [relayed] = bodies(svc, BOB, before_b)
    assert relayed.startswith("+1..0001 says: blah") or " says: blah" in relayed
    assert segments(relayed) == 1 and relayed.endswith("...")
    [trimmed] = bodies(svc, ALICE, before_a)
    assert "too long" in trimmed and segments(trimmed) == 1
    # 50 lines in a minute: the hour's limit (20, less the 1 relayed and the 2 refused) relayed, one reply past it
    before_b, before_a = len(local_messages(svc, BOB)), len(local_messages(svc, ALICE))
    for n in range(50):
        resp, mid = post_sms(client, ALICE, f"SAY line {n}")
        wait_handled(svc, mid)
    wait_outbox_settled(svc)
    got = bodies(svc, BOB, before_b)
    assert len(got) == 17 and got[-1].endswith("says: line 16"), got[-2:]
    told = bodies(svc, ALICE, before_a)
    assert len(told) == 1 and "at most 20 lines an hour" in told[0], told


def test_mute_and_stop_are_honoured(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    start_sms_game(client, svc)
    before_b, before_a = len(local_messages(svc, BOB)), len(local_messages(svc, ALICE))
    send(client, svc, BOB, "MUTE")
    assert any("Talk off" in b for b in bodies(svc, BOB, before_b))
    assert sum("turned the talk off" in b for b in bodies(svc, ALICE, before_a)) == 1  # told once
    send(client, svc, BOB, "MUTE")
    assert sum("turned the talk off" in b for b in bodies(svc, ALICE, before_a)) == 1  # not again
    before_b = len(local_messages(svc, BOB))
    send(client, svc, ALICE, "SAY are you there?")
    assert bodies(svc, BOB, before_b) == []
    assert "not sent" in bodies(svc, ALICE)[-1]
    send(client, svc, BOB, "SAY hi")
    assert "UNMUTE" in bodies(svc, BOB)[-1] and not any("hi" in b for b in bodies(svc, ALICE)[-1:])
    send(client, svc, BOB, "UNMUTE")
    before_b = len(local_messages(svc, BOB))
    send(client, svc, ALICE, "SAY welcome back")
    assert bodies(svc, BOB, before_b) == ["+1..0001 says: welcome back"] or \
        bodies(svc, BOB, before_b)[0].endswith("says: welcome back")
    send(client, svc, BOB, "STOP")
    before_b = len(local_messages(svc, BOB))
    send(client, svc, ALICE, "SAY still there?")
    assert bodies(svc, BOB, before_b) == []  # never to a number that sent STOP
    assert "STOP" in bodies(svc, ALICE)[-1] and "page" in bodies(svc, ALICE)[-1]


def test_the_computer_does_not_talk_back(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, ALICE, "NEW BOT")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    send(client, svc, ALICE, "SAY hello computer")
    assert "is the computer: it plays, it does not talk" in bodies(svc, ALICE)[-1]
    page = client.get(f"/g/{svc.players.ensure_web_token(gid, 0)}").get_data(as_text=True)
    assert re.search(r"hello computer", page)


def test_say_and_mute_words_in_every_language_and_bad_say_told_what_is_allowed(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    start_sms_game(client, svc)
    send(client, svc, ALICE, "SAY")
    assert "Add what to say, e.g. SAY nice play!" in bodies(svc, ALICE)[-1]
    send(client, svc, BOB, "LANG FR")
    before = len(local_messages(svc, BOB))
    send(client, svc, ALICE, "SAY salut")
    assert bodies(svc, BOB, before)[0].endswith("dit : salut")
    send(client, svc, BOB, "DIS merci")
    assert bodies(svc, ALICE)[-1].endswith("says: merci")

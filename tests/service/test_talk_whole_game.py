"""The talk across the table through a whole game (issue 46): a WhatsApp player and an email player play a game to
its end through the real signed webhooks and a real Celery worker (WhatsApp into the local outbox, email over a real
SMTP server, replies through the Mailgun route), saying lines both ways by WhatsApp, by email and from both game
pages while they play; a hostile line from WhatsApp is refused or trimmed with a reply saying why; the email
player's MUTE holds the WhatsApp player's lines back until UNMUTE; a line after the game ended still reaches them;
and the WhatsApp player's STOP is honoured."""

from __future__ import annotations

import html
from typing import Any

from chat.gsm import segments
from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from service.web.game import form_token

from .chooser import choose
from .helpers import local_messages, post_email, post_sms, wait_handled, wait_outbox_settled
from .test_sms_game import load_game
from .test_talk import mails_to
from .test_whatsapp import WA

ANA = "ana.lovelace@example.org"


def by_wa(client: Any, svc: Any, body: str) -> None:
    resp, mid = post_sms(client, WA, body)
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)


def by_mail(client: Any, svc: Any, reply_to: str, body: str) -> None:
    resp, mid = post_email(client, ANA, reply_to, body)
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)


def wa_bodies(svc: Any, since: int = 0) -> list[str]:
    return [m["body"] for m in local_messages(svc, WA)[since:]]


def mail_texts(smtp_server: Any, since: int = 0) -> list[str]:
    return [m.get_body(("plain",)).get_content() for m in mails_to(smtp_server, ANA)[since:]]


def mail_lines(smtp_server: Any, since: int = 0) -> list[str]:
    """The first line of each email to Ana since ``since`` (a relayed line is the whole of it)."""
    return [t.splitlines()[0] for t in mail_texts(smtp_server, since)]


def from_page(client: Any, svc: Any, gid: str, seat: int, line: str) -> None:
    token = svc.players.ensure_web_token(gid, seat)
    resp = client.post(f"/g/{token}/say", data={"csrf": form_token(svc.store, token), "text": line},
                       headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("#talk")
    wait_outbox_settled(svc)


def test_say_both_ways_by_whatsapp_email_and_the_pages_through_a_whole_game(  # type: ignore[no-untyped-def]
        client, svc, smtp_server, celery_worker) -> None:
    by_wa(client, svc, "LANG EN")
    by_wa(client, svc, "NAME Kostas")
    resp, mid = post_sms(client, WA, f"NEW {ANA} TO 150")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    reply_to = mails_to(smtp_server, ANA)[0]["Reply-To"]
    by_mail(client, svc, reply_to, "YES")
    by_mail(client, svc, reply_to, "NAME Ana")
    wa_seat = 0 if svc.store.meta(gid)["seat0"] == WA else 1
    # a hostile line from WhatsApp: a link refused, markup relayed as text and escaped on the page, a long one trimmed
    wa_before, mail_before = len(local_messages(svc, WA)), len(mails_to(smtp_server, ANA))
    by_wa(client, svc, "SAY see https://evil.example/win")
    assert mail_texts(smtp_server, mail_before) == [] and "link" in wa_bodies(svc, wa_before)[-1]
    by_wa(client, svc, 'SAY <script>alert("x")</script> gg')
    by_wa(client, svc, "SAY " + "well played " * 180)  # 2,160 characters
    [trimmed] = wa_bodies(svc, wa_before)[1:]
    assert "too long" in trimmed and segments(trimmed) == 1, trimmed
    relayed = mail_lines(smtp_server, mail_before)
    assert len(relayed) == 2 and relayed[0] == 'Kostas says: <script>alert("x")</script> gg', relayed
    html_mail = mails_to(smtp_server, ANA)[-2].get_body(("html",)).get_content()
    assert "<script>alert" not in html_mail
    said = ['<script>alert("x")</script> gg']  # every line relayed, in order, as both pages must show them
    moves = 0
    while load_game(svc, gid).phase != "over":
        game = load_game(svc, gid)
        if moves % 40 == 5 and moves < 120:  # three times, each way by each channel (within the hour's limit of 20)
            n = moves // 40
            wa_before, mail_before = len(local_messages(svc, WA)), len(mails_to(smtp_server, ANA))
            by_wa(client, svc, f"SAY wa line {n}")
            assert f"Kostas says: wa line {n}" in mail_lines(smtp_server, mail_before)
            by_mail(client, svc, reply_to, f"SAY mail line {n}\n\nOn Mon, slowspades wrote:\n> an old line")
            assert f"Ana says: mail line {n}" in wa_bodies(svc, wa_before), wa_bodies(svc, wa_before)
            from_page(client, svc, gid, 1 - wa_seat, f"page line {n} from Ana")
            assert f"Ana says: page line {n} from Ana" in wa_bodies(svc, wa_before)
            from_page(client, svc, gid, wa_seat, f"page line {n} from Kostas")
            assert f"Kostas says: page line {n} from Kostas" in mail_lines(smtp_server, mail_before)
            said += [f"wa line {n}", f"mail line {n}", f"page line {n} from Ana", f"page line {n} from Kostas"]
        seat = game.movers[0]
        text = command_text(choose(game, seat))
        if seat == wa_seat:
            resp, mid = post_sms(client, WA, text)
        else:
            resp, mid = post_email(client, ANA, reply_to, text)
        wait_handled(svc, mid)
        moves += 1
        assert moves < 3000
    wait_outbox_settled(svc)
    assert len(said) == 13, said  # the game was long enough for the three rounds of talk
    for seat in (0, 1):  # both pages: every line, in order, escaped
        page = client.get(f"/g/{svc.players.ensure_web_token(gid, seat)}").get_data(as_text=True)
        assert "<script>alert" not in page and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; gg" in page
        talk = html.unescape(page.split('<section id="talk"')[1].split("</section>")[0])
        at = [talk.index(line) for line in said]
        assert at == sorted(at), seat
        assert "evil.example" not in talk
    # MUTE by email: Kostas's lines held back, he is told; UNMUTE: they pass again
    by_mail(client, svc, reply_to, "MUTE")
    mail_before, wa_before = len(mails_to(smtp_server, ANA)), len(local_messages(svc, WA))
    by_wa(client, svc, "SAY are you there?")
    assert mail_texts(smtp_server, mail_before) == [] and "not sent" in wa_bodies(svc, wa_before)[-1]
    by_mail(client, svc, reply_to, "UNMUTE")
    mail_before = len(mails_to(smtp_server, ANA))
    by_wa(client, svc, "SAY thanks for the game")
    assert mail_lines(smtp_server, mail_before) == ["Kostas says: thanks for the game"]
    # STOP by WhatsApp: nothing more to that address, and Ana is told her line went nowhere
    by_wa(client, svc, "STOP")
    wa_before, mail_before = len(local_messages(svc, WA)), len(mails_to(smtp_server, ANA))
    by_mail(client, svc, reply_to, "SAY bye")
    assert wa_bodies(svc, wa_before) == []
    assert "STOP" in mail_texts(smtp_server, mail_before)[-1]

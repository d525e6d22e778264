"""Each player's private page of a game (issue 14, "Beyond"): ``WEB`` answers with its link (a long random token),
the page shows that player's hand, the bids, the tricks and the score sheet in their language and never a card
the other player holds; a wrong token is a 404; every email about a game under way carries its link."""

from __future__ import annotations

import re

from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for

from .chooser import choose
from .helpers import local_messages, post_email, post_sms, wait_for, wait_handled, wait_outbox_settled
from .test_sms_game import ALICE, BOB, load_game, start_sms_game

LINK = re.compile(r"https?://\S+/g/([0-9a-f]{32})")
SUITS = {"S": "\u2660", "H": "\u2665", "C": "\u2663", "D": "\u2666"}


def shown(code: str) -> str:
    """A card as the page shows it (``10♥``)."""
    return f">{code[:-1]}{SUITS[code[-1]]}</span>"


def named(code: str) -> str:
    """A card as the English page names it to a screen reader (``queen of hearts``)."""
    rank = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}.get(code[:-1], code[:-1])
    return f"{rank} of {dict(S='spades', H='hearts', C='clubs', D='diamonds')[code[-1]]}"


def link_of(svc, client, who):  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, who, "WEB")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    body = local_messages(svc, who)[-1]["body"]
    m = LINK.search(body)
    assert m, body
    return m.group(0), m.group(1)


def play_until_trick(client, svc, gid, tricks: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        game = load_game(svc, gid)
        if sum(game.tricks_won) >= tricks and game.phase == "play" and game.trick:
            return
        seat = game.movers[0]
        resp, mid = post_sms(client, (ALICE, BOB)[seat], command_text(choose(game, seat)))
        wait_handled(svc, mid)
    raise AssertionError("the hand did not get that far")


def test_web_links_each_player_to_their_own_page(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    svc.players.set_lang(BOB, "fr")
    play_until_trick(client, svc, gid, 2)
    url_a, tok_a = link_of(svc, client, ALICE)
    url_b, tok_b = link_of(svc, client, BOB)
    assert tok_a != tok_b and len(tok_a) == 32
    game = load_game(svc, gid)
    for seat, token, lang in ((0, tok_a, "en"), (1, tok_b, "fr")):
        resp = client.get(f"/g/{token}")
        assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
        page = resp.get_data(as_text=True)
        assert f'<html lang="{lang}">' in page and 'name="viewport"' in page
        for card in game.hands[seat]:
            assert shown(card.code) in page
        for card in game.hands[1 - seat]:  # the other player's cards: never, as a card, a button's value or a name
            assert shown(card.code) not in page and f'value="{card.code}"' not in page, card.code
            assert named(card.code) not in page.lower(), card.code
        assert all(named(c.code) in page.lower() for c in game.hands[seat]) or lang != "en"  # where names are
        assert re.findall(r"<script[^>]*>", page) == ['<script src="/page.js" defer>']  # no inline script
        # issue 23 case 15: the bids right-aligned as the other numbers (the table's strip: score, bags, bid, tricks)
        strip = page.split('id="strip"')[1].split("</table>")[0]
        assert len(re.findall(r'<tr><th scope="row">[^<]+</th>(?:<td class="n">[^<]+</td>){4}</tr>', strip)) == 2, strip
    page_a = client.get(f"/g/{tok_a}").get_data(as_text=True)
    tricks = [e.event for e in svc.store.load(gid) if e.event["type"] == "trick_won"]
    assert re.findall(r'<td class="led">([^<]+)</td>', page_a) == [
        "You" if int(t["cards"][0][0]) == 0 else "+1..0002" for t in tricks]  # who led each trick
    page_b = client.get(f"/g/{tok_b}").get_data(as_text=True)
    assert ALICE not in page_b and "+1..0001" in page_b  # the opponent as the SMS names them, never the whole number
    assert "Feuille de score" in page_b and "Plis de cette manche" in page_b
    assert client.get("/g/" + "0" * 32).status_code == 404
    assert client.get(f"/g/{tok_a[:-1]}x").status_code == 404


def test_the_score_sheet_hand_by_hand(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    for _ in range(3000):
        game = load_game(svc, gid)
        if game.hand_no >= 2 or game.phase == "over":
            break
        seat = game.movers[0]
        resp, mid = post_sms(client, (ALICE, BOB)[seat], command_text(choose(game, seat)))
        wait_handled(svc, mid)
    _url, token = link_of(svc, client, ALICE)
    page = client.get(f"/g/{token}").get_data(as_text=True)
    hand1 = [e.event for e in svc.store.load(gid) if e.event["type"] == "hand_scored"][0]["scores"][0]
    assert "Score sheet" in page and "<caption" in page and "Hand 1</caption>" in page
    for label in ("Bid points", "Bags this hand", "Hand total", "Game total", "Bags carried"):
        assert label in page
    assert f'<td class="n">{hand1["game_total"]}</td>' in page


DANA = "dana@example.org"


def start_email_game(client, svc, smtp_server):  # type: ignore[no-untyped-def]
    """Alice (SMS) invites Dana (email), who answers YES to the invitation's reply address: (game id, invitation)."""
    resp, mid = post_sms(client, ALICE, f"NEW {DANA}")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    invite = [m for _f, rcpts, m in smtp_server.messages if DANA in rcpts][0]
    resp, mid = post_email(client, DANA, invite["Reply-To"], "YES")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    return gid, invite


def test_every_email_about_a_game_carries_its_link(client, svc, smtp_server, celery_worker) -> None:  # type: ignore[no-untyped-def]
    dana = DANA
    gid, invite = start_email_game(client, svc, smtp_server)
    mails = [m for _f, rcpts, m in smtp_server.messages if dana in rcpts]
    token = svc.store.meta(gid)["web1"]
    assert "/g/" not in invite.get_body(("plain",)).get_content()  # no game to show before YES
    assert len(mails) >= 2
    for m in mails[1:]:
        assert f"/g/{token}" in m.get_body(("plain",)).get_content()
        assert f'href="https://spades.example.test/g/{token}"' in m.get_body(("html",)).get_content()
    # the replies about the game written in the player's own outbox too (SCORE, WEB, HAND)
    for word in ("SCORE", "WEB", "HAND"):
        n = len(smtp_server.messages)
        resp, mid = post_email(client, dana, invite["Reply-To"], word)
        wait_handled(svc, mid)
        wait_outbox_settled(svc)
        wait_for(lambda n=n: len(smtp_server.messages) > n, what=f"the answer to {word}")
        last = [m for _f, rcpts, m in smtp_server.messages if dana in rcpts][-1]
        assert f"/g/{token}" in last.get_body(("plain",)).get_content(), word


def test_every_html_page_and_email_has_a_viewport() -> None:
    """Issue 23 case 15: an HTML email without a viewport renders 980 px wide on a phone."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    heads = [p for p in root.rglob("*.html.j2") if "<head" in p.read_text(encoding="utf-8")]
    assert len(heads) >= 4  # the emails' base, the hand summary, the game page, the rules page...
    missing = [str(p.relative_to(root)) for p in heads
               if '<meta name="viewport" content="width=device-width, initial-scale=1">' not in p.read_text(encoding="utf-8")]
    assert not missing, missing

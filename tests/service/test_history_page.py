"""A player's page of their games (issue 46, ``/g/<token>/games``), through the real webhook and worker: reached from
the game page, it lists the player's games (newest first) with the opponent, the day, the result, the score and
each game's score sheet, links each to the player's own page of that game (never the opponent's), tells the
head-to-head record right after a third game between the same two people, escapes a hostile name and shows no card
of anyone's."""

from __future__ import annotations

import html
import re
from typing import Any

from markupsafe import escape

from service.lifecycle.invitations import game_id_for
from service.store import clock
from service.store.keys import owner_keys, player_owner

from .helpers import post_sms, wait_handled, wait_outbox_settled
from .test_plans_sms import play_until, send
from .test_record import new_game, resign
from .test_sms_game import ALICE, BOB

CY = "+15551230003"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
CARDS = re.compile("[\u2660\u2665\u2663\u2666]")


def page_token(svc: Any, gid: str, who: str) -> str:
    seat = 0 if svc.store.meta(gid)["seat0"] == who else 1
    return str(svc.players.ensure_web_token(gid, seat))


def games_page(client: Any, svc: Any, gid: str, who: str) -> str:
    page = client.get(f"/g/{page_token(svc, gid, who)}").get_data(as_text=True)
    link = re.search(r'<p id="history-link"><a href="([^"]+)">', page)
    assert link, "no link from the game page to the player's games"
    resp = client.get(link.group(1))
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
    return str(resp.get_data(as_text=True))


def test_the_games_page_and_the_record_right_after_a_third_game(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, ALICE, "NAME Ana")
    send(client, svc, BOB, "NAME Bo")
    first = new_game(client, svc, f"NEW {BOB}")
    play_until(client, svc, first, lambda g: g.hand_no == 2)  # one hand scored: a score sheet of one row
    resign(client, svc, ALICE)  # Bo 1-0
    second = new_game(client, svc, "REMATCH")
    resign(client, svc, ALICE)  # Bo 2-0
    third = new_game(client, svc, "REMATCH")
    resign(client, svc, BOB)  # Bo 2-1, right after the third game
    resp, mid = post_sms(client, ALICE, f"NEW {CY}")  # a fourth game, under way, against a hostile name
    wait_handled(svc, mid)
    fourth = game_id_for(mid)
    send(client, svc, CY, "YES")
    svc.redis.hset(owner_keys(player_owner(CY))["meta"], "name", HOSTILE)  # a name NAME would refuse
    wait_outbox_settled(svc)

    page = games_page(client, svc, third, ALICE)
    assert "Bo leads you 2-1." in html.unescape(page)
    assert "<script>alert" not in page and "<img src=x" not in page and str(escape(HOSTILE)) in page
    assert not CARDS.search(page), "a card on the page of games"
    entries = page.split('<li class="game">')[1:]
    assert len(entries) == 4, page
    expected = [(fourth, "Under way: you 0, "), (third, "You won "), (second, "You lost "), (first, "You lost ")]
    for entry, (gid, result) in zip(entries, expected):  # newest first, each to Ana's own page of it
        text = html.unescape(entry)
        assert result in text, (gid, text)
        mine, theirs = page_token(svc, gid, ALICE), page_token(svc, gid, BOB if gid != fourth else CY)
        assert f'href="/g/{mine}"' in entry and theirs not in page, (gid, entry)
        assert ("vs Bo, " in text) == (gid != fourth)
    assert "Ended by a resignation." in entries[1] and 'aria-current="page"' in entries[1]
    sheet = entries[3]  # the first game's score sheet: its one hand, the totals Ana and Bo scored
    hand = next(se.event for se in svc.store.load(first) if se.event["type"] == "hand_scored")
    ana = 0 if svc.store.meta(first)["seat0"] == ALICE else 1
    assert "(1 hand)" in sheet, sheet
    row = re.search(r'<tr><th scope="row" class="n">1</th>(.*?)</tr>', sheet, re.S)
    assert row, sheet
    cells = re.findall(r'<td class="n">(.*?)</td>', row.group(1))
    assert cells[2] == str(hand["scores"][ana]["game_total"]) and cells[5] == str(hand["scores"][1 - ana]["game_total"])
    bo = games_page(client, svc, third, BOB)  # Bo's page: his record, his own links
    assert "You lead Ana 2-1." in html.unescape(bo) and page_token(svc, third, ALICE) not in bo
    svc.players.set_lang(ALICE, "fr")
    french = games_page(client, svc, third, ALICE)
    assert '<html lang="fr">' in french and "Tes parties" in french
    assert client.get("/g/" + "0" * 32 + "/games").status_code == 404
    clock.advance(svc.store.r, 31 * 86400)  # past SLOWSPADES_PAGE_TTL_DAYS after the third game ended: its link is dead
    assert client.get(f"/g/{page_token(svc, third, ALICE)}/games").status_code == 410
    assert client.get(f"/g/{page_token(svc, fourth, ALICE)}/games").status_code == 200  # a game under way: alive

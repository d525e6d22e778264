"""Each player's private game page in a real headless Chromium (issue 14, "Beyond"): during a hand both players
open the link ``WEB`` answered them with; each page shows that player's hand and no card the other holds; a
wrong token is a 404. The moves are signed by the simulator and posted to the real ``/sms`` webhook; a real
Celery worker handles them."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from typing import Any

import pytest

from service import conversation_port as port
from spades.game import Game
from tests.waiting import wait_for

from .test_simulator_browser import PHONE_A, PHONE_B, choose, game_of, sent_to, settled

pytestmark = pytest.mark.browser
SUITS = {"S": "\u2660", "H": "\u2665", "C": "\u2663", "D": "\u2666"}
LINK = re.compile(r"https?://\S+/g/[0-9a-f]{32}")


def post(url: str, data: dict[str, Any] | None = None, form: dict[str, str] | None = None,
         headers: dict[str, str] | None = None) -> Any:
    body = json.dumps(data).encode() if data is not None else urllib.parse.urlencode(form or {}).encode()
    req = urllib.request.Request(url, data=body, headers={
        "Content-Type": "application/json" if data is not None else "application/x-www-form-urlencoded",
        **(headers or {})})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"null") if data is not None else resp.status


def text(live: Any, sender: str, body: str) -> None:
    """What the simulator's phone does: have the message signed as Twilio signs it, post it to /sms."""
    signed = post(live.url + "/simulator/sign", {"channel": "sms", "from": sender, "body": body})
    assert post(live.url + signed["path"], form=signed["form"], headers=signed["headers"]) == 200


def shown_card(code: str) -> str:
    return f"{code[:-1]}{SUITS[code[-1]]}"


def start_game(live: Any) -> str:
    """A game between the two phones, by SMS (``NEW``, ``YES``), started; its id."""
    text(live, PHONE_A, f"NEW {PHONE_B}")
    wait_for("the invitation", lambda: live.svc.players.games(PHONE_B))
    game_id: str = live.svc.players.games(PHONE_B)[0]
    text(live, PHONE_B, "YES")
    wait_for("the game to start", lambda: settled(live, game_id, 0))
    return game_id


def by_sms_until(live: Any, game_id: str, done: Any, limit: int = 120) -> Game:
    """Both players move by SMS (each move awaited to its outbox) until ``done(game)``; the game then."""
    meta = live.svc.store.meta(game_id)
    address_of = {0: meta["seat0"], 1: meta["seat1"]}
    for moves in range(limit):
        game = game_of(live, game_id)
        if done(game):
            return game
        seat = game.movers[0]
        text(live, address_of[seat], port.command_text(choose(game, seat, keep=moves % 3 != 2)))
        wait_for(f"move {moves + 1}", lambda v=game.version: settled(live, game_id, v))
    raise AssertionError(f"not reached in {limit} moves")


def test_both_players_pages_during_a_hand(chromium: Any, live_service: Any) -> None:
    live = live_service
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address_of = {0: meta["seat0"], 1: meta["seat1"]}
    by_sms_until(live, game_id, lambda g: sum(g.tricks_won) >= 1 and len(g.trick) == 1)  # the 2nd trick's lead
    links = {}
    for seat, address in address_of.items():
        before = len(sent_to(live, address))
        text(live, address, "WEB")
        wait_for("the link", lambda a=address, n=before: len(sent_to(live, a)) > n)
        links[seat] = LINK.search(sent_to(live, address)[-1]).group(0)  # type: ignore[union-attr]
    assert links[0] != links[1]
    game = game_of(live, game_id)
    page = chromium.new_page(viewport={"width": 390, "height": 844})  # a phone's screen
    try:
        for seat, url in links.items():
            resp = page.goto(url)
            assert resp is not None and resp.status == 200
            hand = page.locator("#hand .card").all_inner_texts()
            assert sorted(hand) == sorted(shown_card(c.code) for c in game.hands[seat])
            every_card = set(page.locator(".card").all_inner_texts())
            held_by_other = {shown_card(c.code) for c in game.hands[1 - seat]}
            assert not every_card & held_by_other, every_card & held_by_other
            assert page.locator("#tricks tr").count() == 1 + sum(game.tricks_won)  # the header and trick 1
            assert page.locator("#trick .card").count() == 1  # the card led to the second trick
            assert page.evaluate("document.documentElement.scrollWidth") <= 390  # readable on a phone
        wrong = links[0][:-4] + ("0000" if not links[0].endswith("0000") else "1111")
        resp = page.goto(wrong)
        assert resp is not None and resp.status == 404
    finally:
        page.close()

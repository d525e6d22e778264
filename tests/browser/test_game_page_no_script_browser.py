"""A whole hand played from the two game pages with JavaScript off, in a real headless Chromium (issue 45 case 1).

The page sends ``Referrer-Policy: no-referrer``, so Chromium posts its forms with ``Origin: null``; each move is a
plain form posted by a click (no script runs on the page), answered by a redirect back to the page. Every move of
the hand, the double nil question, the draw, both bids and every card clicked, must be taken, none refused as "not
sent from this page"; neither page ever shows a card the other holds; the score sheet shows the hand scored; the
card colours' form works as plainly."""

from __future__ import annotations

from typing import Any

import pytest

from tests.waiting import wait_for

from .answers import hurried
from .test_game_page_browser import shown_card, start_game
from .test_simulator_browser import game_of

pytestmark = pytest.mark.browser


def click_answer(page: Any, keep: bool) -> str:
    """Click (on a page without script) the answer a player in a hurry would give; returns what it was."""
    choice = hurried([str(b.get_attribute("value")) for b in page.locator("#ask button").all()], keep)
    with page.expect_navigation():
        page.locator(f'#ask button[value="{choice}"]').click()
    return choice


def test_a_whole_hand_played_by_forms_with_javascript_off(chromium: Any, live_service: Any) -> None:
    live = live_service
    game_id = start_game(live)
    urls = {seat: f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, seat)}" for seat in (0, 1)}
    contexts = {seat: chromium.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
                for seat in (0, 1)}
    pages = {seat: contexts[seat].new_page() for seat in (0, 1)}
    posted: list[dict[str, str]] = []
    for seat, page in pages.items():
        page.on("request", lambda r: posted.append(r.headers) if r.method == "POST" else None)
    try:
        clicks = 0
        phases: set[str] = set()
        shows: dict[int, int] = {}  # the game's version each page shows (its last load, or the redirect after a move)
        while True:
            game = game_of(live, game_id)
            if game.hand_no > 1 or game.phase == "over":
                break
            phases.add(game.phase)
            seat = game.movers[0]
            page = pages[seat]
            if shows.get(seat) != game.version:  # a player without script reloads to see the game move on
                resp = page.goto(urls[seat])
                assert resp is not None and resp.status == 200
            held = {shown_card(c.code) for c in game.hands[1 - seat]}
            assert not set(page.locator(".card").all_inner_texts()) & held
            version = game.version
            click_answer(page, keep=clicks % 3 != 2)
            clicks += 1
            assert page.locator("#flash").count() == 0, page.locator("#flash").inner_text()  # taken, not refused
            shows[seat] = wait_for(f"move {clicks} applied",
                                   lambda v=version: (now := live.svc.store.version(game_id)) > v and now, timeout=20)
            assert clicks < 200
        assert {"draw", "bid", "play"} <= phases
        assert posted and all(h.get("origin") == "null" for h in posted)  # what made the check refuse every move
        logged = [e.event["type"] for e in live.svc.store.load(game_id)]
        assert logged.count("card_played") >= 26 and "hand_scored" in logged
        for seat, page in pages.items():
            page.goto(urls[seat])
            scored = page.locator("#sheet tbody tr").first.locator("td b").all_inner_texts()
            assert len(scored) == 2 and all(s.lstrip("-").isdigit() for s in scored)
        with pages[0].expect_navigation():  # the card colours: a plain form too
            pages[0].locator('#colours button[value="4"]').click()
        assert pages[0].locator("main.four").count() == 1 and pages[1].locator("main.four").count() == 0
    finally:
        for c in contexts.values():
            c.close()

"""A whole hand played from the two players' game pages in a real headless Chromium (issue 23): the double nil
question, every draw decision, both bids and every card are clicked on the pages (390 px wide, each player in a
browser context of their own); each page follows the other player's moves without a reload; neither page ever
shows a card the other holds; and neither phone gets an SMS about a move made on a page (both players are on
their pages). After each move the keyboard focus is on what the page asks next (or where the game stands), and
every answer has a name a screen reader reads. The real app serves the pages and a real Celery worker applies the
moves."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import wait_for

from .test_game_page_browser import shown_card, start_game
from .test_simulator_browser import game_of, sent_to

pytestmark = pytest.mark.browser
SHOTS_ENV = "SLOWSPADES_PAGE_SCREENSHOTS"  # a directory: a picture of each page at the bids and at the end


def answer(page: Any, keep: bool) -> str:
    """Click the answer a player in a hurry would give to the question the page shows; returns what it was."""
    ask = page.locator("#ask")
    choice = hurried(ask.locator("button").evaluate_all("bs => bs.map(b => b.value)"), keep)
    ask.locator(f'button[value="{choice}"]').click()
    return choice


def hurried(values: list[str], keep: bool) -> str:
    """Of the answers a page offers (the buttons' values), the one a player in a hurry gives."""
    if "DRAW" in values:
        choice = "DRAW"
    elif "KEEP" in values:
        choice = "KEEP" if keep else "DISCARD"
    elif "SWAP" in values:
        choice = "SWAP"
    elif "BID 3" in values:
        choice = "BID 3"
    else:
        choice = values[0]  # the first card that may be played
    return choice


def test_a_whole_hand_played_from_both_pages(chromium: Any, live_service: Any) -> None:
    live = live_service
    live.app.config["PAGE_POLL_SECONDS"] = 0.25  # the pages ask often: the test does not wait for them
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address = {0: meta["seat0"], 1: meta["seat1"]}
    urls = {seat: f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, seat)}" for seat in (0, 1)}
    contexts = {seat: chromium.new_context(viewport={"width": 390, "height": 844}) for seat in (0, 1)}
    pages = {seat: contexts[seat].new_page() for seat in (0, 1)}
    shots = os.environ.get(SHOTS_ENV)
    try:
        for seat, page in pages.items():
            resp = page.goto(urls[seat])
            assert resp is not None and resp.status == 200
            page.evaluate("window.notReloaded = true")  # gone if the page ever loads again
        sms_before = {seat: len(sent_to(live, address[seat])) for seat in (0, 1)}
        moves = {0: 0, 1: 0}
        plays = 0  # cards clicked: the rest of the hand's 26 plays itself (forced cards, a decided hand's end)
        seen_phases: set[str] = set()
        while True:
            on_page = {seat: set(page.locator(".card").all_inner_texts()) for seat, page in pages.items()}
            game = game_of(live, game_id)  # read after the pages: what the other holds now, and held then
            for seat in pages:  # never a card the other holds, whatever the page shows
                held = {shown_card(c.code) for c in game.hands[1 - seat]}
                assert not on_page[seat] & held, (seat, on_page[seat] & held)
            if game.hand_no > 1 or game.phase == "over":
                break
            seen_phases.add(game.phase)
            movers = [s for s in game.movers if pages[s].locator("#ask button").count()]
            if not movers:  # the page of the player to move has not caught up yet: it will, by itself
                wait_for("a page to show its question", lambda g=game: any(
                    pages[s].locator("#ask button").count() for s in g.movers), timeout=20)
                continue
            seat = movers[0]
            if shots and (game.phase == "bid" or game.phase == "play" and sum(game.tricks_won) == 4):
                pages[seat].screenshot(path=str(Path(shots) / f"page-{game.phase}-seat{seat}.png"), full_page=True)
            before = pages[seat].evaluate("document.body.dataset.ask")
            unnamed = pages[seat].evaluate("[...document.querySelectorAll('#ask button')]"
                                           ".filter(b => !(b.getAttribute('aria-label') || b.textContent).trim()).length")
            assert unnamed == 0  # a screen reader names every answer
            answer(pages[seat], keep=moves[seat] % 3 != 2)
            moves[seat] += 1
            plays += game.phase == "play"
            pages[seat].wait_for_function("a => document.body.dataset.ask !== a", arg=before, timeout=20_000)
            # after a move, the keyboard focus is on what comes next: the next question, or where the game stands
            pages[seat].wait_for_function("() => ['ask-h', 'state'].includes(document.activeElement.id)", timeout=20_000)
            assert sum(moves.values()) < 200
        # the double nil question twice, 26 draw decisions and both bids were answered on the pages, and each card
        # clicked was one move of the log: a batch of events that a card played starts (autoplay's cards ride in it)
        assert {"draw", "bid", "play"} <= seen_phases and sum(moves.values()) - plays >= 2 + 26 + 2
        logged = live.svc.store.load(game_id)
        hand1 = logged[:next(i for i, e in enumerate(logged) if e.event["type"] == "hand_scored") + 1]
        assert sum(e.event["type"] == "card_played" for e in hand1) == 26
        assert 1 <= plays == sum(e.message_id is not None and e.event["type"] == "card_played" for e in hand1)
        # both pages show the hand scored, by themselves: the score sheet's first row
        for seat, page in pages.items():
            page.locator("#sheet tbody tr").first.wait_for(timeout=20_000)
            assert page.evaluate("window.notReloaded === true")  # updated in place, never reloaded
            assert page.evaluate("document.documentElement.scrollWidth") <= 390  # readable on a phone
            assert page.evaluate("(t => t.scrollWidth <= t.parentElement.clientWidth)(document.getElementById('sheet'))")
            if shots:
                page.screenshot(path=str(Path(shots) / f"page-end-seat{seat}.png"), full_page=True)
        scored = hand1[-1].event
        totals = pages[0].locator("#sheet tbody tr").first.locator("td b").all_inner_texts()
        assert totals == [str(scored["scores"][0]["game_total"]), str(scored["scores"][1]["game_total"])]
        for seat in (0, 1):  # every move was made on the pages, where both players were: no SMS about any
            assert len(sent_to(live, address[seat])) == sms_before[seat], sent_to(live, address[seat])[sms_before[seat]:]
    finally:
        for c in contexts.values():
            c.close()

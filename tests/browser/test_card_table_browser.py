"""The game page as a card table (issue 46) in Debian's headless Chromium, each player in a browser context of their
own at a phone's size (390x844): a whole hand played by tapping the table, the double nil question, the draw and the
bids on the page's buttons and every card chosen a card of the hand fanned on the table (the cards that may be played
raised buttons named "Play queen of hearts", exactly the legal ones, the others dimmed); the trick sits on the felt with
who led it; no card the opponent holds reaches the page, in its text or any attribute or label; the cards in four
colours are the player's choice, kept across reloads and devices, and the other player's page is left as it was.

With ``SLOWSPADES_TABLE_SCREENSHOTS`` set to a directory (``docs/``), the table is saved at each phase (the draw, the
bids, the play with a trick on the table, a hand's end) at 390x844 and 1280x800: ``table-<phase>-<width>.png``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from spades.commands import Play
from spades.game import legal_moves

from .answers import answer
from .test_game_page_browser import by_sms_until, shown_card, start_game
from .test_simulator_browser import game_of, sent_to

pytestmark = pytest.mark.browser
SHOTS_ENV = "SLOWSPADES_TABLE_SCREENSHOTS"
RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUITS = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}
ALL_SAID = ("() => [document.body.innerText].concat([...document.querySelectorAll('*')]"
            ".flatMap(el => [...el.attributes].map(a => a.value)))")


#: each card of the hand: whether it is a button, whether it sits above its suit's row
RAISED = ("() => [...document.querySelectorAll('#hand .card')].map(c => [!!c.closest('button'), "
          "c.getBoundingClientRect().top < c.closest('.suit').getBoundingClientRect().top - 4])")


def card_words(code: str) -> str:
    """A card as the page names it in English (``queen of hearts``)."""
    return f"{RANKS.get(code[:-1], code[:-1])} of {SUITS[code[-1]]}"


def shown_of(page: Any, codes: list[str]) -> list[str]:
    """What of the cards ``codes`` the page says anywhere: in its text, or in any attribute (a button's value, a
    label, a title)."""
    said = page.evaluate(ALL_SAID)
    text = "\n".join(said)
    return [c for c in codes if shown_card(c) in text or card_words(c) in text.lower() or c in said[1:]]


def test_a_whole_hand_played_by_tapping_the_table(chromium: Any, live_service: Any) -> None:
    """Also (issue 23): each page follows the other's moves without a reload, every answer has a name a screen
    reader reads, the keyboard focus is on what comes next after each move, the score sheet shows the hand scored by
    itself, and neither phone gets an SMS about a move made on a page."""
    live = live_service
    live.app.config["PAGE_POLL_SECONDS"] = 0.25
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address = {0: meta["seat0"], 1: meta["seat1"]}
    urls = {seat: f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, seat)}" for seat in (0, 1)}
    contexts = {seat: chromium.new_context(viewport={"width": 390, "height": 844}) for seat in (0, 1)}
    pages = {seat: contexts[seat].new_page() for seat in (0, 1)}
    shots = os.environ.get(SHOTS_ENV)
    wide = chromium.new_context(viewport={"width": 1280, "height": 800}).new_page() if shots else None
    taken: set[str] = set()

    def shoot(phase: str, seat: int) -> None:
        if not shots or phase in taken or wide is None:
            return
        taken.add(phase)
        pages[seat].screenshot(path=str(Path(shots) / f"table-{phase}-390.png"))
        wide.goto(urls[seat])
        wide.screenshot(path=str(Path(shots) / f"table-{phase}-1280.png"))

    try:
        for seat, page in pages.items():
            resp = page.goto(urls[seat])
            assert resp is not None and resp.status == 200
            page.evaluate("window.notReloaded = true")  # gone if the page ever loads again
        sms_before = {seat: len(sent_to(live, address[seat])) for seat in (0, 1)}
        moves, taps, tricks_seen = 0, 0, 0
        while True:
            game = game_of(live, game_id)
            for seat, page in pages.items():  # never a card the other holds: not in the text, not in an attribute
                assert shown_of(page, [c.code for c in game.hands[1 - seat]]) == [], seat
            if game.hand_no > 1 or game.phase == "over":
                break
            movers = [s for s in game.movers if pages[s].locator("#ask button").count()]
            if not movers:  # the page of the player to move has not caught up yet: it will, by itself
                pages[game.movers[0]].locator("#ask button").first.wait_for(timeout=20_000)
                continue
            seat = movers[0]
            page = pages[seat]
            before = page.evaluate("document.body.dataset.ask")
            unnamed = page.evaluate("[...document.querySelectorAll('#ask button')]"
                                    ".filter(b => !(b.getAttribute('aria-label') || b.textContent).trim()).length")
            assert unnamed == 0  # a screen reader names every answer
            if game.phase == "draw" and len(game.hands[seat]) >= 5 and page.locator("#table .face").count():
                shoot("draw", seat)  # the card drawn on the felt, the hand below
            elif game.phase == "bid":
                shoot("bid", seat)
            if game.phase != "play":
                answer(page, keep=moves % 3 != 2)  # the page's buttons: draw, keep or discard, bid
            else:
                legal = {m.card.code for m in legal_moves(game, seat) if isinstance(m, Play)}
                raised = page.locator("#ask #hand button.pick").evaluate_all(
                    "bs => bs.map(b => [b.value, b.getAttribute('aria-label'), b.innerText])")
                assert {v for v, _, _ in raised} == legal  # exactly the cards that may be played are buttons
                assert all(label == f"Play {card_words(v)}" and text == shown_card(v) for v, label, text in raised)
                own = [c.code for c in game.hands[seat]]
                assert sorted(shown_of(page, own)) == sorted(own)  # the check sees a card where it is shown
                dimmed = page.locator("#hand .card.dim").all_inner_texts()
                assert sorted(dimmed) == sorted(shown_card(c.code) for c in game.hands[seat] if c.code not in legal)
                # the playable cards raised above their suit's row, the others not
                assert all(pick == raised for pick, raised in page.evaluate(RAISED))
                if game.trick:  # the trick on the felt, who led it marked
                    led_by, led = game.trick[0]
                    assert page.locator("#trick .card").all_inner_texts() == [shown_card(c.code) for _s, c in game.trick]
                    first = page.locator("#trick .slot .who").first.inner_text()
                    assert first.startswith("You" if led_by == seat else "+1..") and "led" in first
                    tricks_seen += 1
                    if sum(game.tricks_won) >= 3:
                        shoot("play", seat)
                page.locator(f'#hand button.pick[value="{sorted(legal)[0]}"]').click()  # a tap on a card
                taps += 1
            moves += 1
            page.wait_for_function("a => document.body.dataset.ask !== a", arg=before, timeout=20_000)
            # after a move, the keyboard focus is on what comes next: the next question, or where the game stands
            page.wait_for_function("() => ['ask-h', 'state'].includes(document.activeElement.id)", timeout=20_000)
            assert moves < 200
        events = live.svc.store.load(game_id)
        logged = [e.event["type"] for e in events]
        assert logged.count("card_played") >= 26 and "hand_scored" in logged
        hand1 = events[:logged.index("hand_scored") + 1]  # each card tapped one move of the log (autoplay rides in it)
        assert taps == sum(e.message_id is not None and e.event["type"] == "card_played" for e in hand1)
        assert taps >= 1 and tricks_seen >= 1 and moves - taps >= 2 + 26 + 2
        for seat, page in pages.items():  # the hand's end: the score on the felt and in the sheet, by itself
            page.locator("#last-hand").wait_for(timeout=20_000)
            assert "Hand 1" in page.locator("#last-hand").inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.locator("#sheet tbody tr").first.wait_for(timeout=20_000)
            assert page.evaluate("window.notReloaded === true")  # updated in place, never reloaded
            assert page.evaluate("(t => t.scrollWidth <= t.parentElement.clientWidth)(document.getElementById('sheet'))")
            totals = page.locator("#sheet tbody tr").first.locator("td b").all_inner_texts()
            scores = hand1[-1].event["scores"]
            assert totals == [str(scores[s]["game_total"]) for s in (seat, 1 - seat)]  # the page's player first
        for seat in (0, 1):  # every move was made on the pages, where both players were: no SMS about any
            assert len(sent_to(live, address[seat])) == sms_before[seat], sent_to(live, address[seat])[sms_before[seat]:]
        shoot("end", game.movers[0] if game.movers else 0)  # the page of the player asked first in the next hand
    finally:
        for c in contexts.values():
            c.close()
        if wide is not None:
            wide.context.close()


#: the colour of each suit's cards: two colours, and four (diamonds blue, clubs green)
TWO = {"S": "rgb(17, 17, 17)", "C": "rgb(17, 17, 17)", "H": "rgb(204, 0, 0)", "D": "rgb(204, 0, 0)"}
FOUR = dict(TWO, C="rgb(23, 99, 23)", D="rgb(6, 69, 173)")
COLOURS = ("() => [...document.querySelectorAll('.card')].map(c => "
           "[[...c.classList].find(k => 'SHCD'.includes(k) && k.length === 1), getComputedStyle(c).color])")


def colours_of(page: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for suit, colour in page.evaluate(COLOURS):
        out.setdefault(suit, set()).add(colour)
    return out


def test_four_colours_are_the_players_choice(chromium: Any, live_service: Any) -> None:
    live = live_service
    game_id = start_game(live)
    by_sms_until(live, game_id, lambda g: g.phase == "play")
    urls = {seat: f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, seat)}" for seat in (0, 1)}
    phone = chromium.new_context(viewport={"width": 390, "height": 844})
    other_device = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = phone.new_page()
        page.goto(urls[0])
        assert {"C", "D"} & set(colours_of(page))  # a club or a diamond in the hand at least
        assert colours_of(page) == {s: {TWO[s]} for s in colours_of(page)}
        assert page.locator('#colours button[value="2"]').get_attribute("aria-pressed") == "true"
        with page.expect_navigation():
            page.locator('#colours button[value="4"]').click()
        assert page.locator('#colours button[value="4"]').get_attribute("aria-pressed") == "true"
        assert colours_of(page) == {s: {FOUR[s]} for s in colours_of(page)}
        page.reload()
        assert colours_of(page) == {s: {FOUR[s]} for s in colours_of(page)}  # kept across a reload
        elsewhere = other_device.new_page()
        elsewhere.goto(urls[0])
        assert colours_of(elsewhere) == {s: {FOUR[s]} for s in colours_of(elsewhere)}  # and on another device
        elsewhere.goto(urls[1])  # the other player's page: as it was
        assert colours_of(elsewhere) == {s: {TWO[s]} for s in colours_of(elsewhere)}
        with page.expect_navigation():
            page.locator('#colours button[value="2"]').click()
        assert colours_of(page) == {s: {TWO[s]} for s in colours_of(page)}
    finally:
        phone.close()
        other_device.close()

"""The game page as a planning board (answers given ahead, RULES D12) in a real headless Chromium with JavaScript off:
the follower picks, under each suit the opponent may lead, what they will play, saves it with a plain form, and the
opponent's next lead (by SMS) is answered at once by that plan; the page then says what the plan played. The
opponent's page never shows the plan. The real app serves the pages and a real Celery worker applies the moves."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from service import conversation_port as port
from spades.events import AUTO_PLAN
from spades.game import legal_moves
from spades.plans import Plan
from tests.waiting import wait_for

from .test_game_page_browser import start_game, text
from .test_simulator_browser import choose, game_of, settled

pytestmark = pytest.mark.browser


def test_d12_a_plan_saved_on_the_page_without_javascript_plays_the_next_follow(chromium: Any,
                                                                               live_service: Any) -> None:
    live = live_service
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address_of = {0: meta["seat0"], 1: meta["seat1"]}
    moves = 0
    while True:  # by SMS to the first trick of the play
        game = game_of(live, game_id)
        if game.phase == "play":
            break
        seat = game.movers[0]
        text(live, address_of[seat], port.command_text(choose(game, seat, keep=moves % 3 != 2)))
        wait_for(f"move {moves + 1}", lambda v=game.version: settled(live, game_id, v))
        moves += 1
        assert moves < 120
    leader = game.movers[0]
    follower = 1 - leader
    urls = {s: f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, s)}" for s in (0, 1)}
    context = chromium.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    other = chromium.new_context(viewport={"width": 1280, "height": 800}, java_script_enabled=False)
    try:
        page = context.new_page()
        assert page.goto(urls[follower]).status == 200  # type: ignore[union-attr]
        board = page.locator("#plan")
        assert "No plan yet" in board.inner_text()
        for suit in ("S", "H", "D", "C"):
            board.locator(f'input[name="f_{suit}"][value="LOW"]').check()
        board.locator('input[name="always"]').check()
        board.get_by_role("button", name="Save these answers").click()
        page.wait_for_load_state()
        assert "Your plan is saved" in page.locator("#flash").inner_text()
        assert "ALWAYS S LOW H LOW D LOW C LOW" in page.locator("#plan-now").inner_text()
        stored = Plan.loads(live.svc.store.meta(game_id)[f"plan{follower}"])
        assert stored is not None and len(stored.follows) == 4 and all(f.always for f in stored.follows)
        # the leader's page: their own (empty) board, never the follower's plan
        theirs = other.new_page()
        assert theirs.goto(urls[leader]).status == 200  # type: ignore[union-attr]
        assert "ALWAYS" not in theirs.content() and "No plan yet" in theirs.locator("#plan").inner_text()
        # the leader leads by SMS: the follower's plan answers at once
        game = game_of(live, game_id)  # a lead the follower has a choice on (one card of the suit: played for them)
        lead = next(m for m in legal_moves(game, leader)
                    if sum(c.suit is m.card.suit for c in game.hands[follower]) != 1)  # type: ignore[attr-defined]
        text(live, address_of[leader], port.command_text(lead))
        wait_for("the lead and the planned follow", lambda: any(
            e.event.get("auto") == AUTO_PLAN for e in live.svc.store.load(game_id)))
        planned = [e.event for e in live.svc.store.load(game_id) if e.event.get("auto") == AUTO_PLAN]
        same = sorted((c for c in game.hands[follower] if c.suit is lead.card.suit), key=lambda c: c.rank)  # type: ignore[attr-defined]
        if same:
            assert planned[0]["card"] == same[0].code  # the lowest of the suit led
        page.reload()
        if os.environ.get("SLOWSPADES_PAGE_SCREENSHOTS"):  # a picture of the board after its plan played
            shot = Path(os.environ["SLOWSPADES_PAGE_SCREENSHOTS"]) / "page-plan-board.png"
            page.locator("#plan").screenshot(path=str(shot))
        assert f"Played by your plan this hand: {planned[0]['card']}" in page.locator("#plan-did").inner_text()
        assert "(your plan)" in page.locator("#tricks").inner_text()
        theirs.reload()
        assert "your plan" not in theirs.locator("#live").inner_text().lower().replace("your plan, hidden", "")
        # clearing it on the page
        page.locator("#plan").get_by_role("button", name="Clear my plan").click()
        page.wait_for_load_state()
        assert "No plan yet" in page.locator("#plan").inner_text()
        assert not live.svc.store.meta(game_id).get(f"plan{follower}")
    finally:
        context.close()
        other.close()

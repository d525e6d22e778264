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

from .test_game_page_browser import by_sms_until, start_game, text
from .test_simulator_browser import choose, game_of, settled

pytestmark = pytest.mark.browser


def choice_after(game: Any, lead: Any) -> bool:
    """Whether the follower has a choice after ``lead`` (one card of the suit led is played for them)."""
    return sum(c.suit is lead.card.suit for c in game.hands[1 - game.movers[0]]) != 1


def has_a_choice_to_plan(game: Any) -> bool:
    """A trick not yet led, with a lead after which the follower has a choice."""
    return (game.phase == "play" and not game.trick
            and any(choice_after(game, m) for m in legal_moves(game, game.movers[0])))


def test_d12_a_plan_saved_on_the_page_without_javascript_plays_the_next_follow(chromium: Any,
                                                                               live_service: Any) -> None:
    live = live_service
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address_of = {0: meta["seat0"], 1: meta["seat1"]}
    game = by_sms_until(live, game_id, has_a_choice_to_plan)  # a random deal may give a first trick without one
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
        lead = next(m for m in legal_moves(game, leader) if choice_after(game, m))
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


def test_d12_a_whole_hand_from_the_planning_board_against_sms(chromium: Any, live_service: Any) -> None:
    """The follower plays a whole hand from their page with JavaScript off: their follows from the board's rules
    (every trick), each lead they owe planned on the board (the next leads, in order) or clicked; the leader plays
    by SMS. Every card the follower chose this hand was played by their plan, none asked of them to follow."""
    live = live_service
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address_of = {0: meta["seat0"], 1: meta["seat1"]}
    game = by_sms_until(live, game_id, lambda g: g.phase == "play")
    planner = 1 - game.movers[0]  # the first trick's follower
    context = chromium.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        page = context.new_page()
        url = f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, planner)}"
        assert page.goto(url).status == 200  # type: ignore[union-attr]
        for suit, rule in (("S", "LOW"), ("H", "WIN"), ("D", "LOW"), ("C", "HIGH")):
            page.locator(f'#plan input[name="f_{suit}"][value="{rule}"]').check()
        page.locator('#plan input[name="always"]').check()
        page.locator("#plan").get_by_role("button", name="Save these answers").click()
        page.wait_for_load_state()
        assert "Your plan is saved" in page.locator("#flash").inner_text()
        led_by_hand = 0
        for _ in range(60):
            game = game_of(live, game_id)
            if game.hand_no > 1 or game.phase != "play":
                break
            seat = game.movers[0]
            if seat != planner:
                text(live, address_of[seat], port.command_text(choose(game, seat, keep=True)))
                wait_for("the leader's card", lambda v=game.version: settled(live, game_id, v))
                continue
            assert not game.trick, ("asked to follow although every suit is planned", game.trick)
            page.goto(url)
            leads = page.locator('#plan select[name="lead"]')
            if led_by_hand % 2 == 0 and leads.count():  # plan the next leads on the board: the first plays at once
                options = leads.nth(0).locator("option").evaluate_all("os => os.map(o => o.value)")
                leads.nth(0).select_option(options[-1])
                page.locator("#plan").get_by_role("button", name="Save these leads").click()
            else:  # or lead by clicking, as without a plan
                page.locator("#ask button").first.click()
            page.wait_for_load_state()
            led_by_hand += 1
            wait_for("the lead", lambda v=game.version: settled(live, game_id, v))
        else:
            raise AssertionError("the hand did not end")
        events = [e.event for e in live.svc.store.load(game_id)]
        hand1 = events[:next(i for i, e in enumerate(events) if e["type"] == "hand_scored")]
        follows = []
        for i, e in enumerate(hand1):
            if e["type"] == "card_played" and e["seat"] == planner and hand1[i - 1]["type"] == "card_played":
                follows.append(e.get("auto"))
        assert follows and all(a in ("plan", "forced", "decided") for a in follows), follows
        assert "plan" in follows
        assert any(e["type"] == "card_played" and e["seat"] == planner and e.get("auto") == "plan"
                   and hand1[i - 1]["type"] != "card_played" for i, e in enumerate(hand1)), "a lead from the board"
    finally:
        context.close()

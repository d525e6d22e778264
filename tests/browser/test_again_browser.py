"""A finished game's buttons (issue 46) in a real headless Chromium, with JavaScript off and on: a game against the
computer resigned by SMS, then "Rematch at the same level" clicked on the player's page (a plain form, posted with
``Origin: null`` under the page's ``Referrer-Policy: no-referrer``) lands on their page of the new game, under way
at the same level; from that one, finished too, "Rematch, one level harder" starts a game one level up. The page of
their games, reached by its link, lists both with a link back to each."""

from __future__ import annotations

from typing import Any

import pytest

from service.games.levels import level_of
from tests.waiting import wait_for

from .test_game_page_browser import text
from .test_simulator_browser import PHONE_A

pytestmark = pytest.mark.browser


def finished_bot_game(live: Any, word: str) -> str:
    """A game against the computer (``word``: ``NEW BOT`` or the like), resigned at once; its id."""
    before = len(live.svc.players.games(PHONE_A))
    text(live, PHONE_A, word)
    wait_for("the game", lambda: len(live.svc.players.games(PHONE_A)) > before, timeout=20)
    return resign(live)


def resign(live: Any) -> str:
    gid: str = live.svc.players.games(PHONE_A)[0]
    wait_for("under way", lambda: live.svc.store.meta(gid).get("status") == "active", timeout=20)
    text(live, PHONE_A, "RESIGN")
    text(live, PHONE_A, "YES")
    wait_for("the game over", lambda: live.svc.store.meta(gid).get("status") == "over", timeout=20)
    return gid


def url_of(live: Any, gid: str) -> str:
    seat = 0 if live.svc.store.meta(gid)["seat0"] == PHONE_A else 1
    return f"{live.url}/g/{live.svc.players.ensure_web_token(gid, seat)}"


def opponent_level(live: Any, gid: str) -> str | None:
    meta = live.svc.store.meta(gid)
    return level_of(meta["seat1"] if meta["seat0"] == PHONE_A else meta["seat0"])


@pytest.mark.parametrize("script", [False, True], ids=["javascript-off", "javascript-on"])
def test_play_again_from_a_finished_games_page(chromium: Any, live_service: Any, script: bool) -> None:
    live = live_service
    live.app.config["BOT_DELAY"] = 0  # the computer's move at once: none left waiting its delay when the test ends
    first = finished_bot_game(live, "NEW BOT EASY")
    context = chromium.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=script)
    posted: list[dict[str, str]] = []
    try:
        page = context.new_page()
        page.on("request", lambda r: posted.append(r.headers) if r.method == "POST" else None)
        page.goto(url_of(live, first))
        with page.expect_navigation():
            page.get_by_role("button", name="Rematch at the same level").click()
        second = live.svc.players.games(PHONE_A)[0]
        assert second != first and opponent_level(live, second) == "easy"
        assert page.url == url_of(live, second), page.url  # the player's own page of the new game
        assert live.svc.store.meta(second)["status"] == "active"
        assert posted and all(h.get("origin") == "null" for h in posted), posted  # as the page's forms are posted
        resign(live)
        page.goto(url_of(live, second))
        with page.expect_navigation():
            page.get_by_role("button", name="Rematch, one level harder").click()
        third = live.svc.players.games(PHONE_A)[0]
        assert opponent_level(live, third) == "normal" and page.url == url_of(live, third)
        with page.expect_navigation():
            page.get_by_role("link", name="All your games, with their score sheets").click()
        links = page.locator("#games a").evaluate_all("as => as.map(a => a.href)")
        assert links == [url_of(live, g) for g in (third, second, first)], links
    finally:
        context.close()

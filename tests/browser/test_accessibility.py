"""axe-core over every page a player or a tester sees (issue 45 case 14), in Debian's headless Chromium at a phone's
width (390 px) and a desktop's (1280 px): the game page in every phase of a hand (the double nil question, the draw,
the double nil swap, the bids, the play, the score sheet after a hand with each hand's detail open, a finished game
with its past hands and its buttons to play again; one player's cards in four colours, the other's in two), the page
of a player's games (issue 46), the rules page, and the simulator (before and after a hand's messages). No violation
of any impact, of every rule of WCAG 2.0 to 2.2 A and AA and axe's best practices, and no page wider than the screen.

axe-core is the npm package, pinned and installed by ``scripts/ensure-axe`` (``scripts/test`` runs it) into
``.venv/axe``; it is injected into each page by Playwright (the pages' Content-Security-Policy allows no inline
script, so the test's browser context bypasses it: the pages themselves are served as ever).

One test per width and per half (the pages up to and during a hand; the pages after it), so that the parallel run
hands the four out to different workers: each half plays the same hand (the same deal: the live server's dealer
seed) to where its pages are, and every page of the list above is checked at both widths by one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from service import conversation_port as port
from spades.commands import DeclareDoubleNil
from tests.waiting import wait_for

from .test_game_page_browser import start_game, text
from .test_simulator_browser import choose, game_of, settled

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parents[2] / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (390, 1280)
#: every rule of WCAG 2.0, 2.1 and 2.2 A and AA (2.2's target size among them) and axe's best practices
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"]


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/ensure-axe")
    return AXE.read_text()


@pytest.fixture
def pages(chromium: Any) -> Iterator[dict[int, Any]]:
    """A page at each width, each in a context that lets the test inject axe-core (one hand played serves both); the
    browser is the worker's one Chromium (the session's)."""
    contexts = [chromium.new_context(viewport={"width": w, "height": 844}, bypass_csp=True) for w in WIDTHS]
    try:
        yield {w: context.new_page() for w, context in zip(WIDTHS, contexts)}
    finally:
        for context in contexts:
            context.close()


def violations(page: Any, axe: str, url: str, before: str = "", ready: str = "") -> list[str]:
    """axe-core's violations on ``url`` (once the function ``ready`` is true, after the script ``before``), one line
    each: rule, impact, where."""
    resp = page.goto(url)
    assert resp is not None and resp.status == 200, url
    if ready:
        page.wait_for_function(ready, timeout=20_000)
    if before:
        page.evaluate(before)
    page.add_script_tag(content=axe)
    found = page.evaluate("async (tags) => (await axe.run(document, {resultTypes: ['violations'],"
                          " runOnly: {type: 'tag', values: tags}})).violations", TAGS)
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in found]


def check(pages: dict[int, Any], axe: str, url: str, what: str, before: str = "", ready: str = "") -> list[str]:
    found = [f"{what} at {w} px: {line}" for w, page in pages.items()
             for line in violations(page, axe, url, before, ready)]
    return found + [f"{what} at {w} px: scrolls sideways" for w, page in pages.items()
                    if page.evaluate("document.documentElement.scrollWidth") > w]


OPEN_DETAILS = "() => document.querySelectorAll('details').forEach(d => d.open = true)"
SIMULATOR_READY = "() => document.body.dataset.polled === '1'"


STEPS = {"the double nil question", "the draw", "the swap", "the bids", "the play"}


def play_a_hand(live: Any, on_step: Callable[[str, dict[int, str]], None]) -> tuple[str, dict[int, str], dict[int, str]]:
    """A game by SMS through its first hand (one double nil: the swap comes), ``on_step(step, urls)`` called at the
    first of each step (the double nil question, the draw, the swap, the bids, the play); the game's id, the
    seats' addresses and their pages' URLs."""
    game_id = start_game(live)
    meta = live.svc.store.meta(game_id)
    address = {0: meta["seat0"], 1: meta["seat1"]}
    urls = {seat: f"{live.url}/g/{live.svc.players.ensure_web_token(game_id, seat)}" for seat in (0, 1)}
    live.svc.players.set_colours(address[0], True)  # the card table in four colours for seat 0, in two for seat 1
    seen: set[str] = set()
    moves = 0
    while True:
        game = game_of(live, game_id)
        if game.phase == "over" or game.hand_no > 1:
            break
        seat = game.movers[0]
        step = {"draw": "the draw", "exchange": "the swap", "bid": "the bids", "play": "the play"}[game.phase]
        if game.phase == "draw" and not game.dn_decided[seat]:
            step = "the double nil question"
        if step not in seen:
            seen.add(step)
            on_step(step, urls)
        move = (DeclareDoubleNil(seat) if step == "the double nil question" and seat == game.first_player
                else choose(game, seat, keep=moves % 3 != 2))  # one double nil: the swap comes
        text(live, address[seat], port.command_text(move))
        wait_for(f"move {moves + 1}", lambda v=game.version: settled(live, game_id, v), timeout=20)
        moves += 1
        assert moves < 200
    assert seen == STEPS, seen
    return game_id, address, urls


def test_no_axe_violation_before_and_during_a_hand(live_service: Any, pages: dict[int, Any], axe_source: str) -> None:
    """The rules page, the simulator, and the game page of each seat in every phase of a hand (the player asked,
    and the other, waiting)."""
    live = live_service
    found = check(pages, axe_source, live.url + "/rules/en", "the rules page")
    found += check(pages, axe_source, live.url + "/simulator/", "the simulator", ready=SIMULATOR_READY)

    def each_seat(step: str, urls: dict[int, str]) -> None:
        for s in (0, 1):
            found.extend(check(pages, axe_source, urls[s], f"the game page, {step}, seat {s}"))

    play_a_hand(live, each_seat)
    assert found == [], "\n".join(found)


def test_no_axe_violation_after_a_hand(live_service: Any, pages: dict[int, Any], axe_source: str) -> None:
    """After the hand: the score sheet (each hand's detail open), the game finished (its past hands, its buttons to
    play again), the page of the player's games, and the simulator with the hand's messages."""
    live = live_service
    game_id, address, urls = play_a_hand(live, lambda _step, _urls: None)
    found: list[str] = []
    for s in (0, 1):  # the score sheet, each hand's detail open
        found += check(pages, axe_source, urls[s], f"the score sheet, seat {s}", OPEN_DETAILS)
    text(live, address[0], "RESIGN")
    text(live, address[0], "YES")
    wait_for("the game over", lambda: live.svc.store.meta(game_id).get("status") == "over", timeout=20)
    for s in (0, 1):  # its past hands and its buttons to play again; the page of the player's games
        found += check(pages, axe_source, urls[s], f"a finished game's page, seat {s}", OPEN_DETAILS)
        found += check(pages, axe_source, urls[s] + "/games", f"the page of their games, seat {s}", OPEN_DETAILS)
    found += check(pages, axe_source, live.url + "/simulator/", "the simulator after a hand", ready=SIMULATOR_READY)
    assert found == [], "\n".join(found)

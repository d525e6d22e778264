"""The pace of a hand: waits, messages and SMS segments, before and after issue 11 (run on demand).

Complete games of ``basic`` against ``basic`` through the conversation layer (``chat.simulate``),
the same deals in both columns:

* **before**: strict alternation in the draw (the RULES D11 house rule), no autoplay;
* **after**: the new defaults: a simultaneous draw (D11), forced cards played for the player,
  a hand whose end is decided played out at once (``spades.autoplay``), and the end-of-hand
  summary of the next hand's second player sent with their double nil question (one message).
* **plans** (issue 41): as *after*, and after each answer each player gives answers ahead (RULES D12) as the
  ``normal`` bot would choose them (``bench/planning.py``): their plan messages and the service's one-line echo
  of each are counted, and a move a plan makes is no wait.

Per hand: the **waits** (the turns a hand waits on a person: every move a person makes, a
simultaneous draw counting as the first player's double nil choice plus the longer of the two
players' sequences after it), the **messages** both players get and their **SMS segments**
(every language; the worst is shown). Usage: ``python bench/pace.py [games] [page games] [--hands N] [--target N]``
(default 50, 2, whole games to 500; 0 page games: no page column; ``--hands`` caps the simulated games, ``--target``
the page's: a quick run).
Goals: waits <= 40, messages <= 50, segments <= 52 in every language.

* **page** (issue 23, ``bench/page_pace.py``): whole games through the service itself (a ``redis-server`` of its
  own), player 0 making every move from the game page with the page open, player 1 by SMS: the SMS per hand the
  player on the page gets (goal <= 5), beside what one player gets per hand in the other columns (SMS both ways);
  and the same with the page used only to move (no poll: each move quiets the game's SMS for
  ``SLOWSPADES_PAGE_QUIET_MINUTES``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.page_pace import page_column, target_of
from bench.planning import PlanningPlayer
from bench.segments import _chooser
from chat.languages import LANGUAGES
from chat.simulate import Transcript, play_game
from spades.events import (
    BidMade,
    CardPlayed,
    CardsExchanged,
    DoubleNilDeclared,
    DoubleNilDeclined,
    DrawDecided,
    Event,
    GameStarted,
    HandScored,
    HandStarted,
)

MODES: dict[str, dict[str, Any]] = {  # play_game's keyword arguments
    "before": {"simultaneous_draw": False, "autoplay": (False, False), "finish": False},
    "after": {"simultaneous_draw": True, "autoplay": (True, True), "finish": True, "merge_summary": True},
    "plans": {"simultaneous_draw": True, "autoplay": (True, True), "finish": True, "merge_summary": True},
}
NAMES = ("Alexandrina", "Konstantinos")


def waits_per_hand(events: list[Event]) -> list[int]:
    """The waits of each scored hand of one game's log (see the module docstring)."""
    simultaneous = False
    out: list[int] = []
    first = 0
    draw: list[int] = [0, 0]  # draw-phase moves of each seat after the first player's DN choice
    other = 0  # every other move a person made
    first_dn = 0
    for e in events:
        if isinstance(e, GameStarted):
            simultaneous = e.rules.simultaneous_draw
        elif isinstance(e, HandStarted):
            first, draw, other, first_dn = e.first_player, [0, 0], 0, 0
        elif isinstance(e, (DoubleNilDeclared, DoubleNilDeclined)) and e.seat == first:
            first_dn = 1
        elif isinstance(e, (DoubleNilDeclared, DoubleNilDeclined, DrawDecided)):
            draw[e.seat] += 1
        elif isinstance(e, (CardsExchanged, BidMade, CardPlayed)) and not e.auto:
            other += 1  # (a bid or an exchange is marked only when a plan made it: RULES D12)
        elif isinstance(e, HandScored):
            drawing = max(draw) if simultaneous else draw[0] + draw[1]
            out.append(first_dn + drawing + other)
    return out


def run(mode: str, lang: str, games: int, max_hands: int | None = None) -> tuple[int, int, int, list[int]]:
    """Hands, messages, segments and the waits of every hand, over ``games`` games in ``lang`` (``max_hands`` at most
    each: a quick run)."""
    hands = msgs = segs = 0
    waits: list[int] = []
    for g in range(games):
        chooser, _ = _chooser(1000 + g)
        planners = (PlanningPlayer(1000 + g, lang=lang), PlanningPlayer(1001 + g, lang=lang)) if mode == "plans" else None
        t: Transcript = play_game(1000 + g, langs=(lang, lang), names=NAMES, chooser=chooser,
                                  labels=("#12", "#3"), max_hands=max_hands, planners=planners, **MODES[mode])
        scored = len(t.game.history) if t.game else t.hands
        hands += scored
        msgs += len(t.messages)
        segs += sum(m.rendered.segments for m in t.messages)
        waits += waits_per_hand(t.events)
    return hands, msgs, segs, waits


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv and argv[0].isdigit() else 50
    page_games = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 2
    max_hands = int(argv[argv.index("--hands") + 1]) if "--hands" in argv else None
    print(f"{games} games of basic vs basic per language and column, through chat.simulate (SMS)")
    figures: dict[str, dict[str, tuple[int, int, int, list[int]]]] = {m: {} for m in MODES}
    started = time.perf_counter()
    for mode in MODES:
        for lang in LANGUAGES:
            figures[mode][lang] = run(mode, lang, games, max_hands)
    print(f"({time.perf_counter() - started:.0f} s)")
    print(f"{'per hand':28} {'before':>8} {'after':>8} {'plans':>8}  goal")
    for label, goal, pick in (
        ("waits", "<= 40", lambda f: sum(f[3]) / len(f[3])),
        ("messages (worst language)", "<= 50", lambda f: f[1] / f[0]),
        ("segments (worst language)", "<= 52", lambda f: f[2] / f[0]),
    ):
        cells = "".join(f" {max(pick(f) for f in figures[m].values()):8.1f}" for m in MODES)
        print(f"{label:28}{cells}  {goal}")
    print(f"{'hands':28}" + "".join(f" {figures[m]['en'][0]:8d}" for m in MODES))
    print(f"\n{'segments per hand':28} {'before':>8} {'after':>8} {'plans':>8}")
    for lang in LANGUAGES:
        print(f"  {lang:26}" + "".join(f" {figures[m][lang][2] / figures[m][lang][0]:8.1f}" for m in MODES))
    print(f"\nmost waits in one hand, after: {max(figures['after']['en'][3])}, "
          f"with plans: {max(figures['plans']['en'][3])}")
    if not page_games:
        return
    page = page_column(page_games, target_of(argv))
    hands, on_page, by_sms = page["page open"]
    per_player = {m: max(f[1] / f[0] / 2 for f in figures[m].values()) for m in MODES}
    print(f"\n{'SMS per hand to one player':28} {'before':>8} {'after':>8} {'page':>8}  goal (page)")
    print(f"{'  (worst language)':28} {per_player['before']:8.1f} {per_player['after']:8.1f} {on_page / hands:8.1f}  <= 5")
    print(f"page: {page_games} games through the service ({hands} hands), player 0 on the page, player 1 by SMS; "
          f"player 1 got {by_sms / hands:.1f} SMS a hand")
    hands, on_page, _by_sms = page["moves only"]
    print(f"page used only to move (no poll): {on_page / hands:.1f} SMS a hand to the player moving from it")


if __name__ == "__main__":
    main(sys.argv[1:])

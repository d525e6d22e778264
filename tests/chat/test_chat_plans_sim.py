"""Answers given ahead (RULES D12, issue 41) in the simulated service (``chat.simulate``'s planners) and in the
bench's time model: the moves plans make are the players' own moves, marked and replayable; the opponent is never
shown a plan; and two players who look once a day finish sooner with plans than without, on the same deals."""

from __future__ import annotations

import re

import pytest

from bench.cost_model import NUMBERS, PACES, play, schedule, timeline
from chat.simulate import Transcript
from spades.cards import Card
from spades.events import AUTO_PLAN, BidMade, CardPlayed, CardsExchanged, HandStarted
from spades.game import PLAY, fold
from spades.replay import verify_log

HANDS = 2


@pytest.fixture(scope="module")
def games() -> tuple[Transcript, Transcript]:
    return play(1000, "en", "sms", max_hands=HANDS), play(1000, "en", "sms", max_hands=HANDS, plans=True)


def test_d12_planned_moves_are_marked_as_planned_and_the_log_replays(games: tuple[Transcript, Transcript]) -> None:
    _, planned = games
    marked = [i for i, e in enumerate(planned.events)
              if isinstance(e, (CardPlayed, BidMade, CardsExchanged)) and e.auto == AUTO_PLAN]
    assert len(marked) >= 5  # bids and cards, in two hands
    assert [p.index for p in planned.planned] == marked
    assert all(planned.events[p.index].seat == p.seat for p in planned.planned)  # type: ignore[attr-defined]
    assert any(isinstance(planned.events[i], BidMade) for i in marked)
    verify_log(planned.events)  # raises if any move broke the rules
    # every plan message got its one-line echo, to its sender only
    plan_replies = [r for r in planned.replies if r.plan]
    echoes = [m for m in planned.messages if m.kind == "plan"]
    assert plan_replies and len(echoes) == len(plan_replies)
    assert [m.seat for m in echoes] == [r.seat for r in plan_replies]
    assert all(m.rendered.segments == 1 for m in echoes)


def _hands_at_play(t: Transcript) -> dict[int, list[set[Card]]]:
    """Each hand's cards of both seats when play began."""
    out: dict[int, list[set[Card]]] = {}
    game = fold(t.events[:1])
    for e in t.events[1:]:
        game.apply(e)
        if game.phase == PLAY and game.hand_no not in out:
            out[game.hand_no] = [set(game.hands[0]), set(game.hands[1])]
        if isinstance(e, HandStarted) and e.hand > HANDS:
            break
    return out


def test_d12_the_opponent_is_never_shown_a_plan(games: tuple[Transcript, Transcript]) -> None:
    _, t = games
    sent = {seat: " ".join(r.text for r in t.replies if r.plan and r.seat == seat) for seat in (0, 1)}
    assert sent[0] and sent[1]
    held = _hands_at_play(t)
    for m in t.messages:
        owner = 1 - m.seat
        text = m.rendered.text
        if m.kind == "plan":  # the echo goes to the player who sent the plan
            assert m.seat == [r.seat for r in t.replies if r.after <= t.messages.index(m)][-1]
            continue
        assert not re.search(r"\b(PLAN|ALWAYS|IF|LEAD|WIN|LOW|HIGH)\b", text), text
        if m.view.phase == PLAY and m.hand_no in held:
            unplayed = {c.code for c in held[m.hand_no][owner]} - {c.code for c in m.view.played}
            shown = set(re.findall(r"\b(?:10|[2-9JQKA])[SHDC]\b", text))
            assert not shown & unplayed, (text, shown & unplayed)


def test_d12_players_who_look_once_a_day_finish_sooner_with_plans(games: tuple[Transcript, Transcript]) -> None:
    without, planned = games
    assert [type(e) for e in planned.events if isinstance(e, HandStarted)] == [HandStarted] * (HANDS + 1)
    daily = PACES["daily sitting"]
    for apart in (False, True):
        days = [schedule(t, "en", daily, NUMBERS["en"], apart).days for t in (without, planned)]
        assert days[1] < days[0] - 1, days
    # a plan message comes with the answer before it, at the same moment; a planned move has no reply of its own
    _, came_at, _ = timeline(planned, daily)
    for i, r in enumerate(planned.replies):
        if r.plan:
            assert came_at[i] == came_at[i - 1] and planned.replies[i - 1].seat == r.seat
    assert len(planned.replies) - sum(r.plan for r in planned.replies) < len(without.replies)

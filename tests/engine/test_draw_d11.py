"""The simultaneous draw (RULES D11) and its house rule, strict alternation; replay of both modes."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades import errors
from spades.bots.randombot import RandomStrategy
from spades.commands import DeclareDoubleNil, DeclineDoubleNil, Discard, Keep
from spades.dealer import Dealer
from spades.events import (
    DoubleNilDeclared,
    DoubleNilDeclined,
    DrawDecided,
    Event,
    GameStarted,
    HouseRules,
    from_dict,
    to_dict,
)
from spades.game import decide, fold, legal_moves, new_game, view
from spades.replay import ReplayError, read_events, verify_log, write_event

from .helpers import run, snapshot, start

SIMULTANEOUS = HouseRules()
ALTERNATING = HouseRules(simultaneous_draw=False)
DRAW_EVENTS = (DoubleNilDeclared, DoubleNilDeclined, DrawDecided)


def test_d11_new_games_draw_simultaneously_and_old_rules_read_as_alternation() -> None:
    assert HouseRules().simultaneous_draw is True
    assert HouseRules.from_dict(HouseRules().to_dict()) == HouseRules()
    assert HouseRules.from_dict(ALTERNATING.to_dict()) == ALTERNATING
    old = {"failed_nil_bags": False, "floor": None, "target": 500}  # stored before D11
    assert HouseRules.from_dict(old).simultaneous_draw is False


def test_d11_the_second_player_waits_only_for_the_first_players_double_nil_choice() -> None:
    game, events = start(Dealer(seed=1).shuffled_deck(), first=0)
    assert game.movers == (0,) and game.to_move == 0
    for command in (DeclineDoubleNil(1), DeclareDoubleNil(1), Keep(1)):
        before = snapshot(game)
        with pytest.raises(errors.FirstPlayerChoosing) as info:
            decide(game, command)
        assert info.value.code == "not_your_turn" and info.value.to_move == 0 and info.value.legal == ()
        assert "double nil choice first" in str(info.value) and snapshot(game) == before
    v1 = view(game, 1)
    assert not v1.my_turn and not v1.double_nil_offer and v1.legal == ()
    run(game, events, DeclineDoubleNil(0))
    assert game.movers == (0, 1) and game.to_move is None and game.may_move(1)
    v1 = view(game, 1)
    assert v1.my_turn and v1.double_nil_offer and v1.offered is None and v1.movers == (0, 1) and v1.to_move is None
    assert set(v1.legal) == {DeclareDoubleNil(1), DeclineDoubleNil(1)}


def test_d11_with_alternation_the_second_player_waits_for_the_first_players_decision() -> None:
    game, events = start(Dealer(seed=1).shuffled_deck(), first=0, rules=ALTERNATING)
    run(game, events, DeclineDoubleNil(0))
    assert game.movers == (0,)
    with pytest.raises(errors.NotYourTurn) as info:
        decide(game, DeclineDoubleNil(1))
    assert type(info.value) is errors.NotYourTurn and info.value.to_move == 0
    run(game, events, Keep(0))
    assert game.movers == (1,) and view(game, 1).double_nil_offer


def test_d11_each_decision_uses_its_fixed_cards_whatever_the_order() -> None:
    """The second player makes all 13 decisions before the first makes any: cards 4k-1 and 4k, then 4k-3 and 4k-2."""
    deck = Dealer(seed=4).shuffled_deck()
    game, events = start(deck, first=1)
    run(game, events, DeclineDoubleNil(1), DeclineDoubleNil(0))
    for k in range(13):
        assert view(game, 0).offered is deck[4 * k + 2]
        (decided,) = run(game, events, Discard(0) if k % 2 else Keep(0))
        assert (decided.kept, decided.discarded) == ((deck[4 * k + 3], deck[4 * k + 2]) if k % 2
                                                     else (deck[4 * k + 2], deck[4 * k + 3]))
    assert game.phase == "draw" and game.movers == (1,) and len(game.hands[0]) == 13
    with pytest.raises(errors.NotYourTurn, match="still drawing") as info:
        decide(game, Keep(0))
    assert info.value.to_move == 1 and legal_moves(game, 0) == []
    assert view(game, 1).offered is deck[0] and not view(game, 0).my_turn
    for k in range(13):
        (decided,) = run(game, events, Keep(1))
        assert (decided.kept, decided.discarded) == (deck[4 * k], deck[4 * k + 1])
    # the draw ends when both hold 13 cards; the discards lie in pile order (D11)
    assert game.phase == "bid" and game.movers == (0,) and [len(h) for h in game.hands] == [13, 13]
    assert game.discards == [c for c in deck if c not in game.hands[0] and c not in game.hands[1]]


def _play_hands(rules: HouseRules, seed: int, choose_second: list[bool], hands: int = 2) -> list[Event]:
    """Two random players (double nil now and then) play ``hands`` hands; in a simultaneous draw
    ``choose_second`` (used in turn, cyclically) says whether the second player moves when both may."""
    dealer = Dealer(seed=seed)
    strategies = [RandomStrategy(seed=seed * 2 + s, dn_rate=0.25) for s in (0, 1)]
    log = list(new_game(f"g{seed}", rules, dealer))
    game = fold(log)
    step = 0
    while game.phase != "over" and len(game.history) < hands:
        movers = game.movers
        seat = movers[0]
        if len(movers) == 2:
            seat = movers[1] if choose_second and choose_second[step % len(choose_second)] else movers[0]
            step += 1
        for event in decide(game, strategies[seat].choose(view(game, seat)), dealer):
            game.apply(event)
            log.append(event)
    return log


def _by_hand(log: list[Event]) -> list[tuple[list[Event], list[Event], list[Event]]]:
    """Each hand's seat 0 draw events, seat 1 draw events, and every other event (the game's start left out)."""
    out: list[tuple[list[Event], list[Event], list[Event]]] = []
    for event in log[1:]:
        if type(event).__name__ == "HandStarted":
            out.append(([], [], []))
        if isinstance(event, DRAW_EVENTS):
            out[-1][event.seat].append(event)
        else:
            out[-1][2].append(event)
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), choose_second=st.lists(st.booleans(), max_size=40))
def test_d11_property_any_interleaving_gives_the_hands_discards_and_later_events_of_alternation(
        seed: int, choose_second: list[bool]) -> None:
    """RULES D11: for any interleaving of the two players' draw decisions, each player's decisions,
    the hands, the discards and every event after the draw equal those of strict alternation."""
    simultaneous = _play_hands(SIMULTANEOUS, seed, choose_second)
    alternating = _play_hands(ALTERNATING, seed, [])
    assert _by_hand(simultaneous) == _by_hand(alternating)
    assert simultaneous[0] == dataclasses.replace(alternating[0], rules=SIMULTANEOUS)
    for log in (simultaneous, alternating):
        verify_log(log)
    assert _after_each_draw(simultaneous) == _after_each_draw(alternating)


def _after_each_draw(log: list[Event]) -> list[tuple[list, list]]:  # type: ignore[type-arg]
    """The hands and the discard pile at the end of each hand's draw."""
    game = fold(log[:1])
    out = []
    for event in log[1:]:
        drawing = game.phase == "draw"
        game.apply(event)
        if drawing and game.phase != "draw":
            out.append(([list(h) for h in game.hands], list(game.discards)))
    return out


def _jsonl(log: list[Event], drop_draw_mode: bool = False) -> io.StringIO:
    out = io.StringIO()
    for seq, event in enumerate(log, start=1):
        write_event(out, "g", seq, event)
    if not drop_draw_mode:
        out.seek(0)
        return out
    lines = []
    for line in out.getvalue().splitlines():
        data = json.loads(line)
        if data["type"] == "game_started":
            del data["rules"]["simultaneous_draw"]
        lines.append(json.dumps(data))
    return io.StringIO("\n".join(lines) + "\n")


def test_d11_both_draw_modes_replay_and_a_log_without_the_field_replays_as_alternation() -> None:
    simultaneous = _play_hands(SIMULTANEOUS, 7, [True, True, False])
    alternating = _play_hands(ALTERNATING, 7, [])
    for log in (simultaneous, alternating):
        (read,) = read_events(_jsonl(log))
        assert verify_log(read.events).history == fold(log).history
    # a game stored before D11: no simultaneous_draw in its rules; it replays as the alternation it was
    (old,) = read_events(_jsonl(alternating, drop_draw_mode=True))
    assert isinstance(old.events[0], GameStarted) and old.events[0].rules.simultaneous_draw is False
    assert verify_log(old.events).history == fold(alternating).history
    # the same field dropped from a simultaneous log: its out-of-turn draws are now illegal
    (forged,) = read_events(_jsonl(simultaneous, drop_draw_mode=True))
    with pytest.raises(ReplayError, match="illegal"):
        verify_log(forged.events)


def test_d11_events_json_keeps_the_draw_mode() -> None:
    for rules in (SIMULTANEOUS, ALTERNATING):
        (started, _) = new_game("g", rules, Dealer(seed=2))
        data = json.loads(json.dumps(to_dict(started)))
        assert data["rules"]["simultaneous_draw"] is rules.simultaneous_draw and from_dict(data) == started

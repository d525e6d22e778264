"""Whole games: events JSON, redaction, replay and its audit, bots, the CLI, and hypothesis properties.

RULES.md sections 2-9 and D10 (every random draw recorded, replay draws nothing).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades import bots
from spades.arena import play_game, run_arena
from spades.bots.randombot import RandomStrategy, exchange_sample
from spades.cards import DECK
from spades.cli import main as cli_main
from spades.dealer import Dealer
from spades.events import (
    CardPlayed,
    CardsExchanged,
    DrawDecided,
    Event,
    HandScored,
    HandStarted,
    TrickWon,
    from_dict,
    redact,
    to_dict,
)
from spades.game import Game, fold, legal_moves, view
from spades.replay import ReplayError, verify_log


def record(seed: int, names=("random", "random"), max_hands=6, dn_rate=0.3) -> tuple[list[Event], Game]:  # type: ignore[no-untyped-def]
    log: list[Event] = []
    strategies = [RandomStrategy(seed=seed * 2 + s, dn_rate=dn_rate) if n == "random" else bots.get(n, seed)
                  for s, n in enumerate(names)]
    game = play_game(f"g{seed}", strategies, Dealer(seed=seed), max_hands=max_hands, on_event=log.append)
    return log, game


def test_events_json_round_trip_every_type() -> None:
    log, _ = record(5, max_hands=3, dn_rate=0.5)
    types = set()
    for event in log:
        data = json.loads(json.dumps(to_dict(event)))
        assert data["v"] == 1 and from_dict(data) == event
        types.add(data["type"])
    assert {"game_started", "hand_started", "draw_decided", "bid_made", "card_played", "trick_won",
            "hand_scored"} <= types


def test_redact_hides_the_deck_and_the_opponents_draws_and_exchanges() -> None:
    log, _ = record(7, max_hands=2, dn_rate=1.0)
    for event in log:
        for seat in (0, 1):
            data = redact(event, seat)
            if isinstance(event, HandStarted):
                assert "deck" not in data
            if isinstance(event, DrawDecided) and event.seat != seat:
                assert set(data) == {"type", "v", "seat"}
            if isinstance(event, CardsExchanged) and event.seat != seat:
                assert set(data) == {"type", "v", "seat", "count"} and data["count"] == len(event.thrown)
            if isinstance(event, (DrawDecided, CardsExchanged)) and event.seat == seat:
                assert data == to_dict(event)


# -- properties over complete games (hypothesis) ------------------------------------------------
def _check_invariants(game: Game) -> None:
    if game.phase in ("draw", "exchange", "bid", "play") and game.deck:
        in_play = (list(game.hands[0]) + list(game.hands[1]) + list(game.discards)
                   + [c for _, c in game.trick] + game.won_cards[0] + game.won_cards[1])
        undrawn = game.undrawn()
        assert sorted(map(DECK.index, in_play + undrawn)) == list(range(52))


def _seen_by(log: list[Event], seat: int) -> set:  # type: ignore[type-arg]
    """Every card ``seat`` has been allowed to see so far in the current hand, and every card played."""
    seen: set = set()  # type: ignore[type-arg]
    for e in log:
        if isinstance(e, HandStarted):
            seen = set()
        elif isinstance(e, DrawDecided) and e.seat == seat:
            seen |= {e.kept, e.discarded}
        elif isinstance(e, CardsExchanged) and e.seat == seat:
            seen |= set(e.received)
        elif isinstance(e, CardPlayed):
            seen.add(e.card)
    return seen


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), dn_rate=st.sampled_from([0.0, 0.2, 0.6]),
       names=st.sampled_from([("random", "random"), ("basic", "random"), ("basic", "basic")]))
@pytest.mark.slow
def test_property_complete_games_keep_every_invariant(seed: int, dn_rate: float, names: tuple[str, str]) -> None:
    """Sections 2-9: 52 cards, 13 tricks a hand, totals, bags, roles swap, replay identical, views leak nothing."""
    dealer = Dealer(seed=seed)
    strategies = [RandomStrategy(seed=seed + s, dn_rate=dn_rate) if n == "random" else bots.get(n, seed + s)
                  for s, n in enumerate(names)]
    log: list[Event] = []
    game = play_game(f"p{seed}", strategies, dealer, max_hands=1, on_event=log.append)
    # continue a few more hands, checking at every step
    game = fold(log)
    hands_target = 4
    while game.phase != "over" and len(game.history) < hands_target:
        seat = game.movers[-1]  # RULES D11: in a simultaneous draw the second player draws first once they may
        v = view(game, seat)
        allowed = _seen_by(log, seat)
        for s in (0, 1):
            vs = view(game, s)
            visible = set(vs.hand) | set(vs.kept) | set(vs.discarded) | {c for _, c in vs.trick} | set(vs.played)
            if vs.offered is not None:
                visible.add(vs.offered)
            if vs.last_trick is not None:
                visible |= {c for _, c in vs.last_trick.cards}
            ok = _seen_by(log, s) | ({vs.offered} if vs.offered else set())
            if vs.last_trick is not None:
                ok |= {c for _, c in vs.last_trick.cards}
            assert visible <= ok
        command = strategies[seat].choose(v)
        assert command in legal_moves(game, seat) or command.__class__.__name__ == "Exchange"
        from spades.game import decide
        for event in decide(game, command, dealer):
            game.apply(event)
            log.append(event)
        _check_invariants(game)
        assert allowed is not None
    hand_started = [e for e in log if isinstance(e, HandStarted)]
    scored = [e for e in log if isinstance(e, HandScored)]
    for a, b in zip(hand_started, hand_started[1:]):
        assert b.first_player == 1 - a.first_player  # roles swap (section 2)
    tricks = [e for e in log if isinstance(e, TrickWon)]
    assert len(tricks) >= 13 * len(scored)
    for h in scored:
        assert h.scores[0].tricks + h.scores[1].tricks == 13
    for seat in (0, 1):
        total, bags = 0, 0
        for h in scored:
            s = h.scores[seat]
            total += s.hand_total
            assert s.game_total == total
            running = bags + s.bags
            assert s.sandbag_penalty == -100 * (running // 10) and s.bags_carried == running % 10
            bags = s.bags_carried
        assert game.scores[seat] == total
    assert vars(verify_log(log)) == vars(game) == vars(fold(log))
    for seat in (0, 1):  # the opponent's redacted events name no hidden card
        for e in log:
            data = redact(e, seat)
            if isinstance(e, (DrawDecided, CardsExchanged)) and e.seat != seat:
                assert not any(k in data for k in ("kept", "discarded", "thrown", "received"))


def test_random_exchange_is_uniform_over_the_378_ways() -> None:
    import random
    hand = tuple(DECK[:13])
    rng = random.Random(1)
    sizes = Counter(len(exchange_sample(hand, rng)) for _ in range(20000))
    for n, ways in enumerate((1, 13, 78, 286)):
        assert abs(sizes[n] / 20000 - ways / 378) < 0.02


def test_bots_only_give_legal_moves() -> None:
    for seed in range(4):
        for names in (("basic", "random"), ("random", "basic")):
            log, game = record(seed, names, max_hands=3, dn_rate=0.3)
            verify_log(log)


def test_basic_beats_random_clearly() -> None:
    result = run_arena(["basic", "random"], games=20, seed=3, max_hands=100)
    assert result.wins(0) >= 17 and result.capped == 0


# -- replay and tampering (D10) -------------------------------------------------------------------
@pytest.fixture(scope="module")
def event_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("arena") / "out.jsonl"
    result = CliRunner().invoke(cli_main, ["arena", "--games", "4", "--seed", "1", "--players", "basic,random",
                                           "--events", str(path)])
    assert result.exit_code == 0, result.output
    assert "basic" in result.output and "games stopped at the hand cap: 0" in result.output
    return str(path)


def test_cli_replay_of_an_arena_file_exits_0(event_file: str) -> None:
    result = CliRunner().invoke(cli_main, ["replay", event_file])
    assert result.exit_code == 0, result.output
    assert "4 games, 4 consistent, 0 inconsistent" in result.output and "wins" in result.output


def _tamper(path: str, tmp_path, change) -> str:  # type: ignore[no-untyped-def]
    lines = open(path).read().splitlines()
    records = [json.loads(line) for line in lines]
    change(records)
    out = tmp_path / "bad.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(out)


def _first(records, type_, pred=lambda r: True):  # type: ignore[no-untyped-def]
    return next(r for r in records if r["type"] == type_ and pred(r))


@pytest.mark.parametrize("what", ["illegal card", "changed score", "swapped deck", "missing event",
                                  "kept the other card", "bid out of range", "wrong seq"])
def test_cli_replay_catches_a_tampered_file(event_file: str, tmp_path, what: str) -> None:  # type: ignore[no-untyped-def]
    def change(records):  # type: ignore[no-untyped-def]
        if what == "illegal card":
            r = _first(records, "card_played")
            hand = {c for x in records if x["game"] == r["game"] and x["type"] == "draw_decided"
                    and x["seat"] == r["seat"] for c in [x["kept"]]}
            r["card"] = next(c.code for c in DECK if c.code not in hand)
        elif what == "changed score":
            _first(records, "hand_scored")["scores"][0]["game_total"] += 10
        elif what == "swapped deck":
            deck = _first(records, "hand_started")["deck"]
            deck[0] = deck[1]
        elif what == "missing event":
            records.remove(_first(records, "trick_won"))
            game = records[0]["game"]
            for n, r in enumerate([r for r in records if r["game"] == game], start=1):
                r["seq"] = n
        elif what == "kept the other card":
            r = _first(records, "draw_decided")
            r["kept"], r["discarded"] = r["discarded"], r["kept"]
        elif what == "bid out of range":
            _first(records, "bid_made")["tricks"] = 14
        elif what == "wrong seq":
            records[5]["seq"] = 9
    bad = _tamper(event_file, tmp_path, change)
    result = CliRunner().invoke(cli_main, ["replay", bad])
    assert result.exit_code == 1, result.output
    assert "INCONSISTENT" in result.output


def test_verify_log_names_the_bad_event() -> None:
    log, _ = record(3, max_hands=2)
    i = next(n for n, e in enumerate(log) if isinstance(e, HandScored))
    s0, s1 = log[i].scores
    from dataclasses import replace
    log[i] = HandScored(log[i].hand, (replace(s0, hand_total=s0.hand_total + 1), s1))
    with pytest.raises(ReplayError) as info:
        verify_log(log)
    assert info.value.seq == i + 1

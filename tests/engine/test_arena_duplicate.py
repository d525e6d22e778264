"""The duplicate arena: every deal played twice with the seats swapped, and the figures it reports.

Both plays of a deal must see the same cards (the same first player and, hand by hand, the
same decks, RULES.md sections 2-3) with the players in each other's seats; the win rate's
interval is Wilson's, and points per hand are averaged over deals with a normal interval on the
per-deal paired differences. The logs replay clean (D10).
"""

from __future__ import annotations

import math
import re

import pytest
from click.testing import CliRunner

from spades import bots
from spades.arena import ArenaResult, GameResult, normal_interval, run_arena, wilson_interval
from spades.bots.montecarlo import HARD, MonteCarloStrategy
from spades.cli import main as cli_main
from spades.dealer import DuplicateDealer
from spades.events import Event, GameStarted, HandScored, HandStarted


def _logs(players: list[str], games: int, seed: int, max_hands: int) -> tuple[ArenaResult, dict[str, list[Event]]]:
    logs: dict[str, list[Event]] = {}

    def record(game_id: str, seq: int, event: Event) -> None:
        logs.setdefault(game_id, []).append(event)

    result = run_arena(players, games, seed, max_hands, on_event=record, auto=True, duplicate=True)
    return result, logs


def test_both_plays_of_a_deal_see_the_same_cards_with_the_seats_swapped() -> None:
    result, logs = _logs(["basic", "random"], 4, seed=3, max_hands=4)
    assert [g.game_id for g in result.games] == ["duplicate-3-1a", "duplicate-3-1b", "duplicate-3-2a",
                                                 "duplicate-3-2b"]
    for deal in (1, 2):
        a, b = result.games[2 * deal - 2], result.games[2 * deal - 1]
        assert (a.deal, b.deal) == (deal - 1, deal - 1)
        assert a.sides == (0, 1) and b.sides == (1, 0)  # basic sits at seat 0, then at seat 1
        log_a, log_b = logs[a.game_id], logs[b.game_id]
        first = [e.first_player for e in log_a if isinstance(e, GameStarted)]
        assert first == [e.first_player for e in log_b if isinstance(e, GameStarted)]
        decks_a = [(e.hand, e.first_player, e.deck) for e in log_a if isinstance(e, HandStarted)]
        decks_b = [(e.hand, e.first_player, e.deck) for e in log_b if isinstance(e, HandStarted)]
        shared = min(len(decks_a), len(decks_b))
        assert shared >= 2 and decks_a[:shared] == decks_b[:shared]
    deck_one = [e.deck for e in logs["duplicate-3-1a"] if isinstance(e, HandStarted)][0]
    other_deal = [e.deck for e in logs["duplicate-3-2a"] if isinstance(e, HandStarted)][0]
    assert deck_one != other_deal


def test_a_deal_s_later_decks_do_not_depend_on_exchange_draws() -> None:
    plain, busy = DuplicateDealer(7), DuplicateDealer(7)
    first = plain.shuffled_deck()
    assert busy.shuffled_deck() == first
    busy.draw_from(first[:26], 3)  # a double nil exchange in one play only (D5)
    assert plain.shuffled_deck() == busy.shuffled_deck() != first


def _game(deal: int, sides: tuple[int, int], winner: int, scores: tuple[int, int], hands: int) -> GameResult:
    return GameResult(game_id=f"g{deal}{sides}", sides=sides, winner=winner, scores=scores, hands=hands,
                      capped=False, times=({}, {}), deal=deal)


def test_the_report_s_figures_on_a_small_known_run() -> None:
    result = ArenaResult(players=("hard", "basic"))
    # deal 0: side 0 wins both plays; by side, 510-200 in 10 hands and 505-320 in 10 hands
    result.games += [_game(0, (0, 1), 0, (510, 200), 10), _game(0, (1, 0), 1, (320, 505), 10)]
    # deal 1: side 0 wins one play, loses the other; 500-450 in 8 hands, 430-520 in 12 hands
    result.games += [_game(1, (0, 1), 0, (500, 450), 8), _game(1, (1, 0), 0, (520, 430), 12)]
    # deal 2: side 1 wins both; 100-510 in 6 hands, 300-500 in 14 hands
    result.games += [_game(2, (0, 1), 1, (100, 510), 6), _game(2, (1, 0), 0, (500, 300), 14)]
    assert result.duplicate and result.wins(0) == 3 and result.wins(1) == 3
    per_deal = [(310 + 185) / 20, (50 - 90) / 20, (-410 - 200) / 20]
    assert result.deal_points_per_hand(0) == pytest.approx(per_deal)
    assert result.deal_points_per_hand(1) == pytest.approx([-x for x in per_deal])
    mean = sum(per_deal) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_deal) / 2)
    assert result.points_per_hand(0) == pytest.approx((mean, mean - 1.96 * sd / math.sqrt(3),
                                                       mean + 1.96 * sd / math.sqrt(3)))
    report = result.report()
    assert "6 games: 3 deals, each played twice, seats swapped" in report
    low, high = wilson_interval(3, 6)
    assert re.search(rf"^hard +3 +50\.0% +\[{100 * low:.1f}%, {100 * high:.1f}%\]", report, re.M)
    _, plo, phi = result.points_per_hand(0)
    assert _ppm_line("hard", mean, plo, phi) in report.splitlines()
    assert _ppm_line("basic", -mean, -phi, -plo) in report.splitlines()


def _ppm_line(name: str, mean: float, low: float, high: float) -> str:
    """The report's points-per-hand line (names padded to 8)."""
    return f"{name:<8}  {mean:>+7.2f}  [{low:+.2f}, {high:+.2f}]"


def test_normal_interval_known_values() -> None:
    assert normal_interval([1.0, 2.0, 3.0, 4.0]) == pytest.approx((2.5, 2.5 - 1.96 * 0.6455, 2.5 + 1.96 * 0.6455),
                                                                  abs=1e-4)
    assert normal_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)


def test_points_per_hand_agree_with_the_log(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dup.jsonl"
    out = CliRunner().invoke(cli_main, ["arena", "--duplicate", "--games", "4", "--seed", "5", "--players",
                                        "basic,random", "--max-hands", "3", "--jobs", "1", "--events", str(path)])
    assert out.exit_code == 0, out.output
    assert "seed 5, hand cap 3, simultaneous draw, autoplay on, 1 process, duplicate" in out.output
    assert "4 games: 2 deals, each played twice, seats swapped" in out.output
    replayed = CliRunner().invoke(cli_main, ["replay", str(path)])
    assert replayed.exit_code == 0 and "4 games, 4 consistent, 0 inconsistent" in replayed.output
    # recompute basic's points per hand from the hand scores in the log: seat 0 is basic in "a", seat 1 in "b"
    result, logs = _logs(["basic", "random"], 4, seed=5, max_hands=3)
    per_deal: dict[str, list[int]] = {}
    for game_id, events in logs.items():
        basic_seat = 0 if game_id.endswith("a") else 1
        margin = hands = 0
        for e in events:
            if isinstance(e, HandScored):
                margin += e.scores[basic_seat].hand_total - e.scores[1 - basic_seat].hand_total
                hands += 1
        got = per_deal.setdefault(game_id[:-1], [0, 0])
        got[0] += margin
        got[1] += hands
    values = [m / h for m, h in per_deal.values()]
    mean, low, high = normal_interval(values)
    assert _ppm_line("basic", mean, low, high) in out.output.splitlines(), out.output


def test_duplicate_needs_an_even_number_of_games() -> None:
    out = CliRunner().invoke(cli_main, ["arena", "--duplicate", "--games", "3"])
    assert out.exit_code == 2 and "--games" in out.output


def test_a_player_against_itself_scores_exactly_even_on_every_deal() -> None:
    """Each seat's player is seeded alike in both plays: ``random`` against ``random`` plays the same
    game twice with the names swapped, so every deal's paired difference is 0, whatever the luck."""
    result, _ = _logs(["random", "random"], 6, seed=9, max_hands=3)
    assert result.deal_points_per_hand(0) == [0.0, 0.0, 0.0]
    assert [g.margin(0) for g in result.games[:2]] == [result.games[0].margin(0), -result.games[0].margin(0)]
    assert any(g.margin(0) for g in result.games)


def test_tune_changes_the_first_player_s_settings_for_a_trial() -> None:
    tuned = bots.get("hard", seed=1, tune={"bid_samples": 96, "spread": [[-1, 0.4], [0, 0.6]]})
    assert isinstance(tuned, MonteCarloStrategy) and tuned.name == "hard"
    assert tuned.settings.bid_samples == 96 and tuned.settings.spread == ((-1, 0.4), (0, 0.6))
    assert tuned.settings.play_nodes == HARD.play_nodes
    out = CliRunner().invoke(cli_main, ["arena", "--games", "2", "--players", "hard,basic", "--tune", '{"nodes": 1}'])
    assert out.exit_code == 2 and "--tune" in out.output and "nodes" in out.output
    out = CliRunner().invoke(cli_main, ["arena", "--games", "2", "--players", "basic,hard", "--tune", '{"bid_samples": 9}'])
    assert out.exit_code == 2 and "only hard, pimc can be tuned, not 'basic'" in out.output

"""AUTO moves, RESIGN with confirmation, REMATCH, and the hand and game summaries of real games."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import time_machine

from service.games import summaries
from service.games.live_lookups import Live
from service.records import GameMeta
from spades import Dealer, decide, fold, new_game
from spades.events import to_dict
from spades.game import Game

from .helpers import ALICE, BOB, lifecycle_command, load, local, mover, start_game, tick

MONDAY_8_OSLO = datetime(2030, 1, 7, 7, 0, tzinfo=timezone.utc)


def test_auto_on_moves_for_the_player_when_reminders_run_out(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        p = mover(svc, gid)
        lifecycle_command(svc, p, "AUTO ON")
        v = load(svc, gid).version
        for hours in (12, 24, 48):  # the three reminders (none falls in Oslo's night: 20:00, 20:00, 20:00)
            clock.shift(timedelta(hours=hours))
            assert [m["kind"] for m in tick(svc)] == ["reminder"]
        assert load(svc, gid).version == v
        clock.shift(timedelta(hours=48))
        tick(svc)
        game = load(svc, gid)
        assert game.version == v + 1  # the basic strategy answered the double nil offer for them
        assert game.movers


def test_without_auto_nothing_moves_for_the_player(svc) -> None:  # type: ignore[no-untyped-def]
    with time_machine.travel(MONDAY_8_OSLO, tick=False) as clock:
        gid = start_game(svc)
        v = load(svc, gid).version
        for _ in range(8):
            clock.shift(timedelta(hours=24))
            tick(svc)
        assert load(svc, gid).version == v


def test_resign_asks_for_confirmation_then_ends_the_game(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc)
    res = lifecycle_command(svc, ALICE, "RESIGN")
    assert res.outcome == "confirm_resign"
    assert load(svc, gid).phase != "over"
    assert local(svc, ALICE)[-1]["kind"] == "confirm_resign"
    res = lifecycle_command(svc, ALICE, "YES")
    assert res.outcome == "resigned"
    game = load(svc, gid)
    assert game.phase == "over" and game.end_reason == "resigned"
    assert svc.store.meta(gid)[f"seat{game.winner}"] == BOB
    assert local(svc, BOB)[-1]["kind"] == "game_summary"  # the opponent is told
    assert "ga opp" in local(svc, BOB)[-1]["body"] and "du vant" in local(svc, BOB)[-1]["body"]  # Norwegian (+47)
    # REMATCH: the same opponent is invited again with the same house rules
    again = lifecycle_command(svc, BOB, "REMATCH")
    assert again.outcome == "invited" and again.game_id != gid
    assert local(svc, ALICE)[-1]["kind"] == "invite"


def test_house_rules_chosen_on_new_are_the_games_rules(svc) -> None:  # type: ignore[no-untyped-def]
    res = lifecycle_command(svc, ALICE, f"NEW {BOB} BAGS FLOOR")
    invite = local(svc, BOB)[-1]["body"]
    assert "-200" in invite
    lifecycle_command(svc, BOB, "YES")
    rules = load(svc, str(res.game_id)).rules
    assert rules.failed_nil_bags is True and rules.floor == -200


def _play_one_hand() -> tuple[Game, list[dict]]:
    from spades.bots import get

    dealer = Dealer(seed=7)
    game = fold(new_game("g1", dealer=dealer))
    strategy = get("basic")
    events: list[dict] = []
    from spades.game import view

    while game.hand_no == 1 and game.phase != "over":
        seat = game.movers[0]  # RULES D11: in a simultaneous draw both may move; the first player goes on
        new = decide(game, strategy.choose(view(game, seat)), dealer)
        fold(new, game)
        events += [to_dict(e) for e in new]
    return game, events


def test_a_hand_summary_tells_both_players_everything_about_the_hand() -> None:
    game, events = _play_one_hand()
    scored = next(e for e in events if e["type"] == "hand_scored")
    for seat in (0, 1):
        (ctx,) = summaries.summaries_from_events(events, seat, "Bob")
        mine = scored["scores"][seat]
        sms = summaries.render_hand(ctx, "en", "sms").text
        assert sms.startswith("Hand 1.")
        assert f"took {mine['tricks']}" in sms
        assert f"Score: you {mine['game_total']}," in sms and f"Bags: you {mine['bags_carried']}," in sms
        assert ("You draw first next hand." in sms) == (game.first_player == seat)
        email = summaries.render_hand(ctx, "en", "email")
        assert "<table" in email.html and "Bags carried" in email.html and "Sandbag penalty" in email.html
        assert email.subject.startswith("Hand 1:")
    end = {"type": "game_ended", "winner": 1, "scores": [180, 510], "reason": "score", "hands": 6}
    text = summaries.render_game(summaries.game_summary(end, 1, "Ann"), "en", "sms").text
    assert text == "Game over: you win 510 to 180! 6 hands played. REMATCH to play again."


def _live(svc) -> Live:  # type: ignore[no-untyped-def]
    return Live(svc.config, svc.store, svc.players, svc.links, svc.reach)


def test_summary_messages_go_to_both_players_but_never_to_the_computer_or_a_stopped_number(svc) -> None:  # type: ignore[no-untyped-def]
    _game, events = _play_one_hand()
    both = summaries.entries(_live(svc), "g1",
                             GameMeta({"seat0": ALICE, "seat1": BOB}), events)
    assert sorted((e["to"], e["kind"]) for e in both) == [(ALICE, "hand_summary"), (BOB, "hand_summary")]
    vs_bot = summaries.entries(_live(svc), "g1",
                               GameMeta({"seat0": ALICE, "seat1": "bot:basic"}), events)
    assert [e["to"] for e in vs_bot] == [ALICE]
    lifecycle_command(svc, BOB, "STOP")
    assert [e["to"] for e in summaries.entries(_live(svc), "g1",
                                               GameMeta({"seat0": ALICE, "seat1": BOB}), events)] == [ALICE]
    ended = events + [{"type": "game_ended", "winner": 0, "scores": [520, 100], "reason": "score", "hands": 1}]
    kinds = sorted(e["kind"] for e in summaries.entries(_live(svc), "g1",
                                                        GameMeta({"seat0": ALICE, "seat1": BOB}), ended))
    assert kinds == ["game_summary", "hand_summary"]


def test_start_after_stop_says_how_to_begin_a_game_when_there_is_none(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 23 case 11. Before: ``START`` with no game answered ``welcome back. HAND shows your game, ...``
    (there is no game to show); after: how to begin one. With a game under way it still points to HAND."""
    lifecycle_command(svc, "+15551230077", "LANG EN")
    lifecycle_command(svc, "+15551230077", "STOP")
    lifecycle_command(svc, "+15551230077", "START")
    back = local(svc, "+15551230077")[-1]["body"]
    assert "HAND" not in back and "NEW BOT" in back and "NEW +number" in back, back
    start_game(svc)
    lifecycle_command(svc, ALICE, "STOP")
    lifecycle_command(svc, ALICE, "START")
    assert "HÅND viser partiet" in [m for m in local(svc, ALICE) if m["kind"] == "started"][-1]["body"]  # (+47: Norwegian)

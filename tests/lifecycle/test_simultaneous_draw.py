"""Issue 11 in the service: the simultaneous draw (RULES D11), forced cards and decided hands playing
themselves, through the real handlers, Redis and the beat's code, with a controlled clock."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import time_machine

from service.addresses import is_bot
from service.conversation_port import command_text
from service.lifecycle import bot
from spades import bots
from spades.game import view

from .helpers import CAROL, lifecycle_command, load, local, move, start_game, tick

ERIN = "+12125550188"  # New York, like Carol: English messages
MONDAY_8_NY = datetime(2030, 1, 7, 13, 0, tzinfo=timezone.utc)  # 08:00 in New York


def seats(svc, gid):  # type: ignore[no-untyped-def]
    """(first player's address, second player's address) of the current hand."""
    meta, game = svc.store.meta(gid), load(svc, gid)
    return meta[f"seat{game.first_player}"], meta[f"seat{1 - game.first_player}"]


def seat_of(svc, gid, address):  # type: ignore[no-untyped-def]
    return 0 if svc.store.meta(gid)["seat0"] == address else 1


def reminders_to(svc, address):  # type: ignore[no-untyped-def]
    return [m for m in local(svc, address) if m.get("kind") == "reminder"]


def draw_all(svc, gid, address, n: int = 13) -> None:  # type: ignore[no-untyped-def]
    """``address`` makes ``n`` draw decisions (KEEP every card)."""
    for _ in range(n):
        assert move(svc, address, "K").outcome == "applied"


def test_one_player_draws_all_13_while_the_other_is_silent_then_the_other_does(svc) -> None:  # type: ignore[no-untyped-def]
    """RULES D11: each reply to a draw prompt is answered at once with that player's next card; the other
    player, who owes their own draw, gets nothing meanwhile; who finishes first is told they wait."""
    gid = start_game(svc, CAROL, ERIN)
    first, second = seats(svc, gid)
    assert move(svc, first, "DRAW").outcome == "applied"
    assert "DN" in local(svc, second)[-1]["body"]  # the second player's double nil question comes now
    heard = len(local(svc, second))
    for k in range(1, 14):
        before = len(local(svc, first))
        assert move(svc, first, "K").outcome == "applied"
        got = local(svc, first)[before:]
        assert len(got) == 1  # answered at once, with one message
        if k < 13:
            assert f"Draw {k + 1}/13" in got[0]["body"], got[0]["body"]
        else:  # done drawing: waiting for the opponent to finish theirs
            assert "to move" in got[0]["body"] and "Kept:" in got[0]["body"], got[0]["body"]
    assert len(local(svc, second)) == heard  # the silent player owes their own move: nothing new
    game = load(svc, gid)
    assert game.phase == "draw" and game.movers == (seat_of(svc, gid, second),)
    assert move(svc, second, "DRAW").outcome == "applied"
    assert "Draw 1/13" in local(svc, second)[-1]["body"]
    draw_all(svc, gid, second)
    game = load(svc, gid)
    assert game.phase == "bid" and len(game.hands[0]) == len(game.hands[1]) == 13
    assert "BID" in local(svc, second)[-1]["body"].upper()  # the second player bids first (RULES 5)


def test_the_second_player_cannot_move_before_the_first_players_double_nil_choice(svc) -> None:  # type: ignore[no-untyped-def]
    """RULES D11: the second player makes their double nil choice only after the first player's."""
    gid = start_game(svc, CAROL, ERIN)
    first, second = seats(svc, gid)
    version = load(svc, gid).version
    for text in ("DRAW", "K"):
        res = move(svc, second, text)
        assert res.outcome == "illegal"
        assert "waiting for" in local(svc, second)[-1]["body"].lower(), local(svc, second)[-1]["body"]
    assert load(svc, gid).version == version  # nothing applied
    assert move(svc, first, "DRAW").outcome == "applied"
    assert move(svc, second, "DRAW").outcome == "applied"  # now they may, before the first draws any card


def test_each_player_is_reminded_only_of_a_move_they_owe(svc) -> None:  # type: ignore[no-untyped-def]
    """Two movers (RULES D11): each reminder counts from when that player was asked; a player who finished
    drawing is not reminded of the draw only the other still owes."""
    with time_machine.travel(MONDAY_8_NY, tick=False) as clock:
        gid = start_game(svc, CAROL, ERIN)
        first, second = seats(svc, gid)
        move(svc, first, "DRAW")  # 08:00: the second player's turn begins
        clock.shift(timedelta(hours=1))
        move(svc, first, "K")  # 09:00: the first player's next draw begins
        clock.shift(timedelta(hours=11))  # 20:00: the second player's 12 hours; the first player's 11
        sent = tick(svc)
        assert [m["to"] for m in sent] == [second]
        assert "DN" in sent[0]["body"]  # their own prompt: the double nil question, not the other's card
        clock.shift(timedelta(minutes=59))
        assert tick(svc) == []
        clock.shift(timedelta(minutes=1))  # 21:00: the first player's 12 hours
        sent = tick(svc)
        assert [m["to"] for m in sent] == [first] and "Draw 2/13" in sent[0]["body"]
        clock.shift(timedelta(hours=12))  # 09:00 next day
        draw_all(svc, gid, first, 12)  # the first player finishes; only the second owes a move
        for _ in range(4):
            clock.shift(timedelta(days=1))
            tick(svc)
        assert len(reminders_to(svc, first)) == 1  # never reminded of the draw only the other owes
        assert len(reminders_to(svc, second)) == 3  # 12 h, then 24 h, then 48 h after (REMIND_MAX)


def play_hand(svc, gid, addresses, until_hand: int) -> None:  # type: ignore[no-untyped-def]
    """Both players answer every prompt with the basic strategy's move until the game reaches ``until_hand``."""
    basic = bots.get("basic")
    while True:
        game = load(svc, gid)
        if game.phase == "over" or game.hand_no >= until_hand:
            return
        seat = game.movers[0]
        assert move(svc, addresses[seat], command_text(basic.choose(view(game, seat)))).outcome == "applied"


def test_forced_cards_play_themselves_and_the_player_is_told(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 11: a player's only legal card is played for them (RULES 6), marked ``auto``; their next
    message names it. The 13th trick is always forced."""
    gid = start_game(svc, CAROL, ERIN)
    meta = svc.store.meta(gid)
    addresses = (meta["seat0"], meta["seat1"])
    basic = bots.get("basic")
    pending: dict[int, tuple[str, int]] = {}  # seat -> (card played for them, their messages then)
    told = 0
    while told < 2:
        game = load(svc, gid)
        assert game.phase != "over" and game.hand_no < 12
        for seat, (card, seen) in list(pending.items()):
            after = local(svc, addresses[seat])[seen:]
            if after and after[0].get("kind") != "hand_summary":
                assert card in after[0]["body"], (card, after[0]["body"])  # "Forced: 4H", or the trick's line
                told += 1
                del pending[seat]
            elif after:
                del pending[seat]  # the hand ended with it: the summary tells the hand's end
        seat = game.movers[0]
        version = game.version
        heard = [len(local(svc, a)) for a in addresses]
        assert move(svc, addresses[seat], command_text(basic.choose(view(game, seat)))).outcome == "applied"
        new = [e.event for e in svc.store.load(gid)][version:]
        plays = [e for e in new if e["type"] == "card_played"]
        if any(e["type"] == "hand_scored" for e in new):
            assert plays and all(e.get("auto") for e in plays[-2:])  # the 13th trick played itself
            continue
        for e in plays:
            if e.get("auto") == "forced" and e["seat"] not in pending:
                pending[e["seat"]] = (e["card"], heard[e["seat"]])


def test_autoplay_off_stops_forced_cards_for_that_player_only(svc) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(svc, CAROL, ERIN)
    res = lifecycle_command(svc, CAROL, "AUTOPLAY OFF")
    assert res.outcome == "setting" and "Autoplay off" in local(svc, CAROL)[-1]["body"]
    meta = svc.store.meta(gid)
    addresses = (meta["seat0"], meta["seat1"])
    carol = addresses.index(CAROL)
    play_hand(svc, gid, addresses, 3)
    plays = [e.event for e in svc.store.load(gid) if e.event["type"] == "card_played"]
    assert not [e for e in plays if e["seat"] == carol and e.get("auto") == "forced"]
    assert [e for e in plays if e["seat"] != carol and e.get("auto")]  # Erin's still play themselves
    lifecycle_command(svc, CAROL, "AUTOPLAY ON")
    assert "Autoplay on" in local(svc, CAROL)[-1]["body"]


def test_a_decided_hand_finishes_itself_and_the_summary_says_so(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 11: at the start of a trick, when every legal play-out gives the same tricks, the rest of the
    hand is played at once and both players' summary says how many tricks were decided."""
    gid = start_game(svc, CAROL, ERIN)
    meta = svc.store.meta(gid)
    addresses = (meta["seat0"], meta["seat1"])
    for hand in range(2, 12):
        play_hand(svc, gid, addresses, hand)
        events = [e.event for e in svc.store.load(gid)]
        decided = [e for e in events if e["type"] == "card_played" and e.get("auto") == "decided"]
        if decided:
            break
    assert decided
    told = [m["body"] for m in local(svc, CAROL)]  # the end of a hand is one SMS (issue 14 case 9)
    assert any(re.search(r"Last (\d+ tricks|trick) decided\.", body) for body in told), told[-5:]


def test_the_computer_draws_all_its_cards_at_once(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 11 (RULES D11): once it has made its double nil choice, the computer makes its 13 draw
    decisions in one move, while the person draws at their own pace."""
    res = lifecycle_command(svc, CAROL, "NEW BOT")
    gid = str(res.game_id)
    meta = svc.store.meta(gid)
    computer = 0 if is_bot(meta["seat0"]) else 1
    computer_moves = 0
    while load(svc, gid).phase == "draw":
        game = load(svc, gid)
        if game.may_move(computer):
            assert bot.move(svc.config, svc.store, svc.players, svc.links, svc.reach, svc.games, svc.seats, svc.dealer,
                            gid, computer, game.version).outcome == "applied"
            computer_moves += 1
            assert load(svc, gid).decisions[computer] == 13  # all at once
        else:
            assert move(svc, CAROL, "K" if game.decisions[1 - computer] or not view(
                game, 1 - computer).double_nil_offer else "DRAW").outcome == "applied"
    assert computer_moves == 1  # its double nil choice; the 13 decisions came with it


def test_a_claim_against_the_player_who_still_owes_their_draw(svc) -> None:  # type: ignore[no-untyped-def]
    """Two movers (RULES D11): the timeout counts from when each player was asked; a player who owes a move
    themselves may not claim; one who finished drawing may claim against the one who did not."""
    with time_machine.travel(MONDAY_8_NY, tick=False) as clock:
        gid = start_game(svc, CAROL, ERIN)
        first, second = seats(svc, gid)
        move(svc, first, "DRAW")  # the second player's turn begins now
        clock.shift(timedelta(days=7, hours=1))
        sent = tick(svc)
        assert "claim_possible" not in [m["kind"] for m in sent]  # both owe a move: nobody may claim yet
        assert lifecycle_command(svc, first, "CLAIM").outcome == "claim_refused"
        assert lifecycle_command(svc, second, "CLAIM").outcome == "claim_refused"
        draw_all(svc, gid, first)  # the first player finishes; the second's 7 days are over already
        clock.shift(timedelta(hours=1))
        sent = tick(svc)
        assert [(m["to"], m["kind"]) for m in sent if m["kind"] == "claim_possible"] == [(first, "claim_possible")]
        assert lifecycle_command(svc, second, "CLAIM").outcome == "claim_refused"
        assert lifecycle_command(svc, first, "CLAIM").outcome == "applied"
        game = load(svc, gid)
        assert game.phase == "over" and game.end_reason == "timeout"
        assert svc.store.meta(gid)[f"seat{game.winner}"] == first


def test_a_pause_holds_both_players_reminders_then_each_gets_theirs(svc) -> None:  # type: ignore[no-untyped-def]
    """Two movers (RULES D11): PAUSE stops both players' reminders; when it ends, each is reminded."""
    with time_machine.travel(MONDAY_8_NY, tick=False) as clock:
        gid = start_game(svc, CAROL, ERIN)
        first, second = seats(svc, gid)
        move(svc, first, "DRAW")  # 08:00: both owe a move
        clock.shift(timedelta(hours=1))
        assert lifecycle_command(svc, second, "PAUSE 1").outcome == "paused"
        clock.shift(timedelta(hours=12))
        assert tick(svc) == []
        clock.move_to(MONDAY_8_NY + timedelta(days=1, hours=1))  # the pause ends: 09:00 in New York
        sent = tick(svc)
        assert sorted(m["to"] for m in sent if m["kind"] == "reminder") == sorted([first, second])


def test_new_with_alt_creates_a_game_of_strict_alternation(svc) -> None:  # type: ignore[no-untyped-def]
    """RULES D11's house rule: ``NEW ... ALT``; the invitation says so; the players then draw in turn."""
    res = lifecycle_command(svc, CAROL, f"NEW {ERIN} ALT")
    assert res.outcome == "invited"
    assert "strict alternation" in local(svc, ERIN)[-1]["body"]
    assert lifecycle_command(svc, ERIN, "YES").outcome == "started"
    gid = str(res.game_id)
    assert load(svc, gid).rules.simultaneous_draw is False
    first, second = seats(svc, gid)
    move(svc, first, "DRAW")
    move(svc, first, "K")
    assert move(svc, first, "K").outcome == "illegal"  # now the second player's turn
    assert load(svc, gid).movers == (seat_of(svc, gid, second),)

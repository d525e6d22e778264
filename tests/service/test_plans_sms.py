"""Answers given ahead (RULES D12) by SMS, through the real webhook and worker: plans play at the right moment as the
player's own moves, dropped entries are told and asked, bad plans are refused with the plan unchanged, and the
opponent never sees a plan."""

from __future__ import annotations

from typing import Any

from service.conversation_port import command_text
from spades.commands import Bid, Play
from spades.events import AUTO_PLAN
from spades.game import Game, legal_moves
from spades.plans import Plan
from tests.following import Following

from .chooser import choose
from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_sms_game import ALICE, BOB, start_sms_game

ADDRESSES = (ALICE, BOB)


def send(client: Any, svc: Any, who: str, text: str) -> None:
    resp, mid = post_sms(client, who, text)
    assert resp.status_code == 200
    wait_handled(svc, mid)
    wait_outbox_settled(svc)


def seat_of(svc: Any, gid: str, address: str) -> int:
    return 0 if svc.store.meta(gid)["seat0"] == address else 1


def play_until(client: Any, svc: Any, gid: str, done: Any, limit: int = 400) -> Game:
    following = Following(svc.store, gid)
    for _ in range(limit):
        game = following()
        if done(game):
            return game
        seat = game.movers[0]
        send(client, svc, svc.store.meta(gid)[f"seat{seat}"], command_text(choose(game, seat)))
    raise AssertionError("never reached")


def planned_events(svc: Any, gid: str) -> list[dict[str, Any]]:
    return [e.event for e in svc.store.load(gid) if e.event.get("auto") == AUTO_PLAN]


def test_d12_a_bid_sent_in_the_draw_is_made_when_its_turn_comes(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = Following(svc.store, gid)()
    second = game.second_player  # bids first (section 5)
    address = svc.store.meta(gid)[f"seat{second}"]
    play_until(client, svc, gid, lambda g: g.phase == "draw" and g.decisions[second] >= 2)
    before = len(local_messages(svc, address))
    send(client, svc, address, "BID 3")
    echo = local_messages(svc, address)[before:]
    assert len(echo) == 1 and "Your plan" in echo[0]["body"] and "BID 3" in echo[0]["body"], echo
    assert Plan.loads(svc.store.meta(gid)[f"plan{second}"]).bid == 3  # type: ignore[union-attr]
    game = play_until(client, svc, gid, lambda g: g.phase == "bid" or g.bids[second] is not None)
    assert game.bids[second] == 3  # made by the plan the moment the bidding began: no prompt, no wait
    assert [(e["type"], e["tricks"]) for e in planned_events(svc, gid)] == [("bid_made", 3)]
    opponent = svc.store.meta(gid)[f"seat{1 - second}"]
    assert not any("plan" in m["body"].lower() for m in local_messages(svc, opponent))


def test_d12_follows_given_ahead_play_at_once_and_the_owner_is_told(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = play_until(client, svc, gid, lambda g: g.phase == "play")
    leader = game.movers[0]
    follower = 1 - leader
    lead_addr, follow_addr = (svc.store.meta(gid)[f"seat{s}"] for s in (leader, follower))
    send(client, svc, follow_addr, "ALWAYS S LOW H LOW D LOW C LOW")
    plan_text = local_messages(svc, follow_addr)[-1]["body"]
    assert "ALWAYS S LOW H LOW D LOW C LOW" in plan_text, plan_text
    version = svc.store.version(gid)
    # a lead the follower has a choice on (one card of the suit led would be played for them: forced, not planned)
    leads = [c for c in game.hands[leader] if Play(leader, c) in legal_moves(game, leader)]
    card = Play(leader, next(c for c in leads if sum(x.suit is c.suit for x in game.hands[follower]) != 1))
    send(client, svc, lead_addr, card.card.code)
    after = Following(svc.store, gid)()
    assert after.version >= version + 3  # the lead, the follow from the plan, the trick
    meta = svc.store.meta(gid)  # the turn (reminders, timeouts) counts from after the plan: nothing owed by it
    assert int(meta["v"]) == after.version and meta["seat"] == "".join(str(s) for s in after.movers)
    planned = planned_events(svc, gid)
    assert len(planned) == 1 and planned[0]["seat"] == follower
    same = [c for c in game.hands[follower] if c.suit is card.card.suit]
    want = min(same, key=lambda c: c.rank) if same else None
    if want is not None:
        assert planned[0]["card"] == want.code  # LOW: the lowest card of the suit led
    # the follower hears of it in their next message; the leader's messages never name a plan
    play_until(client, svc, gid, lambda g: g.movers == (follower,) or g.phase != "play")
    told = [m["body"] for m in local_messages(svc, follow_addr)]
    mine = [e["card"] for e in planned_events(svc, gid) if e["seat"] == follower]
    assert any(f"Your plan played {mine[0]}" in b or f"Your plan played {len(mine)} cards." in b
               for b in told), told[-3:]  # the cards, or how many past three (the tricks name them)
    for m in local_messages(svc, lead_addr):
        assert "plan" not in m["body"].lower() and "ALWAYS" not in m["body"]


def test_d12_a_plan_that_covers_the_turn_now_plays_at_once(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = play_until(client, svc, gid, lambda g: g.phase == "play")
    leader = game.movers[0]
    address = svc.store.meta(gid)[f"seat{leader}"]
    card = choose(game, leader)
    assert isinstance(card, Play)
    send(client, svc, address, f"LEAD {card.card.code}")
    game = Following(svc.store, gid)()
    assert game.played[:1] == [card.card] or game.hand_no > 1
    assert planned_events(svc, gid)[0]["card"] == card.card.code


def test_d12_bad_plans_are_refused_saying_what_is_allowed_and_change_nothing(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = play_until(client, svc, gid, lambda g: g.phase == "play")
    seat = 1 - game.movers[0]
    address = svc.store.meta(gid)[f"seat{seat}"]
    hand = game.hands[seat]
    send(client, svc, address, "IF H 4H")
    kept = svc.store.meta(gid).get(f"plan{seat}")
    absent = next(c for c in ("AH", "KH", "QH", "JH", "10H", "9H", "8H", "7H") if c not in {x.code for x in hand})
    spades_and_more = any(c.suit.letter == "S" for c in hand) and any(c.suit.letter != "S" for c in hand)
    cases = [(f"IF D {absent}", f"you do not hold {absent}"), ("IF H ZZ", "ZZ was not understood"),
             ("LEAD", "was not understood")]
    suits = {c.suit.letter for c in hand}
    off = next((c for c in hand if c.suit.letter != "H"), None)
    if "H" in suits and off is not None:
        cases.append((f"IF H {off.code}", "would not follow suit"))
    if spades_and_more and not game.spades_broken:
        spade = next(c for c in hand if c.suit.letter == "S")
        cases.append((f"LEAD {spade.code}", "spades are not broken"))
    for text, why in cases:
        before = len(local_messages(svc, address))
        send(client, svc, address, text)
        got = local_messages(svc, address)[before:]
        assert len(got) == 1 and why in got[0]["body"] and "E.g." in got[0]["body"], (text, got)
        assert svc.store.meta(gid).get(f"plan{seat}") == kept, text  # unchanged
    send(client, svc, address, "PLAN OFF")
    assert not svc.store.meta(gid).get(f"plan{seat}")
    send(client, svc, address, "PLAN")
    assert "No plan" in local_messages(svc, address)[-1]["body"]


def test_d12_a_bid_planned_for_a_range_of_the_opponents_bid(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = Following(svc.store, gid)()
    first = game.first_player  # bids second
    address = svc.store.meta(gid)[f"seat{first}"]
    play_until(client, svc, gid, lambda g: g.phase == "draw" and g.decisions[first] >= 1)
    send(client, svc, address, "BID 0-3 5 4+ 2")
    game = play_until(client, svc, gid, lambda g: g.phase == "play")
    theirs = game.bids[1 - first]
    assert theirs is not None
    assert game.bids[first] == (5 if theirs <= 3 else 2)
    assert any(e["type"] == "bid_made" and e["seat"] == first for e in planned_events(svc, gid))
    assert isinstance(choose(game, game.movers[0]), (Play, Bid))


def test_d12_the_prompts_teach_plans_once_a_game_where_one_would_have_answered(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    game = play_until(client, svc, gid, lambda g: g.phase == "play")
    tips = []
    for _ in range(3):  # three follows asked of a player without a plan
        game = play_until(client, svc, gid, lambda g: g.phase == "play" and len(g.trick) == 1)
        follower = game.movers[0]
        address = svc.store.meta(gid)[f"seat{follower}"]
        prompt = local_messages(svc, address)[-1]["body"]
        tips.append((follower, "Tip: answer ahead" in prompt, prompt, game.trick[0][1].suit.letter))
        send(client, svc, address, command_text(choose(game, follower)))
    for seat in (0, 1):
        told = [t for s, t, _, _ in tips if s == seat]
        assert told.count(True) <= 1 and (not told or told[0]), tips  # the first follow asked, and never again
    _, _, first, suit = tips[0]
    assert f"e.g. IF {suit} LOW: it plays as soon as they lead {suit}." in first  # the suit led then



def test_d12_every_plan_change_is_kept_for_a_dispute_and_the_operator_reads_it(client, svc, celery_worker,
                                                                                 redis_url) -> None:  # type: ignore[no-untyped-def]
    import json

    from click.testing import CliRunner

    from service.cli import main

    gid = start_sms_game(client, svc)
    game = play_until(client, svc, gid, lambda g: g.phase == "play")
    follower = 1 - game.movers[0]
    address = svc.store.meta(gid)[f"seat{follower}"]
    send(client, svc, address, "ALWAYS S LOW H LOW D LOW C LOW")
    send(client, svc, address, "PLAN OFF")
    send(client, svc, address, "IF H LOW")
    leader_address = svc.store.meta(gid)[f"seat{1 - follower}"]
    send(client, svc, leader_address, command_text(choose(Following(svc.store, gid)(), 1 - follower)))
    res = CliRunner().invoke(main, ["games", "plans", gid, "--json", "--redis-url", redis_url], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    changes = [(c["seat"], c["what"]) for c in json.loads(res.output)["plans"]]
    assert changes[:3] == [(follower, "given"), (follower, "cleared"), (follower, "given")]
    # the hearts entry played if hearts were led (and the follower's card was not their only one, played for them)
    assert ((follower, "played") in changes) == any(e["seat"] == follower for e in planned_events(svc, gid))
    text = CliRunner().invoke(main, ["games", "plans", gid, "--redis-url", redis_url]).output
    assert "cleared" in text and "LOW" in text


def test_d12_an_entry_that_can_no_longer_apply_is_dropped_told_and_asked(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc, " TO 300")
    following = Following(svc.store, gid)
    told = None
    for _ in range(40):  # leads planned until one meets spades still not broken
        game = play_until(client, svc, gid, lambda g: g.phase == "over" or (
            g.phase == "play" and not g.trick and not g.spades_broken
            and any(c.suit.letter == "S" for c in g.hands[g.movers[0]])
            and any(c.suit.letter != "S" for c in g.hands[g.movers[0]])))
        if game.phase == "over":
            break
        leader = game.movers[0]
        address = svc.store.meta(gid)[f"seat{leader}"]
        hand = game.hands[leader]
        first = max((c for c in hand if c.suit.letter != "S"), key=lambda c: c.rank)
        spade = min((c for c in hand if c.suit.letter == "S"), key=lambda c: c.rank)
        send(client, svc, address, f"LEAD {first.code} {spade.code}")  # the first plays at once
        assert first in following().played or following().hand_no > game.hand_no
        game = play_until(client, svc, gid, lambda g: g.phase != "play" or g.movers == (leader,) and not g.trick
                          or g.hand_no != game.hand_no)
        if game.phase == "play" and game.movers == (leader,) and not game.spades_broken \
                and any(c.suit.letter != "S" for c in game.hands[leader]):
            told = " | ".join(m["body"] for m in local_messages(svc, address)[-2:])  # the prompt, the plan's answer
            break
        send(client, svc, address, "PLAN OFF")
    assert told is not None, "no position where a planned spade lead met unbroken spades"
    assert f"Your plan could not lead {spade.code}: spades are not broken." in told, told
    assert "Lead any card but spades." in told or "Play:" in told  # and asked as usual
    assert not Plan.loads(svc.store.meta(gid).get(f"plan{following().movers[0]}")), "the entry was dropped"

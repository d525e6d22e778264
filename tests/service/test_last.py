"""``LAST`` (issue 46) through the real webhook and worker: the trick played before, with its cards and who won it;
right after a hand that ended decided (played out at once), the cards of its decided tricks, which "Last N tricks
decided" only counted."""

from __future__ import annotations

import html
import re
from typing import Any

from spades.events import AUTO_DECIDED

from .helpers import local_messages
from .test_game_page import shown
from .test_plans_sms import play_until, send
from .test_sms_game import ALICE, BOB, start_sms_game


def hand_events(svc: Any, gid: str, hand: int) -> list[dict[str, Any]]:
    out, now = [], 0
    for e in (se.event for se in svc.store.load(gid)):
        if e["type"] == "hand_started":
            now = e["hand"]
        if now == hand:
            out.append(e)
    return out


def test_last_names_the_trick_before_and_a_decided_ends_cards(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    send(client, svc, BOB, "NAME Bo")
    send(client, svc, ALICE, "LAST")
    assert local_messages(svc, ALICE)[-1]["body"] == "No trick played yet in this game."
    game = play_until(client, svc, gid, lambda g: g.phase == "play" and sum(g.tricks_won) == 1)
    [trick] = [e for e in hand_events(svc, gid, game.hand_no) if e["type"] == "trick_won"]
    bob = 0 if svc.store.meta(gid)["seat0"] == BOB else 1
    cards = {int(s): c for s, c in trick["cards"]}
    send(client, svc, BOB, "LAST")
    told = local_messages(svc, BOB)[-1]["body"]
    assert told.startswith(f"Last trick (hand {game.hand_no}, trick 1): ") and told.count("LAST") == 0, told
    won = f"you won {cards[bob]} v {cards[1 - bob]}." if trick["seat"] == bob else \
        f"won {cards[1 - bob]} v your {cards[bob]}."
    assert told.endswith(won), told
    # the hands until one ends decided; LAST right after it names the decided tricks' cards
    for _ in range(15):
        hand = game.hand_no
        game = play_until(client, svc, gid, lambda g: g.hand_no != hand or g.phase == "over")
        decided = [e for e in hand_events(svc, gid, hand) if e["type"] == "card_played" and e.get("auto") == AUTO_DECIDED]
        if decided or game.phase == "over":
            break
    assert decided, "no hand ended decided"
    send(client, svc, ALICE, "LAST")
    told = local_messages(svc, ALICE)[-1]["body"]
    n = len(decided) // 2
    assert f"Hand {hand}, last {n} tricks decided: you " in told if n > 1 else f"Hand {hand}, last trick decided:" in told, told
    for e in decided:
        assert e["card"] in told, (e["card"], told)
    # the page's past hands: every trick of every finished hand, who led it and who won it, the decided ones named
    alice = 0 if svc.store.meta(gid)["seat0"] == ALICE else 1
    page = html.unescape(client.get(f"/g/{svc.players.ensure_web_token(gid, alice)}").get_data(as_text=True))
    past = page.split('<section id="past-hands"')[1].split("</section>")[0]
    hands = past.split('<details class="past-hand">')[1:]
    assert len(hands) == hand, past  # hands 1 to the decided one, newest first
    that = hands[0]
    assert that.startswith(f"\n<summary>Hand {hand}: you won ") and "tricks were decided" in that or \
        "the last trick was decided" in that, that
    tricks = [e for e in hand_events(svc, gid, hand) if e["type"] == "trick_won"]
    rows = re.findall(r'<tr><td class="n">(\d+)</td><td class="past-led">(.*?)</td><td>(.*?)</td><td>(.*?)</td>'
                      r'<td>(.*?)</td></tr>', that, re.S)
    assert len(rows) == len(tricks) == 13, rows
    for (no, led, mine, theirs, won), e in zip(rows, tricks):
        cards = {int(s): c for s, c in e["cards"]}
        assert int(no) == e["trick"] and shown(cards[alice]) in mine and shown(cards[1 - alice]) in theirs
        assert led == ("You" if int(e["cards"][0][0]) == alice else "Bo")
        assert won.startswith("You" if e["seat"] == alice else "Bo")
        assert ("(decided)" in won) == any(c["card"] in cards.values() for c in decided), (won, cards)
    named = that.split('<p class="decided">')[1].split("</p>")[0]
    assert named.startswith("Decided tricks:" if n > 1 else "Decided trick:"), named
    for e in decided:
        assert shown(e["card"]) in named, (e["card"], named)

"""The tricks a decided hand plays by itself are named (issue 45 case 9), a game between two SMS players through the
real signed webhook, a real Celery worker and the local outbox: the message that says "Last N tricks decided" names
each of those tricks' two cards (by SMS when that costs no segment more), and the game page keeps every finished
hand's tricks to be read."""

from __future__ import annotations

import html
import re

from chat.gsm import segments
from service.conversation_port import command_text

from .chooser import choose
from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_game_page_play import events_of
from .test_sms_game import ALICE, BOB, load_game, start_sms_game


def test_decided_tricks_are_named_by_sms_and_every_hands_tricks_stay_on_the_page(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    decided_told = named_by_sms = 0
    for _ in range(3000):  # hands until one ended with tricks played by themselves, and three hands at least
        game = load_game(svc, gid)
        if game.phase == "over" or (named_by_sms and game.hand_no > 3):
            break
        seat = game.movers[0]
        resp, mid = post_sms(client, (ALICE, BOB)[seat], command_text(choose(game, seat)))
        wait_handled(svc, mid)
        if load_game(svc, gid).hand_no > game.hand_no:  # a hand ended: was its end decided?
            wait_outbox_settled(svc)
            events = events_of(svc, gid)
            ended = [i for i, e in enumerate(events) if e["type"] == "hand_scored"][-1]
            start = max(i for i, e in enumerate(events[:ended]) if e["type"] == "hand_started")
            decided = [e for e in events[start:ended] if e["type"] == "card_played" and e.get("auto") == "decided"]
            if not decided:
                continue
            decided_told += 1
            told = [m["body"] for m in local_messages(svc) if "decided" in m["body"]][-2:]
            assert len(told) == 2, told  # both players are told
            cards = [e["card"] for e in decided]
            for body in told:  # every card of the decided tricks named, unless by SMS it would cost a segment more
                named = all(re.search(rf"\b{c}\b", body) for c in cards)
                with_them = body.replace(" decided.", " decided. (" + ", ".join(
                    " ".join(cards[i:i + 2]) for i in range(0, len(cards), 2)) + ")", 1)
                assert named or segments(with_them) > segments(body), (cards, body)
                named_by_sms += named
    assert decided_told and named_by_sms, ("no hand ended decided", decided_told, named_by_sms)
    hands = load_game(svc, gid).hand_no - 1
    token = svc.players.ensure_web_token(gid, 0)
    page = html.unescape(client.get(f"/g/{token}").get_data(as_text=True))
    past = page.split('<section id="past-hands"')[1].split("</section>")[0]
    assert past.count('<details class="past-hand">') == hands, past  # each finished hand's thirteen tricks
    assert past.count('<td class="past-led">') == 13 * hands

"""Whole games with answers given ahead (RULES D12) through the real webhooks and worker: an SMS player against an
email player (mail over real SMTP), both giving plans every hand. Every planned move is applied when it became
legal and replays as that player's own move; neither player is ever shown the other's plan, in a message or on
their page; each is told what their own plan played."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from service.store import clock
from spades.events import AUTO_PLAN, CardPlayed, from_dict
from spades.game import Game
from spades.replay import verify_log

from .chooser import choose
from .helpers import local_messages, post_email, post_sms, wait_handled, wait_outbox_settled
from .test_email_game import DANA, mails_to
from .test_sms_game import ALICE, load_game

CARD = re.compile("[\u2660\u2665\u2663\u2666]")  # a card as a page shows it
PLANS = {0: "ALWAYS S LOW H LOW D LOW C LOW", 1: "ALWAYS S HIGH H HIGH D HIGH C HIGH"}  # one word each: told apart


def shown_card(code: str) -> str:
    return code[:-1] + {"S": "\u2660", "H": "\u2665", "C": "\u2663", "D": "\u2666"}[code[-1]]


def mail_text(m: Any) -> str:
    return str(m.get_body(("plain",)).get_content())


@pytest.mark.slow
def test_d12_a_whole_game_sms_against_email_with_plans_every_hand(client, svc, smtp_server, app,
                                                                  celery_worker) -> None:  # type: ignore[no-untyped-def]
    resp, mid = post_sms(client, ALICE, f"NEW {DANA} TO 100", sid="SMd12plansgames0000000000000000001")  # one deal (DEALER_SEED), every run
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    [invite] = mails_to(smtp_server, DANA)
    reply_to = invite["Reply-To"]
    resp, mid = post_email(client, DANA, reply_to, "YES")
    wait_handled(svc, mid)
    seat_of = {svc.store.meta(gid)["seat0"]: 0, svc.store.meta(gid)["seat1"]: 1}
    alice, dana = seat_of[ALICE], seat_of[DANA]

    def send(seat: int, text: str) -> None:
        if seat == alice:
            r, m = post_sms(client, ALICE, text)
        else:
            r, m = post_email(client, DANA, reply_to, text + "\n\n-- \nDana's phone")
        assert r.status_code == 200
        wait_handled(svc, m)

    planned_hand: dict[int, int] = {}
    pages_checked = 0
    moves = 0
    while True:
        game: Game = load_game(svc, gid)
        if game.phase == "over":
            break
        for seat in (alice, dana):  # each player gives their plan once a hand, as soon as their cards are known
            if game.phase in ("bid", "play") and planned_hand.get(seat) != game.hand_no:
                planned_hand[seat] = game.hand_no
                send(seat, PLANS[0] if seat == alice else PLANS[1])
                if pages_checked < 3:  # neither page shows the other's plan
                    pages_checked += 1
                    for s in (0, 1):
                        token = svc.players.ensure_web_token(gid, s)
                        html = client.get(f"/g/{token}").get_data(as_text=True)
                        if s == alice:  # their own plan on their page, never the other's
                            assert "S HIGH" not in html
                            assert ("S LOW H LOW" in html) == (planned_hand.get(alice) == game.hand_no)
                        else:
                            assert "S LOW H LOW" not in html
                        games = client.get(f"/g/{token}/games").get_data(as_text=True)  # the page of their games
                        assert "S HIGH" not in games and "S LOW H LOW" not in games and not CARD.search(games)
                    clock.advance(svc.store.r, 60)  # a glance at a page quiets its player's messages for a while
                game = load_game(svc, gid)
        if game.phase == "over":
            break
        seat = game.movers[0]
        send(seat, command_text(choose(game, seat)))
        assert svc.store.version(gid) > game.version or load_game(svc, gid).phase == "over"
        moves += 1
        assert moves < 3000
    wait_outbox_settled(svc)
    log = [from_dict(e.event) for e in svc.store.load(gid)]
    verify_log(log)  # every planned move replays as the player's own, legal when it was made
    planned = [e for e in log if getattr(e, "auto", "") == AUTO_PLAN]
    assert {getattr(e, "seat") for e in planned} == {0, 1}, "both players' plans played"
    sms = [m["body"] for m in local_messages(svc, ALICE)]
    mails = [mail_text(m) for m in mails_to(smtp_server, DANA)]
    assert any("Your plan played" in b for b in sms) and any("Your plan played" in b for b in mails)
    for body in sms:  # Alice never reads Dana's plan
        assert "S HIGH" not in body and "HIGH H" not in body, body
    for body in mails:  # nor Dana Alice's
        assert "S LOW H LOW" not in body, body
    for s in (0, 1):  # the past hands: "your plan" beside the cards the seat's own plan played, never the other's
        page = client.get(f"/g/{svc.players.ensure_web_token(gid, s)}").get_data(as_text=True)
        past = page.split('<section id="past-hands"')[1].split("</section>")[0]
        marked = re.findall(r'>([0-9JQKA]+.)</span> <span class="note">\(your plan\)', past)
        mine = [shown_card(e.card.code) for e in planned if isinstance(e, CardPlayed) and e.seat == s]
        assert mine and sorted(marked) == sorted(mine), (s, marked, mine)

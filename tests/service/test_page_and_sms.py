"""A player who glances at their game page and plays by SMS (issue 45 case 3), against the computer through the real
webhook and a real Celery worker (the computer's moves are the worker's tasks), the local outbox: a move sent by
SMS after a glance at the page is answered by SMS at once (the computer's answer is not held back for the page);
a card sent again after its trick is answered with that trick; the SMS that catches up a player who left their
page does not tell again what the page showed them."""

from __future__ import annotations

from typing import Any

from service import after
from service.conversation_port import command_text
from service.lifecycle import bot
from service.store import clock
from tests.following import Following

from .helpers import local_messages, post_sms, wait_for, wait_handled, wait_outbox_settled
from .test_sms_game import ALICE


def bot_game(app: Any, client: Any, svc: Any, sid: str | None = None) -> tuple[str, int, Following]:
    """Alice's game against the computer, started by SMS: its id, her seat, the game followed. ``sid``: the NEW
    BOT message's id, fixed for one deal every run (the game id, then DEALER_SEED's deals)."""
    app.config["BOT_DELAY"] = 0
    _resp, mid = post_sms(client, ALICE, "NEW BOT", sid=sid)
    wait_handled(svc, mid)
    gid = svc.players.games(ALICE)[0]
    return gid, 0 if svc.store.meta(gid)["seat0"] == ALICE else 1, Following(svc.store, gid)


def alices_turn(following: Following, human: int) -> Any:
    """The game once the computer has moved and Alice may (her only), waiting for the worker."""
    def ready() -> Any:
        game = following()
        return game if game.phase == "over" or game.movers == (human,) else None
    return wait_for(ready, timeout=60, what="Alice's turn")


def play_until_a_card(client: Any, svc: Any, following: Following, human: int) -> Any:
    """Alice answers by SMS until the game asks her to lead a trick (the computer answers it): the game then."""
    for _ in range(80):
        game = alices_turn(following, human)
        if game.phase == "play" and not game.trick:
            wait_outbox_settled(svc)
            return game
        _resp, mid = post_sms(client, ALICE, command_text(bot.choose(game, human, "basic")))
        wait_handled(svc, mid)
    raise AssertionError("never asked for a card")


def test_a_glance_at_the_page_does_not_hold_back_the_computers_answer_by_sms(app, client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    # one deal every run: the card sent again must be of the hand in play (a random deal once ended the hand with the
    # computer's answer, decided tricks played out, and the card sent again met the next hand's double nil question)
    gid, human, following = bot_game(app, client, svc, sid="SMglancepage00000000000000000000001")
    game = play_until_a_card(client, svc, following, human)
    token = svc.players.ensure_web_token(gid, human)
    assert client.get(f"/g/{token}").status_code == 200  # a glance at the page, then back to the phone
    before = len(local_messages(svc, ALICE))
    card, version = bot.choose(game, human, "basic"), game.version  # (the game followed changes in place)
    _resp, mid = post_sms(client, ALICE, command_text(card))
    wait_handled(svc, mid)
    wait_for(lambda: following().version > version + 1, timeout=30, what="the computer's answer")
    wait_outbox_settled(svc)
    got = [m["body"] for m in local_messages(svc, ALICE)[before:]]
    assert got, "the computer's answer was held back for a page Alice had left"
    # the card sent again: the answer tells the trick it was played to, not only "not in your hand"
    before = len(local_messages(svc, ALICE))
    _resp, mid = post_sms(client, ALICE, command_text(card))
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    [again] = [m["body"] for m in local_messages(svc, ALICE)[before:]]
    shown = str(card.card)
    assert shown in again and (" v " in again or "won" in again.lower()), again


def test_the_sms_after_leaving_the_page_does_not_retell_what_the_page_showed(app, client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid, human, following = bot_game(app, client, svc)
    game = play_until_a_card(client, svc, following, human)
    token = svc.players.ensure_web_token(gid, human)
    played = tries = 0
    while played < 3 and tries < 12:  # three cards played from the page, each answered by the computer there
        game = alices_turn(following, human)
        page = client.get(f"/g/{token}").get_data(as_text=True)
        csrf = page.split('name="csrf" value="')[1].split('"')[0]
        ask = page.split('name="ask" value="')[1].split('"')[0]
        move = command_text(bot.choose(game, human, "basic"))
        resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": move})
        assert resp.status_code == 303 and resp.headers["Location"].partition("?m=")[2] in ("", "stale#ask")
        played += "?m=" not in resp.headers["Location"]  # (stale: the page was read as the game moved on; again)
        tries += 1
    assert played == 3
    game = alices_turn(following, human)
    client.get(f"/g/{token}")  # the page shows where the game stands: her turn, the tricks so far
    wait_outbox_settled(svc)
    before = len(local_messages(svc, ALICE))
    clock.advance(svc.redis, 10 * 60)  # she leaves the page: once its mark ends, her turn by SMS
    after.tick(svc.config, svc.store, svc.steps,
               after.Outlets(lambda ids: after.deliver_local_many(svc.config, svc.store, ids), lambda turn: None))
    wait_outbox_settled(svc)
    [catch_up] = [m["body"] for m in local_messages(svc, ALICE)[before:]]
    assert "You won " not in catch_up and "Bot won " not in catch_up, catch_up  # no trick the page showed, again
    assert len(catch_up) <= 160, catch_up  # one SMS (it took three, issue 45)

"""What the game page shows a first-time player (issue 45 case 10), a game against the computer started and played
through the real webhook and a real Celery worker, its page read from the real app: the double nil question says
what it is worth (+/-200); "Your card?" shows the card led beside it; the title names the computer's level, as GAMES
does; a finished game's page says how to play again and no longer says "Play here"."""

from __future__ import annotations

import html
import re
from typing import Any

from service.conversation_port import command_text
from service.lifecycle import bot

from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_page_and_sms import alices_turn, bot_game
from .test_sms_game import ALICE


def page(client: Any, svc: Any, gid: str, seat: int) -> str:
    resp = client.get(f"/g/{svc.players.ensure_web_token(gid, seat)}")
    assert resp.status_code == 200
    return html.unescape(resp.get_data(as_text=True))


def test_the_page_names_what_a_first_time_player_needs(app, client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    # one deal every run (a random one once gave a first hand in which the computer never led a trick)
    gid, human, following = bot_game(app, client, svc, sid="SMfirsttimepage0000000000000000001")
    first = page(client, svc, gid, human)
    title = re.search(r"<title>(.*?)</title>", first, re.S).group(1)  # type: ignore[union-attr]
    assert "Bot (normal)" in title, title
    game = alices_turn(following, human)
    if game.phase == "draw" and "DN" in first:
        assert "+/-200" in first.split('id="ask"')[1].split("</section>")[0]  # the double nil box: what it is worth
    led_seen = False
    for _ in range(120):  # play on until the computer leads a trick: the page shows its card beside "Your card?"
        game = alices_turn(following, human)
        if game.phase == "over" or game.hand_no > 1:
            break
        if game.phase == "play" and game.trick:
            ask = page(client, svc, gid, human).split('id="ask"')[1].split("</section>")[0]
            led = str(game.trick[0][1])
            assert "Your card?" in ask and f"{led[:-1]}" in ask and "Bot" in ask, ask
            led_seen = True
            break
        _resp, mid = post_sms(client, ALICE, command_text(bot.choose(game, human, "basic")))
        wait_handled(svc, mid)
    assert led_seen
    _resp, mid = post_sms(client, ALICE, "GAMES")
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert "Bot (normal)" in local_messages(svc, ALICE)[-1]["body"]
    for text in ("RESIGN", "YES"):  # the end: the page says how to play again, and no longer to play here
        _resp, mid = post_sms(client, ALICE, text)
        wait_handled(svc, mid)
    over = page(client, svc, gid, human)
    assert "REMATCH" in over and "Play here" not in over, over
    assert "Bot wins 0 to 0" not in over and "This game is over." in over  # resigned before any hand was scored

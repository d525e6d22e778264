"""A whole game between an SMS player and an email player, through both signed webhooks and a real Celery worker
(SMS into the local outbox, email over real SMTP): what the metrics and the logs tests play."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from spades.commands import Play
from spades.events import from_dict
from spades.game import fold

from .chooser import choose
from .helpers import post_email, post_sms, wait_handled, wait_outbox_settled

SMS_PLAYER, EMAIL_PLAYER = "+15557770001", "ana.lovelace@example.org"


@dataclass
class Played:
    """What was posted: the game, the webhooks by channel, the moves, and one illegal move."""

    game_id: str
    posted: dict[str, int] = field(default_factory=lambda: {"sms": 0, "email": 0})
    moves: int = 0
    illegal: int = 0


def play_mixed_game(client: Any, svc: Any, smtp_server: Any, target: int = 150) -> Played:
    """``SMS_PLAYER`` invites ``EMAIL_PLAYER`` (first to ``target``), who accepts; they play it to its end, the
    SMS player sending one illegal card first."""
    resp, mid = post_sms(client, SMS_PLAYER, f"NEW {EMAIL_PLAYER} TO {target}")
    assert resp.status_code == 200
    wait_handled(svc, mid)
    played = Played(game_id_for(mid), {"sms": 1, "email": 0})
    wait_outbox_settled(svc)
    invite = next(m for _f, rcpts, m in smtp_server.messages if EMAIL_PLAYER in rcpts)
    reply_to = invite["Reply-To"]
    resp, mid = post_email(client, EMAIL_PLAYER, reply_to, "YES")
    assert resp.status_code == 200
    played.posted["email"] += 1
    wait_handled(svc, mid)
    gid = played.game_id
    while True:
        game = fold(from_dict(e.event) for e in svc.store.load(gid))
        if game.phase == "over":
            break
        seat = game.movers[0]
        if game.phase == "play" and seat == 0 and not played.illegal and game.hands[seat]:
            # a card of the other player's hand: the rules refuse it (not in hand)
            resp, mid = post_sms(client, SMS_PLAYER, command_text(Play(0, game.hands[1][0])))
            wait_handled(svc, mid)
            played.posted["sms"] += 1
            played.illegal += 1
            continue
        text = command_text(choose(game, seat))
        if seat == 0:
            resp, mid = post_sms(client, SMS_PLAYER, text)
        else:
            resp, mid = post_email(client, EMAIL_PLAYER, reply_to, text)
        assert resp.status_code == 200
        played.posted["sms" if seat == 0 else "email"] += 1
        wait_handled(svc, mid)
        assert svc.store.version(gid) > game.version, "a move was not applied"
        played.moves += 1
        assert played.moves < 3000
    wait_outbox_settled(svc)
    return played

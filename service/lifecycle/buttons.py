"""A tapped Telegram button (:mod:`service.telegram`): the question it answers, and the answer to the tap.

A button of a game's question carries the question's tag (the game and :func:`chat.questions.question_key`): the
tap is played in the game whose question now has that tag, as a move made on the game page is (it is refused as
stale if the game moves on before it is applied, :class:`service.games.moves.PlayerMove`); when no game of the player
asks that question any more (it was answered, by this button, another, or a typed move), nothing is played and the
tap is answered so. A button of no game's question (``YES``) is read as the same word typed.

Every tap gets one answer, an outbox entry of the player's own written once for the update (``<message id>:tap``):
Telegram's ``answerCallbackQuery`` (the button stops spinning; a stale one says why) and the tapped message's keyboard
removed (:class:`service.delivery.TelegramSender`).
"""

from __future__ import annotations

from typing import Any

from chat.questions import question_key
from chat.taps import tap_answer
from spades.game import view

from ..context import Services
from ..games import outbox
from ..games.players import lang_of, unfinished_games
from ..games.result import Result
from ..games.seats import seat_of
from ..telegram import question_tag

KIND = "tap"  # the outbox entry's kind


def question_of(svc: Services, sender: str, tag: str) -> tuple[str, str] | None:
    """``(game id, question key)`` of the player's game whose question now has ``tag``, or None."""
    for gid in unfinished_games(svc, sender, ("active",)):
        seat = seat_of(svc.store.meta(gid), sender)
        if seat is None:
            continue
        game = svc.games.load(gid)
        if not game.version:
            continue
        v = view(game, seat)
        if not v.my_turn:
            continue
        key = question_key(v)
        if question_tag(gid, key) == tag:
            return gid, key
    return None


def answered(svc: Services, message_id: str, sender: str, origin: str, msg: dict[str, str], reply: str,
             result: Result) -> Result:
    """``result`` with the tap's answer added (written once for ``message_id``)."""
    entry: dict[str, Any] = {"channel": "telegram", "to": origin, "kind": KIND,
                             "body": tap_answer(lang_of(svc, sender), str(result.outcome), reply),
                             "callback": msg.get("callback", ""), "tgmsg": msg.get("tgmsg", "")}
    if origin != sender:
        entry["home"] = sender
    told = outbox.send_reply(svc, sender, f"{message_id}:{KIND}", [entry], result.outcome, result.game_id)
    result.outbox_ids = list(result.outbox_ids) + list(told.outbox_ids)
    return result

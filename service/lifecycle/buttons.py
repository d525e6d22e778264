"""A tapped button, Telegram's (:mod:`service.telegram`) or WhatsApp's: the question it answers, and the answer to the tap.

A button of a game's question carries the question's tag (the game and :func:`chat.questions.question_key`): the
tap is played in the game whose question now has that tag, as a move made on the game page is (it is refused as
stale if the game moves on before it is applied, :class:`service.games.moves.PlayerMove`); when no game of the player
asks that question any more (it was answered, by this button, another, or a typed move), nothing is played and the
tap is answered so. A button of no game's question (``YES``) is read as the same word typed.

Every Telegram tap gets one answer, an outbox entry of the player's own written once for the update
(``<message id>:tap``): Telegram's ``answerCallbackQuery`` (the button stops spinning; a stale one says why) and the
tapped message's keyboard removed (:class:`service.delivery.TelegramSender`).

A WhatsApp tap (:mod:`service.whatsapp_buttons`: a quick reply's or a list item's id) is played the same way. What the
move answers is its answer; a tap that plays nothing because it is stale, or not one of ours, is answered by a
message saying so, written once the same way; "More…" is answered by the list of the rest (:func:`rest`).
"""

from __future__ import annotations

from typing import Any

from chat.questions import question_key
from chat.taps import list_words, tap_answer
from spades.game import view

from ..addresses import WHATSAPP, address_kind
from ..caches import GameCache
from ..context import Config
from ..games import outbox
from ..games.players import lang_of, unfinished_games
from ..games.result import Outcome, Result
from ..games.seats import seat_of
from ..store import Players, Store
from ..telegram import Tap, question_tag
from ..whatsapp_buttons import rest_pairs

KIND = "tap"  # the outbox entry's kind


def question_of(store: Store, players: Players, games: GameCache, sender: str, tag: str) -> tuple[str, str] | None:
    """``(game id, question key)`` of the player's game whose question now has ``tag``, or None."""
    for gid in unfinished_games(store, players, sender, ("active",)):
        seat = seat_of(store.meta(gid), sender)
        if seat is None:
            continue
        game = games.load(gid)
        if not game.version:
            continue
        v = view(game, seat)
        if not v.my_turn:
            continue
        key = question_key(v)
        if question_tag(gid, key) == tag:
            return gid, key
    return None


def answered(config: Config, store: Store, players: Players, message_id: str, sender: str, origin: str,
             msg: dict[str, str], reply: str,
             result: Result) -> Result:
    """``result`` with the tap's answer added (written once for ``message_id``). On WhatsApp only a tap that played
    nothing is answered: stale, not one of ours, or not allowed now with nothing said (a move's own messages answer
    the rest)."""
    if address_kind(origin) == WHATSAPP:
        said = result.outcome == Outcome.ILLEGAL and result.outbox_ids
        if result.outcome not in (Outcome.STALE, Outcome.IGNORED, Outcome.ILLEGAL) or said:
            return result
        why = tap_answer(lang_of(config, players, sender), "stale" if result.outcome == Outcome.STALE else "illegal",
                         reply)
        return _told(store, message_id, sender, result, {"channel": WHATSAPP, "to": origin, "kind": KIND, "body": why})
    entry: dict[str, Any] = {"channel": "telegram", "to": origin, "kind": KIND,
                             "body": tap_answer(lang_of(config, players, sender), str(result.outcome), reply),
                             "callback": msg.get("callback", ""), "tgmsg": msg.get("tgmsg", "")}
    return _told(store, message_id, sender, result, entry)


def rest(config: Config, store: Store, players: Players, message_id: str, sender: str, origin: str,
         msg: dict[str, str], tap: Tap,
         game_id: str | None) -> Result:
    """WhatsApp's "More…" tapped while its question is still asked: the list of the rest of the answers, under the
    same tag (written once for ``message_id``); one that carries none, or not from WhatsApp, is refused as not one
    of ours."""
    pairs = rest_pairs(tap) if address_kind(origin) == WHATSAPP else []
    if not pairs:
        return answered(config, store, players, message_id, sender, origin, msg, tap.reply, Result([], Outcome.IGNORED))
    lang = lang_of(config, players, sender)
    entry = {"channel": WHATSAPP, "to": origin, "kind": KIND, "body": list_words(lang)[2], "buttons": pairs,
             "lang": lang}
    return _told(store, message_id, sender, Result([], Outcome.OK, game_id), entry)


def _told(store: Store, message_id: str, sender: str, result: Result, entry: dict[str, Any]) -> Result:
    """``result`` with ``entry`` (to the address that tapped, ``sender``'s) written once for ``message_id``."""
    if entry["to"] != sender:
        entry["home"] = sender
    told = outbox.send_reply(store, sender, f"{message_id}:{KIND}", [entry], result.outcome, result.game_id)
    result.outbox_ids = list(result.outbox_ids) + list(told.outbox_ids)
    return result

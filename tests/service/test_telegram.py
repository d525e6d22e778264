"""Telegram as a channel, through the real ``/telegram`` webhook and a real Celery worker, with the Bot API answered
at its HTTP boundary by a local server speaking its JSON (:mod:`tests.service.fake_telegram`): updates refused
without the secret, claimed once by ``update_id``, a whole game against an SMS player where every Telegram move is
one tap of an inline button, a stale button answered and nothing played, a failed ``sendMessage`` retried, a blocked
bot taken as STOP."""

from __future__ import annotations

import io
import json
import logging
import re
from typing import Any

import pytest

from chat import is_gsm7
from chat.questions import question_key
from service import logs
from service.conversation_port import command_text
from service.lifecycle.invitations import game_id_for
from service.telegram import question_tag
from spades.commands import Bid, Command, DeclineDoubleNil, Discard, Keep, Play
from spades.game import view

from .chooser import choose
from .fake_telegram import BOT_TOKEN, SECRET, FakeBotApi, message_update, post_update, tap_update
from .helpers import local_messages, post_sms, wait_for, wait_handled, wait_outbox_settled
from .test_sms_game import load_game

CHAT = 5550001  # the Telegram player's private chat with the bot
TG = f"telegram:{CHAT}"
SMS = "+15551230002"


def send(client: Any, svc: Any, chat: int, text: str) -> str:
    """The player types ``text`` in their chat with the bot; returns the message id once the worker handled it."""
    update = message_update(chat, text)
    resp = post_update(client, update)
    assert resp.status_code == 200 and resp.get_json() == {}
    mid = f"tg:{update['update_id']}"
    wait_for(lambda: (svc.store.inbound(f"telegram:{chat}", mid) or {"status": "done"}).get("status") == "done",
             15, f"{mid} handled")
    return mid


def reply_of(command: Command) -> str:
    """The answer a keyboard offers for ``command`` (chat.messages.replies_for, in English)."""
    if isinstance(command, Keep):
        return "K"
    if isinstance(command, Discard):
        return "D"
    if isinstance(command, DeclineDoubleNil):
        return "DRAW"
    if isinstance(command, Bid):
        return str(command.tricks)
    if isinstance(command, Play):
        return command.card.code
    raise AssertionError(f"no button for {command!r}")


def keyboard_for(bot: FakeBotApi, chat: int, tag: str) -> dict[str, Any]:
    """The last message to ``chat`` whose keyboard answers the question tagged ``tag`` (waited for)."""
    def found() -> dict[str, Any] | None:
        for m in reversed(bot.sent(chat)):
            rows = (m.get("reply_markup") or {}).get("inline_keyboard") or []
            if any(b["callback_data"].startswith(tag + "|") for row in rows for b in row):
                return m
        return None
    return wait_for(found, 15, f"a keyboard for {tag} in chat {chat}")


def tap(client: Any, svc: Any, bot: FakeBotApi, chat: int, message: dict[str, Any], reply: str) -> str:
    """Tap the button of ``reply`` on ``message``; returns the update's message id once handled."""
    [data] = [b["callback_data"] for row in message["reply_markup"]["inline_keyboard"] for b in row
              if b["callback_data"].split("|", 1)[1] == reply]
    update = tap_update(chat, message["message_id"], data)
    resp = post_update(client, update)
    assert resp.status_code == 200
    mid = f"tg:{update['update_id']}"
    wait_for(lambda: (svc.store.inbound(f"telegram:{chat}", mid) or {"status": "done"}).get("status") == "done",
             15, f"{mid} handled")
    return mid


def start_game(client: Any, svc: Any, target: int = 150) -> str:
    """The Telegram player invites the SMS player, who says YES."""
    mid = send(client, svc, CHAT, f"NEW {SMS} TO {target}")
    gid = game_id_for(mid)
    resp, mid = post_sms(client, SMS, "YES")
    wait_handled(svc, mid)
    assert svc.store.meta(gid)["status"] == "active"
    return gid


def play_by_taps(client: Any, svc: Any, bot: FakeBotApi, gid: str, addresses: tuple[str, str],
                 chats: tuple[int | None, int | None]) -> tuple[int, int]:
    """Play ``gid`` out: a seat with a Telegram chat by tapping the button of the chooser's move on the keyboard of
    the question the game asks it now, any other by typing an SMS; returns (taps, moves in all)."""
    taps = moves = 0
    while True:
        game = load_game(svc, gid)
        if game.phase == "over":
            return taps, moves
        seat = game.movers[0]
        version = game.version
        command = choose(game, seat)
        chat = chats[seat]
        if chat is not None:
            message = keyboard_for(bot, chat, question_tag(gid, question_key(view(game, seat))))
            tap(client, svc, bot, chat, message, reply_of(command))
            taps += 1
        else:
            resp, mid = post_sms(client, addresses[seat], command_text(command))
            wait_handled(svc, mid)
        wait_for(lambda: svc.store.version(gid) > version, 15, f"move {moves} applied")
        moves += 1
        assert moves < 3000


# -- the webhook's door ---------------------------------------------------------------------------------
def test_an_update_without_the_secret_or_with_another_is_refused_and_nothing_is_taken(client, svc, bot) -> None:  # type: ignore[no-untyped-def]
    for secret, status in ((None, 401), ("", 401), ("not-the-secret", 403), (SECRET + "x", 403)):
        update = message_update(CHAT, "HELP")
        assert post_update(client, update, secret=secret).status_code == status
        assert svc.store.inbound(TG, f"tg:{update['update_id']}") is None
    svc.config["TELEGRAM_SECRET"] = ""  # no secret configured: nothing is taken, whatever comes
    assert post_update(client, message_update(CHAT, "HELP"), secret="").status_code == 401
    assert post_update(client, message_update(CHAT, "HELP"), secret="anything").status_code == 403
    assert not bot.calls


def test_an_oversized_or_malformed_body_is_refused(client, svc, bot) -> None:  # type: ignore[no-untyped-def]
    big = message_update(CHAT, "x" * 70_000)
    assert post_update(client, big).status_code == 413
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    assert client.post("/telegram", data="not json", content_type="application/json", headers=headers).status_code == 400
    assert client.post("/telegram", data=json.dumps({"message": {}}), content_type="application/json",
                       headers=headers).status_code == 400  # no update_id
    assert client.post("/telegram", data=json.dumps([1, 2]), content_type="application/json",
                       headers=headers).status_code == 400
    group = message_update(-100123, "HELP", chat_type="group")  # not a private chat: answered, dropped
    assert post_update(client, group).status_code == 200
    assert svc.store.inbound("telegram:-100123", f"tg:{group['update_id']}") is None
    assert not bot.calls


def test_an_update_sent_again_or_replayed_is_handled_once(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    update = message_update(CHAT, "HELP")
    assert post_update(client, update).status_code == 200
    wait_for(lambda: len(bot.sent(CHAT)) == 1, 15, "the HELP reply")
    for _ in range(3):  # Telegram's own retry, then a replay of the same update
        assert post_update(client, update).status_code == 200
    wait_outbox_settled(svc)
    assert len(bot.sent(CHAT)) == 1


def test_start_and_typed_commands_are_answered_in_unicode(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, CHAT, "/start")
    wait_for(lambda: bot.sent(CHAT), 15, "the welcome")
    assert "NEW" in bot.sent(CHAT)[0]["text"]  # a first message: what this is and how to start
    send(client, svc, CHAT, "/lang el")
    wait_for(lambda: len(bot.sent(CHAT)) == 2, 15, "LANG answered")
    text = bot.sent(CHAT)[1]["text"]
    assert not is_gsm7(text) and text != text.upper()  # Greek in its own lower case, never folded to GSM-7


def test_a_new_player_speaks_the_language_of_their_telegram_app(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    update = message_update(CHAT, "HELP", lang="el")  # a Greek Telegram app: no phone number to tell it by
    assert post_update(client, update).status_code == 200
    wait_for(lambda: bot.sent(CHAT), 15, "the HELP reply")
    text = bot.sent(CHAT)[0]["text"]
    assert svc.players.get(TG)["lang"] == "el" and not is_gsm7(text) and text != text.upper()
    other = message_update(CHAT + 1, "HELP", lang="pt-br")  # one slowspades does not speak: English
    assert post_update(client, other).status_code == 200
    wait_for(lambda: bot.sent(CHAT + 1), 15, "the HELP reply")
    assert svc.players.get(f"telegram:{CHAT + 1}")["lang"] == "en"


# -- a whole game -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_whole_game_telegram_against_sms_every_telegram_move_one_tap(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc)
    assert svc.store.meta(gid)["seat0"] == TG
    taps, moves = play_by_taps(client, svc, bot, gid, (TG, SMS), (CHAT, None))
    assert taps > 20 and moves > taps
    game = load_game(svc, gid)
    assert game.phase == "over"
    wait_outbox_settled(svc)
    assert all(e["status"] == "sent" for e in svc.store.outbox_entries(f"g:{gid}"))
    # every tap answered, its keyboard removed
    answers = bot.of_method("answerCallbackQuery")
    assert len(answers) == taps and all(a["text"].startswith("✓ ") for a in answers)
    assert len(bot.of_method("editMessageReplyMarkup")) == taps
    to_tg = bot.sent(CHAT)
    assert "Game over:" in " ".join(m["text"] for m in to_tg[-2:])
    to_sms = local_messages(svc, SMS)
    assert all(m["channel"] == "sms" and is_gsm7(m["body"]) for m in to_sms)
    assert not any(str(CHAT) in m["body"] for m in to_sms)  # the chat id never shown to the opponent
    assert "tg..0001" in " ".join(m["body"] for m in to_sms)


@pytest.mark.slow
def test_a_whole_game_telegram_against_telegram_by_an_invitation_link_every_move_one_tap(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc.config["TELEGRAM_BOT_NAME"] = "slowspades_test_bot"
    friend = 5550002  # the friend's chat, once they open the link
    mid = send(client, svc, CHAT, f"NEW {SMS} TO 150")
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    [invite] = local_messages(svc, SMS)
    links = re.findall(r"https://t\.me/slowspades_test_bot\?start=([A-Za-z0-9_-]+)", invite["body"])
    assert len(links) == 1 and "Or play on Telegram:" in invite["body"]
    send(client, svc, friend, "/start " + "0" * 32)  # a token of no invitation: nothing linked, and it says so
    wait_for(lambda: bot.sent(friend), 15, "the answer to a wrong token")
    assert svc.links.home(f"telegram:{friend}") == f"telegram:{friend}"
    send(client, svc, friend, f"/start {links[0]}")  # the link opened in Telegram
    wait_for(lambda: len(bot.sent(friend)) == 2, 15, "linked")
    assert "Linked" in bot.sent(friend)[1]["text"] and svc.links.home(f"telegram:{friend}") == SMS
    send(client, svc, friend, "YES")
    assert svc.store.meta(gid)["status"] == "active"
    taps, moves = play_by_taps(client, svc, bot, gid, (TG, SMS), (CHAT, friend))
    assert taps == moves > 40  # every move of both players one tap
    assert load_game(svc, gid).phase == "over"
    wait_outbox_settled(svc)
    assert len(local_messages(svc, SMS)) == 1  # after the link, nothing more by SMS: the invitation only
    for chat in (CHAT, friend):
        assert "Game over:" in " ".join(m["text"] for m in bot.sent(chat)[-2:])
    answers = bot.of_method("answerCallbackQuery")
    assert len(answers) == taps and all(a["text"].startswith("✓ ") for a in answers)


# -- buttons ---------------------------------------------------------------------------------------------
def test_a_stale_button_is_answered_and_plays_nothing(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc)
    game = load_game(svc, gid)
    while 0 not in game.movers:  # the SMS player's moves until the Telegram player owes one
        resp, mid = post_sms(client, SMS, command_text(choose(game, game.movers[0])))
        wait_handled(svc, mid)
        game = load_game(svc, gid)
    message = keyboard_for(bot, CHAT, question_tag(gid, question_key(view(game, 0))))
    reply = reply_of(choose(game, 0))
    tap(client, svc, bot, CHAT, message, reply)
    version = svc.store.version(gid)
    assert version > game.version
    wait_outbox_settled(svc)
    before = len(bot.of_method("answerCallbackQuery"))
    other = [b["callback_data"].split("|", 1)[1] for row in message["reply_markup"]["inline_keyboard"] for b in row]
    for again in {reply, other[-1]}:  # the same button again, and another of the answered question
        tap(client, svc, bot, CHAT, message, again)
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == version  # nothing played
    answers = bot.of_method("answerCallbackQuery")[before:]
    assert [a["text"] for a in answers] == ["That question was already answered: nothing was played."] * len(answers)
    assert len(answers) == len({reply, other[-1]})


def test_a_yes_no_question_of_no_game_turn_is_one_tap_too(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc)
    send(client, svc, CHAT, "RESIGN")  # asked to confirm: YES/NO buttons, answering no question of the game's turn
    def asked() -> dict[str, Any] | None:
        last = bot.sent(CHAT)[-1] if bot.sent(CHAT) else {}
        rows = (last.get("reply_markup") or {}).get("inline_keyboard") or []
        return last if [b["callback_data"] for row in rows for b in row] == ["|YES", "|NO"] else None
    message = wait_for(asked, 15, "the confirmation's buttons")
    tap(client, svc, bot, CHAT, message, "YES")
    wait_for(lambda: svc.store.meta(gid).get("status") == "over", 15, "the game resigned")
    wait_outbox_settled(svc)
    assert bot.of_method("editMessageReplyMarkup")[-1]["message_id"] == message["message_id"]  # its keyboard gone


# -- delivery --------------------------------------------------------------------------------------------
def test_a_failed_send_is_tried_again(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    bot.fail_next = 1  # the Bot API answers 502 once
    send(client, svc, CHAT, "HELP")
    wait_for(lambda: bot.sent(CHAT), 30, "the HELP reply, sent again")
    wait_outbox_settled(svc)
    assert len(bot.sent(CHAT)) == 1


def test_a_blocked_bot_is_taken_as_stop(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    mid = send(client, svc, CHAT, f"NEW {SMS} TO 150")
    gid = game_id_for(mid)
    wait_outbox_settled(svc)
    bot.blocked.add(str(CHAT))  # then the player blocks the bot: the game's first message to them is refused (403)
    resp, mid = post_sms(client, SMS, "YES")
    wait_handled(svc, mid)
    wait_for(lambda: svc.store.player_life(TG).get("stopped") == "1", 15, "the blocked chat stopped")
    wait_for(lambda: any(m["kind"] == "opponent_stopped" for m in local_messages(svc, SMS)), 15, "the opponent told")
    assert svc.store.meta(gid)["status"] == "active"
    told = len(local_messages(svc, SMS))
    bot.blocked.discard(str(CHAT))  # unblocked, and "Start" pressed: Telegram sends /start
    send(client, svc, CHAT, "/start")
    wait_for(lambda: svc.store.player_life(TG).get("stopped") != "1", 15, "the chat started again")
    wait_for(lambda: len(local_messages(svc, SMS)) > told, 15, "the opponent told the game goes on")
    wait_for(lambda: bot.sent(CHAT), 15, "the player welcomed back")


def test_the_logs_name_no_chat_id_and_no_token(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())  # every record of every logger, DEBUG and up, as the service writes it
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        bot.fail_next = 1  # a failure and its retry are logged too
        send(client, svc, CHAT, "HELP")
        wait_for(lambda: bot.sent(CHAT), 30, "the HELP reply")
        bot.blocked.add(str(CHAT))
        send(client, svc, CHAT, "GAMES")  # refused 403: the chat taken as stopped, and logged
        wait_for(lambda: svc.store.player_life(TG).get("stopped") == "1", 15, "the blocked chat stopped")
        wait_outbox_settled(svc)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    text = out.getvalue()
    assert "outbox failed" in text and "tg:" in text  # the lines are there
    assert str(CHAT) not in text and BOT_TOKEN not in text and BOT_TOKEN.split(":")[1] not in text
    assert logs.pseudonym(TG) in text


def test_no_answer_from_the_api_is_told_without_the_token() -> None:
    from service.telegram import BotApiError, call

    port = FakeBotApi()  # bound, never started: nothing answers on its port... closed right away
    url = port.url
    port.server.server_close()
    with pytest.raises(BotApiError) as failed:
        call({"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "TELEGRAM_API_URL": url, "TELEGRAM_TIMEOUT": 2}, "getMe", {})
    assert failed.value.transient and BOT_TOKEN not in str(failed.value) and "<token>" in str(failed.value)


# -- the operator ----------------------------------------------------------------------------------------
def test_set_webhook_gives_telegram_the_url_and_the_secret() -> None:
    from click.testing import CliRunner

    from service.cli import main

    api = FakeBotApi().start()
    try:
        env = {"SLOWSPADES_TELEGRAM_BOT_TOKEN": BOT_TOKEN, "SLOWSPADES_TELEGRAM_SECRET": SECRET,
               "SLOWSPADES_TELEGRAM_API_URL": api.url, "SLOWSPADES_PUBLIC_BASE_URL": "https://spades.example.test"}
        out = CliRunner().invoke(main, ["telegram", "set-webhook"], env=env)
        assert out.exit_code == 0, out.output
        [call] = api.of_method("setWebhook")
        assert call == {"url": "https://spades.example.test/telegram", "secret_token": SECRET,
                        "allowed_updates": ["message", "callback_query"]}
        bad = CliRunner().invoke(main, ["telegram", "set-webhook"], env=dict(env, SLOWSPADES_TELEGRAM_SECRET="no spaces"))
        assert bad.exit_code != 0 and "SECRET" in bad.output
        wrong = CliRunner().invoke(main, ["telegram", "set-webhook"], env=dict(env, SLOWSPADES_TELEGRAM_BOT_TOKEN="9:x"))
        assert wrong.exit_code != 0 and "401" in wrong.output and "9:x" not in wrong.output  # the token never shown
        assert len(api.of_method("setWebhook")) == 1
    finally:
        api.stop()


def test_stop_by_telegram_is_confirmed_and_nothing_more_is_sent(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, CHAT, "HELP")
    send(client, svc, CHAT, "STOP")  # no carrier answers it on Telegram: the service confirms it
    wait_outbox_settled(svc)
    assert len(bot.sent(CHAT)) == 2 and svc.store.player_life(TG).get("stopped") == "1"
    send(client, svc, CHAT, "HELP")
    wait_outbox_settled(svc)
    assert len(bot.sent(CHAT)) == 2  # after STOP nothing at all goes to that chat until START
    send(client, svc, CHAT, "START")
    wait_outbox_settled(svc)
    assert svc.store.player_life(TG).get("stopped") != "1" and len(bot.sent(CHAT)) == 3

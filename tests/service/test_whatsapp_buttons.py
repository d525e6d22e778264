"""WhatsApp's buttons (issue 43) through the real webhook (signed with Twilio's RequestValidator, a tap carrying
``ButtonPayload`` or ``ListId`` as Twilio sends it) and a real Celery worker, Twilio's Messages and Content APIs
answered at the SDK's HTTP boundary (:mod:`tests.service.fake_twilio_content`): inside the 24-hour window every
prompt that offers answers goes as quick-reply buttons or a list, a tap plays the move, "More…" sends the rest; a
stale tap, a tap of no legal answer and a tap sent twice play nothing more and are told so."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat import taps
from chat.questions import question_key
from chat.render import gettext, whatsapp_parts
from chat.taps import button_label, list_words
from service.conversation_port import command_text
from service.delivery import deliver
from service.lifecycle.invitations import game_id_for
from service.telegram import Tap, question_tag
from service.whatsapp_buttons import items, offered
from spades.commands import Command, Exchange
from spades.game import view

from . import test_telegram, test_whatsapp
from .chooser import choose
from .fake_telegram import post_update, tap_update
from .fake_twilio_content import CONTENT_URL, FakeTwilioContent
from .helpers import (
    BASE,
    SENDERS,
    new_sid,
    post_sms,
    sms_params,
    twilio_sign,
    wait_for,
    wait_handled,
    wait_outbox_settled,
)
from .test_sms_game import load_game
from .test_telegram import reply_of
from .test_whatsapp import SMS, WA, queue_one, start_game, start_with_whatsapp_to_move

twilio = test_whatsapp.twilio  # the fixture: Twilio's Messages and Content APIs at the SDK's HTTP boundary
STALE, REFUSED = gettext("el", taps.STALE), gettext("el", taps.REFUSED)  # the WhatsApp player is Greek (+30)
CHOOSE, MORE, OTHERS = list_words("el")


def post_tap(client: Any, from_: str, title: str, data: str, listed: bool, sid: str | None = None) -> str:
    """The WhatsApp user taps a quick-reply button (``ButtonPayload``) or a list item (``ListId``) as Twilio posts
    it: the title as the Body; returns the message id once handled."""
    params = sms_params(from_, title, sid)
    params["SmsSid"] = params["MessageSid"]
    params.update({"ListId": data, "ListTitle": title} if listed else {"ButtonPayload": data, "ButtonText": title})
    resp = client.post("/sms", data=params, headers={"X-Twilio-Signature": twilio_sign(BASE + "/sms", params)})
    assert resp.status_code == 200
    SENDERS["sms:" + params["MessageSid"]] = from_
    return "sms:" + params["MessageSid"]


def shown_to(twilio: FakeTwilioContent, address: str = WA) -> list[dict[str, Any]]:
    """What ``address`` was shown of each message with buttons, oldest first."""
    return [twilio.shown(r) for r in twilio.requests
            if r["data"].get("To") == address and r["data"].get("ContentSid") in twilio.contents]


def buttons_for(twilio: FakeTwilioContent, tag: str, to: str = WA) -> dict[str, Any]:
    """The last message to ``to`` whose buttons answer the question tagged ``tag`` (waited for)."""
    def found() -> dict[str, Any] | None:
        return next((m for m in reversed(shown_to(twilio, to)) if any(d.startswith(tag + "|") for _t, d in m["buttons"])),
                    None)
    return wait_for(found, 15, f"buttons for {tag}")


def answer(command: Command, lang: str = "el") -> str:
    """The answer a button offers for ``command`` in ``lang`` (the Greek player's, by default)."""
    reply = reply_of(command)
    return gettext(lang, reply) if reply == "DRAW" else reply


def tap(client: Any, svc: Any, message: dict[str, Any], reply: str, sid: str | None = None, to: str = WA) -> str:
    """``to`` taps the button of ``message`` whose answer is ``reply``; the message id, handled."""
    [(title, data)] = [(t, d) for t, d in message["buttons"] if (Tap.of(d) or Tap("", "")).reply == reply]
    mid = post_tap(client, to, title, data, message["kind"] == "twilio/list-picker", sid)
    wait_handled(svc, mid)
    return mid


def tag_now(svc: Any, gid: str, seat: int = 0) -> str:
    return question_tag(gid, question_key(view(load_game(svc, gid), seat)))


def play_tapping(client: Any, svc: Any, twilio: FakeTwilioContent, gid: str,
                 addresses: tuple[str, str] = (WA, SMS)) -> dict[str, int]:
    """Play ``gid`` out: a WhatsApp seat by tapping the chooser's answer among the buttons of the question the game asks
    it now ("More…" first when it is among the rest), an SMS seat by typing; the counts."""
    n = {"moves": 0, "wa_moves": 0, "taps": 0, "more": 0, "typed": 0}
    while (game := load_game(svc, gid)).phase != "over":
        seat, version = game.movers[0], game.version
        command, to = choose(game, seat), addresses[seat]
        if not to.startswith("whatsapp:") or isinstance(command, Exchange):  # (the exchange's many answers: typed)
            wait_handled(svc, post_sms(client, to, command_text(command))[1])
            n["typed"] += to.startswith("whatsapp:")
        else:
            reply = answer(command, svc.players.get(to)["lang"])
            message = buttons_for(twilio, tag_now(svc, gid, seat), to)
            if reply not in [(Tap.of(d) or Tap("", "")).reply for _t, d in message["buttons"]]:
                [more] = [Tap.of(d) for _t, d in message["buttons"] if Tap.of(d).reply.startswith("+")]  # type: ignore[union-attr]
                before = len(shown_to(twilio, to))
                tap(client, svc, message, more.reply, to=to)
                message = wait_for(lambda: shown_to(twilio, to)[before:], 15, "the rest")[-1]
                n["taps"], n["more"] = n["taps"] + 1, n["more"] + 1
            tap(client, svc, message, reply, to=to)
            n["taps"] += 1
            n["wa_moves"] += 1
        wait_for(lambda: svc.store.version(gid) > version, 15, f"move {n['moves']} applied")
        n["moves"] += 1
        assert n["moves"] < 3000
    return n


@pytest.mark.slow
def test_a_whole_game_every_whatsapp_prompt_with_answers_is_buttons_and_a_tap_plays_it(
        client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc, target=150)
    n = play_tapping(client, svc, twilio, gid)
    assert load_game(svc, gid).phase == "over"
    wait_outbox_settled(svc)
    assert n["wa_moves"] > 40 and n["taps"] == n["wa_moves"] + n["more"]
    assert not twilio.refused  # every message within WhatsApp's limits
    sent = [r for r in twilio.requests if r["data"].get("To") == WA]
    lists = [m for m in shown_to(twilio) if m["kind"] == "twilio/list-picker"]
    quick = [m for m in shown_to(twilio) if m["kind"] == "twilio/quick-reply"]
    assert lists and quick and all(m["button"] == CHOOSE == "Επιλογή" for m in lists)
    assert {tuple(t for t, _d in m["buttons"]) for m in quick} >= {("K", "D")}
    assert any(t.endswith(("♠", "♥", "♦", "♣")) for m in lists for t, _d in m["buttons"])  # cards, by suit sign
    # every entry to the WhatsApp player that offers answers went with them; the rest as text
    entries = {e["id"]: e for e in svc.store.outbox_entries(f"g:{gid}") if e["to"] == WA}
    for r in sent:
        oid = r["data"]["StatusCallback"].split("o=")[1].replace("%3A", ":").replace("%23", "#")
        entry = entries.get(oid)
        if entry is not None:
            assert ("ContentSid" in r["data"]) == bool(entry.get("buttons")), entry
            if "ContentSid" in r["data"] and len(entry["body"]) <= 1024:  # above the buttons: the prompt as ever
                assert twilio.shown(r)["body"] == entry["body"]
    # one content resource per shape, made once (POST /v1/Content), kept in Redis
    made = [r["data"]["friendly_name"] for r in twilio.requests if r["uri"] == CONTENT_URL]
    assert len(made) == len(set(made)) <= 15
    print(f"\nwhatsapp buttons: {n} messages to WA {len(sent)}, with buttons {len(shown_to(twilio))}, "
          f"contents made {len(made)}")


@pytest.mark.slow
def test_an_all_whatsapp_game_one_tap_a_move_and_its_messages_against_plain_text(
        client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    """Both players on WhatsApp, every move tapped: the taps a move, and the messages a hand against the same entries
    sent as plain text (each in parts of 1,600 characters), the figures of issue 43."""
    wa2 = "whatsapp:+15551230003"  # an English player
    resp, mid = post_sms(client, WA, f"NEW {wa2} TO 150")
    wait_handled(svc, mid)
    gid = game_id_for(mid)
    wait_handled(svc, post_sms(client, wa2, "YES")[1])  # the invitation came by SMS; answered from WhatsApp
    assert svc.store.meta(gid)["status"] == "active"
    n = play_tapping(client, svc, twilio, gid, (WA, wa2))
    wait_outbox_settled(svc)
    hands = load_game(svc, gid).hand_no
    assert n["typed"] == 0 and n["taps"] == n["wa_moves"] + n["more"] and n["wa_moves"] > 40
    sent = [r for r in twilio.requests if r["data"].get("To") in (WA, wa2)]
    texts: dict[str, list[str]] = {}  # outbox entry -> the texts of its messages (the body above buttons included)
    for r in sent:
        body = twilio.shown(r)["body"] if "ContentSid" in r["data"] else r["data"]["Body"]
        texts.setdefault(r["data"]["StatusCallback"].split("o=")[1], []).append(body)
    rests = [k for k, t in texts.items() if t[0] in (OTHERS, list_words("en")[2])]  # "More…" answered
    assert len(rests) == n["more"]
    as_text = sum(len(whatsapp_parts(" ".join(t))) for k, t in texts.items() if k not in rests)
    split = sum(1 for t in texts.values() if len(t) == 2 and len(" ".join(t)) <= 1600)  # text first, then buttons
    assert len(sent) == as_text + n["more"] + split and not twilio.refused
    paged = [len(t.reply.split()) for m in shown_to(twilio, WA) + shown_to(twilio, wa2) for _title, d in m["buttons"]
             if (t := Tap.of(d)) is not None and t.reply.startswith("+")]  # the answers behind each "More…"
    uniform = 1 + sum(rest / (9 + rest) for rest in paged) / n["wa_moves"]  # a tap a move, if answers were uniform
    print(f"\nall-WhatsApp game to 150 ({len(paged)} prompts with More…; taps a move with uniform answers "
          f"{uniform:.3f}): {hands} hands, {n['wa_moves']} moves, {n['taps']} taps "
          f"({n['taps'] / n['wa_moves']:.3f} a move, {n['more']} of them More…); messages to the players "
          f"{len(sent)} with buttons ({len(sent) / hands:.1f} a hand), {as_text} as plain text "
          f"({as_text / hands:.1f} a hand); inbound {n['taps']} (plain text: {n['wa_moves']})")


def test_a_stale_tap_is_refused_with_a_reply_and_a_tap_sent_twice_plays_once(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    gid = start_with_whatsapp_to_move(client, svc)
    game = load_game(svc, gid)
    message = buttons_for(twilio, tag_now(svc, gid))
    reply = answer(choose(game, 0))
    sid = new_sid()
    tap(client, svc, message, reply, sid)
    version = svc.store.version(gid)
    assert version > game.version
    resp_twice = post_tap(client, WA, "again", [d for t, d in message["buttons"]
                                                 if Tap.of(d).reply == reply][0], False, sid)  # type: ignore[union-attr]
    wait_handled(svc, resp_twice)
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == version  # Twilio's same message twice: played once
    before = len([r for r in twilio.requests if r["data"].get("To") == WA])
    other = [(Tap.of(d) or Tap("", "")).reply for _t, d in message["buttons"]]
    for again in dict.fromkeys([reply, other[-1]]):  # the same button again, and another of the answered question
        tap(client, svc, message, again)
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == version  # nothing played
    told = [r["data"].get("Body") for r in twilio.requests if r["data"].get("To") == WA][before:]
    assert told == [STALE] * len(dict.fromkeys([reply, other[-1]]))


def test_a_tapped_id_of_no_legal_answer_plays_nothing_and_says_so(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    gid = start_with_whatsapp_to_move(client, svc)
    tag = tag_now(svc, gid)
    version = svc.store.version(gid)
    before = len([r for r in twilio.requests if r["data"].get("To") == WA])
    for data in ("no tag and no answer", f"{tag}|+", f"{tag}|BID 99", f"{tag}|ZZ"):
        mid = post_tap(client, WA, "x", data, True)
        wait_handled(svc, mid)
    wait_outbox_settled(svc)
    print("DBG meta", {k: v for k, v in svc.store.meta(gid).items() if k.startswith(("plan", "pv"))})
    for e in svc.store.outbox_entries(f"p:{WA}") + svc.store.outbox_entries(f"g:{gid}")[-3:]:
        print("DBG", {k: e.get(k) for k in ("id", "kind", "body", "status", "error", "buttons")})
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == version
    told = [r for r in twilio.requests if r["data"].get("To") == WA][before:]
    # not one of ours; "More…" carrying nothing; a bid the engine refuses now: said; ZZ: the parser's own answer,
    # with the question's buttons again
    assert [r["data"].get("Body") for r in told[:3]] == [REFUSED, REFUSED, REFUSED] and len(told) == 4
    assert twilio.shown(told[3])["body"].startswith("Συγγνώμη, δεν κατάλαβα.")


def test_more_sends_the_rest_under_the_same_question_and_a_tap_on_it_bids(client, svc, celery_worker, twilio) -> None:  # type: ignore[no-untyped-def]
    gid = start_game(client, svc)
    while (game := load_game(svc, gid)).phase == "draw" or 0 not in game.movers:  # the draw, to the bid
        seat = 0 if 0 in game.movers else 1
        if seat == 1:
            wait_handled(svc, post_sms(client, SMS, command_text(choose(game, 1)))[1])
        else:
            tap(client, svc, buttons_for(twilio, tag_now(svc, gid)), answer(choose(game, 0)))
        assert game.phase in ("draw", "bid")
    assert game.phase == "bid"
    tag = tag_now(svc, gid)
    first = buttons_for(twilio, tag)
    assert first["kind"] == "twilio/list-picker" and len(first["buttons"]) == 10
    replies = [(Tap.of(d) or Tap("", "")).reply for _t, d in first["buttons"]]
    assert replies[:9] == [str(b) for b in range(9)] and replies[9] == "+9 10 11 12 13"
    assert first["buttons"][9][0] == MORE == "Περισσότερα…"
    before = len(shown_to(twilio))
    tap(client, svc, first, replies[9])
    [rest] = wait_for(lambda: shown_to(twilio)[before:], 15, "the rest")
    assert rest["body"] == OTHERS and rest["kind"] == "twilio/list-picker"
    assert [(Tap.of(d) or Tap("", "")).reply for _t, d in rest["buttons"]] == ["9", "10", "11", "12", "13"]
    assert all(d.startswith(tag + "|") for _t, d in rest["buttons"])
    version = svc.store.version(gid)
    tap(client, svc, rest, "10")
    wait_for(lambda: svc.store.version(gid) > version, 15, "the bid")
    assert load_game(svc, gid).bids[0] == 10
    wait_outbox_settled(svc)
    sent = len(twilio.requests)
    tap(client, svc, first, replies[9])  # "More…" of the question answered: stale, nothing sent but why
    wait_outbox_settled(svc)
    assert [r["data"].get("Body") for r in twilio.requests[sent:]] == [STALE]


def test_a_more_forged_on_telegram_is_refused_and_nothing_goes_to_whatsapp(client, svc, bot, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = test_telegram.start_game(client, svc)
    tag = tag_now(svc, gid, 0)  # the Telegram player's question now (they invited: seat 0)
    version = svc.store.version(gid)
    update = tap_update(test_telegram.CHAT, 1, f"{tag}|+AS KS")
    assert post_update(client, update).status_code == 200
    wait_for(lambda: bot.of_method("answerCallbackQuery"), 15, "the tap answered")
    wait_outbox_settled(svc)
    assert svc.store.version(gid) == version
    assert not [m for _i, m in svc.store.read_local(count=10_000) if m.get("channel") == "whatsapp"]
    assert [e["channel"] for e in svc.store.outbox_entries(f"p:{test_telegram.TG}")] == ["telegram"]


def test_what_goes_with_buttons() -> None:
    """Up to 19 answers (nine and "More…" with the rest), past ten only answers of one word; never 20 or more."""
    def pairs(replies: list[str]) -> list[list[str]]:
        return [[button_label(r), f"tagtagtagta|{r}"] for r in replies]
    cards = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]
    assert offered(pairs(cards[:1])) and offered(pairs(cards)) and offered(pairs([str(b) for b in range(14)]))
    assert not offered(pairs([str(b) for b in range(20)])) and not offered([])
    swaps = [f"SWAP {a} {b}" for a, b in zip(cards, cards[1:])]  # the exchange's answers: several words each
    assert offered(pairs(swaps[:10])) and not offered(pairs(swaps[:11]))
    shown = items(pairs(cards), "en")
    assert [t for t, _d, _desc in shown] == ["2♣", "3♣", "4♣", "5♣", "6♣", "7♣", "8♣", "9♣", "10♣", "More…"]
    assert shown[9][1] == "tagtagtagta|+JC QC KC AC" and shown[9][2] == "J♣ Q♣ K♣ A♣"


# -- the sender -------------------------------------------------------------------------------------------
BUTTONS = [["K", "tagtagtagta|K"], ["D", "tagtagtagta|D"]]


def test_contents_are_made_once_per_shape_and_kept_for_every_process(svc, twilio, app) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2):
        oid = queue_one(svc, {"channel": "whatsapp", "to": WA, "body": "Draw 1/13: 8S.", "kind": "update",
                              "buttons": BUTTONS, "lang": "en"})
        assert svc.inject(deliver)(oid) == "sent"
        app.config.pop("_SENDERS", None)  # another process: the content read from Redis, not made again
    made = [r for r in twilio.requests if r["uri"] == CONTENT_URL]
    assert len(made) == 1 and len(made[0]["data"]["types"]["twilio/quick-reply"]["actions"]) == 2
    first, second = [r["data"] for r in twilio.requests if r["data"].get("To") == WA]
    assert first["ContentSid"] == second["ContentSid"] and "Body" not in first
    assert json.loads(first["ContentVariables"]) == {"1": "Draw 1/13: 8S.", "2": "K", "3": "tagtagtagta|K",
                                                      "4": "D", "5": "tagtagtagta|D"}


def test_a_long_text_goes_first_and_its_end_above_the_buttons(svc, twilio) -> None:  # type: ignore[no-untyped-def]
    body = " ".join(["λέξη"] * 500)  # 2,499 characters: past the 1,024 a body above buttons may have
    oid = queue_one(svc, {"channel": "whatsapp", "to": WA, "body": body, "kind": "update", "buttons": BUTTONS,
                          "lang": "el"})
    assert svc.inject(deliver)(oid) == "sent"
    sent = [r for r in twilio.requests if r["data"].get("To") == WA]
    texts, last = [r["data"]["Body"] for r in sent[:-1]], twilio.shown(sent[-1])
    assert texts and all(len(t) <= 1600 for t in texts) and len(last["body"]) <= 1024
    assert " ".join([*texts, last["body"]]) == body and not twilio.refused


def test_buttons_off_or_the_content_api_refusing_leaves_the_text(svc, twilio, app) -> None:  # type: ignore[no-untyped-def]
    app.config["WHATSAPP_BUTTONS"] = False
    try:
        oid = queue_one(svc, {"channel": "whatsapp", "to": WA, "body": "K or D?", "kind": "update", "buttons": BUTTONS,
                              "lang": "en"})
        assert svc.inject(deliver)(oid) == "sent"
    finally:
        app.config["WHATSAPP_BUTTONS"] = True
    twilio.statuses = [400]  # the Content API refuses the shape: the text alone goes
    oid = queue_one(svc, {"channel": "whatsapp", "to": WA, "body": "K or D?", "kind": "update", "buttons": BUTTONS,
                          "lang": "en"})
    assert svc.inject(deliver)(oid) == "sent"
    bodies = [r["data"].get("Body") for r in twilio.requests if r["data"].get("To") == WA]
    assert bodies == ["K or D?", "K or D?"]

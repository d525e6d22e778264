"""WhatsApp rendering: the SMS texts in full Unicode (no GSM-7 folding: Greek in lower case with accents), one
message per reply up to Twilio's body limit, and a WhatsApp address shown and spoken to as its number is."""

from __future__ import annotations

import random
import unicodedata

import pytest

from chat import render
from chat.gsm import is_gsm7
from chat.languages import LANGUAGES, language_for_address
from chat.names import display_name
from chat.render import WHATSAPP_BODY_MAX, finish_sms, gettext, whatsapp_parts
from chat.simulate import play_game
from service.addresses import SMS, WHATSAPP, Address, BadAddress, address_kind, parse_address, phone_number

GREEK_LOWER = {chr(c) for c in range(0x3B1, 0x3CA)}  # α..ω and ς
GREEK_ACCENTED = set("άέήίόύώΆΈΉΊΌΎΏ")


def _game(lang: str, channel: str):
    return play_game(21, langs=(lang, lang), names=("Ann", "Bob"), channel=channel, max_hands=2)


def test_greek_whatsapp_is_in_lower_case_with_accents():
    r = render("welcome", "el", "whatsapp")
    assert set(r.text) & GREEK_LOWER and set(r.text) & GREEK_ACCENTED, r.text
    assert gettext("el", "slowspades: Spades for two, by text, at your pace.") in r.text  # the catalogue's own words
    sms = render("welcome", "el", "sms")
    assert not set(sms.text) & (GREEK_LOWER | GREEK_ACCENTED)  # the same message by SMS: GSM-7 capitals
    assert finish_sms(r.text, "el") == sms.text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_whatsapp_game_says_what_the_sms_game_says_without_folding(lang):
    """Message for message, a game by WhatsApp is the same game by SMS before the GSM-7 pass: nothing is folded,
    each reply is one message (no segments), and the replies offered are written as the text writes them."""
    sms, wa = _game(lang, "sms"), _game(lang, "whatsapp")
    assert len(wa.messages) == len(sms.messages) > 50
    unfolded = 0
    for s, w in zip(sms.messages, wa.messages):
        assert w.rendered.channel == "whatsapp" and w.rendered.parts == (w.rendered.text,)
        assert len(w.rendered.text) <= WHATSAPP_BODY_MAX
        assert finish_sms(w.rendered.text, lang) == s.rendered.text
        assert [finish_sms(r, lang) for r in w.rendered.replies] == list(s.rendered.replies)
        unfolded += w.rendered.text != s.rendered.text
    if lang == "el":
        texts = "".join(m.rendered.text for m in wa.messages)
        assert set(texts) & GREEK_LOWER and set(texts) & GREEK_ACCENTED
        assert unfolded == len(wa.messages)  # every Greek message keeps its own letters
    if lang == "en":
        assert unfolded == 0 and all(is_gsm7(m.rendered.text) for m in wa.messages)


@pytest.mark.parametrize("lang", ("en", "el"))
def test_a_reply_is_one_message_however_many_sms_segments(lang):
    rules = render("rules", lang, "whatsapp", url="https://x.example/rules", target=500)
    assert render("rules", lang, "sms", url="https://x.example/rules", target=500).segments >= 2
    assert rules.parts == (rules.text,)


def test_nothing_is_gsm_folded():
    text = render("invite", "fr", "whatsapp", opp="Zoë Œuvrê", target=500).text
    assert "Zoë Œuvrê" in text and not is_gsm7(text)
    assert "Zoe OEuvre" in render("invite", "fr", "sms", opp="Zoë Œuvrê", target=500).text
    assert render("invite", "fr", "whatsapp", opp="Ann", target=500).text == render(
        "invite", "fr", "sms", opp="Ann", target=500).text  # "by text", as the SMS says


def test_past_the_body_limit_a_text_is_split_at_spaces():
    rng = random.Random(3)
    words = ["".join(rng.choice("αβγδεζηθ") for _ in range(rng.randint(1, 12))) for _ in range(700)]
    text = " ".join(words)
    parts = whatsapp_parts(text)
    assert len(parts) >= 3 and all(0 < len(p) <= WHATSAPP_BODY_MAX for p in parts)
    assert " ".join(parts) == text
    assert whatsapp_parts("x" * 1600) == ("x" * 1600,)
    assert whatsapp_parts("x" * 1601) == ("x" * 1600, "x")
    assert whatsapp_parts("") == ("",)


def test_a_whatsapp_address_is_shown_and_spoken_to_as_its_number():
    # its number, marked as WhatsApp's: the same number by SMS is another player (issue 45 case 4: GAMES showed two
    # opponents alike)
    assert display_name("whatsapp:+306912345678", "whatsapp") == "WA +30..5678"
    assert display_name("whatsapp:+306912345678", "sms") == "WA +30..5678"
    assert display_name("+306912345678", "sms") == "+30..5678"
    assert language_for_address("whatsapp:+306912345678") == "el"
    assert language_for_address("whatsapp:+6281234567890") == "id"
    assert unicodedata.is_normalized("NFC", render("help", "el", "whatsapp").text)


def test_whatsapp_addresses():
    assert parse_address("whatsapp:+30 691 234 5678") == Address(WHATSAPP, "whatsapp:+306912345678")
    assert parse_address("WhatsApp:+15551230001") == Address(WHATSAPP, "whatsapp:+15551230001")
    assert parse_address("+15551230001") == Address(SMS, "+15551230001")
    assert address_kind("whatsapp:+15551230001") == WHATSAPP and address_kind("+15551230001") == SMS
    assert address_kind("a@b.example") == "email"
    assert phone_number("whatsapp:+15551230001") == "+15551230001"
    for bad in ("whatsapp:", "whatsapp:hello", "whatsapp:a@b.example"):
        with pytest.raises(BadAddress):
            parse_address(bad)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_replies_a_whatsapp_message_offers_are_the_legal_moves(lang):
    from chat.parse import parse

    checked = 0
    for m in _game(lang, "whatsapp").messages:
        v = m.view
        if v.to_move != m.seat or v.phase == "over" or not m.rendered.replies:
            continue
        assert {parse(r, lang).command(m.seat, v.phase) for r in m.rendered.replies} == set(v.legal), m.rendered.text
        checked += 1
    assert checked > 20

"""What a first-time player reads (issue 14): each case seen, as the player would notice it, in every language."""

from __future__ import annotations

import re

import pytest

from chat import explain_error, parse, render
from chat.commands import rules_page_context
from chat.gsm import is_gsm7, segments
from chat.languages import LANGUAGES
from chat.messages import swap_hint
from chat.names import check_name, display_name
from chat.render import environment
from chat.simulate import play_game
from spades import bots
from spades.cards import Card

NAMES = ("Ana", "Bob")


def _bot_chooser(seed: int, dn_seat: int | None = None):
    strategies = {0: bots.get("basic", seed), 1: bots.get("basic", seed + 1)}

    def choose(view, msg, rng):
        if dn_seat is not None and view.double_nil_offer and view.seat == dn_seat:
            return "DN"
        cmd = strategies[view.seat].choose(view)
        for reply in msg.replies:
            if any(parse(reply, lang).command(view.seat, view.phase) == cmd for lang in LANGUAGES):
                return reply
        raise AssertionError(f"{cmd} not offered by {msg.text!r}")
    return choose


# -- case 1: an opponent is named by a chosen name, or by a form that cannot be another number ----------------------
@pytest.mark.parametrize("address,shown", [
    ("+306912345678", "+30..5678"), ("+4791234567", "+47..4567"), ("+15551230001", "+1..0001"),
    ("dave@example.com", "dave@.."), ("Konstantinos-Alexandros", "Konstantinos"), ("Ana", "Ana"),
])
def test_case1_sms_names_an_address_by_a_short_form_never_by_a_cut_number(address, shown):
    got = display_name(address, "sms")
    assert got == shown and is_gsm7(got) and len(got) <= 12
    digits = re.sub(r"\D", "", address)
    if digits:  # the old form, +30691234567, was the number cut: a different, valid-looking number
        assert not re.fullmatch(r"\+?\d{7,}", got)


@pytest.mark.parametrize("lang,text,name", [
    ("en", "NAME Ana", "Ana"), ("en", "name:  Ana  Maria", "Ana Maria"), ("fr", "NOM Zoé", "Zoé"),
    ("nb", "NAVN Øyvind", "Øyvind"), ("id", "NAMA Budi", "Budi"), ("el", "ΟΝΟΜΑ Νίκος", "NIKOΣ"),
])
def test_case1_name_intent(lang, text, name):
    said = parse(text, lang)
    assert said.kind == "name" and said.arg == name and is_gsm7(said.arg)


@pytest.mark.parametrize("text", ["NAME +4791234567", "NAME dave@example.com", "NAME Konstantinos-Alexandros",
                                  "NAME Зоя", "NAME 0691234567", "NAME"])
def test_case1_a_name_that_is_too_long_not_gsm7_or_an_address_is_refused_with_what_a_name_is(text):
    said = parse(text, "en")
    assert said.is_unknown and said.reason in ("bad_name", "missing_arg")
    reply = explain_error(said, None, "en", "sms").text
    assert reply == "A name is 1 to 12 letters or digits (spaces, hyphens, dots and apostrophes too), not a number, an address or Bot: NAME Ana."
    assert check_name(text[5:]) is None


# -- case 2: the double nil swap hint names the cards most likely to win a trick ------------------------------------
def test_case2_swap_hint_is_the_most_dangerous_cards():
    hand = [Card.from_code(c) for c in "AC KC KD 6D 3D 2S 4H 5H 7H 8C 9C 3C 2D".split()]
    assert swap_hint(hand) == ["AC", "KC", "KD"]
    hand = [Card.from_code(c) for c in "QS 10S 9S 8S 7S JH 6H 5H QC 10C 9C 5C KD".split()]
    assert swap_hint(hand) == ["QS", "10S", "KD"]  # spades trump: the high ones first


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case2_the_exchange_prompt_suggests_the_dangerous_cards_not_the_lowest(lang):
    t = play_game(11, langs=(lang, lang), names=NAMES, chooser=_bot_chooser(11, dn_seat=0), max_hands=1)
    prompts = [m for m in t.messages if m.view.phase == "exchange" and m.view.to_move == m.seat and m.kind == "turn"]
    assert prompts
    for m in prompts:
        hint = swap_hint(m.view.hand)
        assert len(hint) == 3
        offered = [r.split()[1:] for r in m.rendered.replies]
        assert hint in offered  # the suggestion is a legal reply
        assert re.search(rf" {' '.join(hint)}[ ,]", m.rendered.text), m.rendered.text
        lowest = sorted(m.view.hand, key=lambda c: c.rank)[:3]
        assert not any(c.code in hint for c in lowest if c.suit.letter != "S")


# -- case 6: a negative score never shows a doubled minus ------------------------------------------------------------
DOUBLED = re.compile(r"-\s*-\s*\d")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case6_scores_never_show_a_doubled_minus(lang):
    texts = []
    for channel in ("sms", "email"):
        texts.append(render("game_summary", lang, channel, family="lifecycle", label="", won=False, me=-100,
                            them=-200, hands=9, reason="score", opp="Ana").text)
        texts.append(render("games", lang, channel, family="lifecycle", games=[
            {"label": "#1", "opp": "Ana", "status": "active", "my_turn": True, "me": -60, "them": -146,
             "paused": False}]).text)
        texts.append(render("score", lang, channel, label="", opp="Ana", hand_no=3, phase="bid", target=500,
                            me={"score": -100, "bags": 1, "tricks": 0, "bid": None, "dn": False},
                            them={"score": -200, "bags": 2, "tricks": 0, "bid": None, "dn": False}).text)
    t = play_game(4, langs=(lang, lang), names=NAMES, max_hands=4)
    texts += [m.rendered.text for m in t.messages]
    for text in texts:
        assert not DOUBLED.search(text), text
    assert any("-100" in x and "-200" in x for x in texts[:1])


# -- case 7: plural forms from the catalogues, and a hand's breakdown that adds up ------------------------------------
def _line(bid: int, tricks: int, bags: int, carried: int = 0, penalty: int = 0) -> dict:
    points = 10 * bid + bags
    return {"contract": "bid", "bid": bid, "tricks": tricks, "made": True, "bid_points": points, "set": False,
            "bags": bags, "bags_carried": carried, "nil": False, "nil_points": 0, "sandbag_penalty": penalty,
            "hand_total": points + penalty, "game_total": 54}


PLURALS = {  # one trick / one bag, then two
    "en": (("took 1", "(1 bag)"), ("took 2", "(2 bags)")),
    "fr": (("1 pli", "(1 sac)"), ("2 plis", "(2 sacs)")),
    "nb": (("tok 1", "(1 overstikk)"), ("tok 2", "(2 overstikk)")),
    "id": (("dapat 1", "(1 kelebihan)"), ("dapat 2", "(2 kelebihan)")),
    "el": (("1 MΠAZA", "(1 EΠIΠΛEON)"), ("2 MΠAZEΣ", "(2 EΠIΠΛEON)")),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case7_plural_forms_in_every_language(lang):
    for (tricks, bags), (took, bag) in zip(((1, 1), (2, 2)), PLURALS[lang]):
        text = render("hand_summary", lang, "sms", family="lifecycle", label="", hand=3, opp="Ana",
                      me=_line(0 if tricks == 1 else 0, tricks, bags), them=_line(5, 5, 0), next_first="me").text
        assert took in text and bag in text, text
    assert "1 bags" not in text and "1 sacs" not in text and "1 plis" not in text


def test_case7_the_breakdown_adds_up():
    text = render("hand_summary", "en", "sms", family="lifecycle", label="", hand=3, opp="Ana",
                  me=_line(5, 9, 4), them=_line(4, 4, 0), next_first="me").text
    assert "You: bid 5, took 9: +54 (4 bags). Ana: bid 4, took 4: +40." in text
    text = render("hand_summary", "en", "sms", family="lifecycle", label="", hand=3, opp="Ana",
                  me=_line(5, 9, 4, penalty=-100), them=_line(4, 4, 0), next_first="me").text
    assert "bid 5, took 9: +54 (4 bags), 10 bags -100 = -46" in text
    # and in every hand result of whole games: points = 10 x bid + bags; bags = tricks - bid
    # (an SMS hand result reads won/bid points (bags), "8/5 +53 (3 bags)": issue 23 case 16)
    pat = re.compile(r"(?:you|v) (\d+)/(\d+) ([+-]\d+)(?: \((\d+) bags?\))?")
    checked = 0
    for seed in (5, 6):
        for m in play_game(seed, names=NAMES, chooser=_bot_chooser(seed), max_hands=5).messages:
            for took, bid, points, bags in pat.findall(m.rendered.text):
                bid, took, points, bags = int(bid), int(took), int(points), int(bags or 0)
                assert points == (10 * bid + bags if took >= bid else -10 * bid), m.rendered.text
                assert bags == (took - bid if took >= bid else 0), m.rendered.text
                checked += 1
    assert checked > 10


# -- case 4: first contact --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("text", ["hi", "Hello", "hey there"])
def test_case4_a_greeting_from_a_new_number_gets_the_welcome_with_three_ways_to_start(lang, text):
    said = parse(text, lang)
    assert said.reason == "greeting"
    reply = explain_error(said, None, lang, "sms")
    assert reply.text == render("welcome", lang, "sms").text and reply.segments <= 2 and is_gsm7(reply.text)
    starts = _new_examples(reply.text, lang)
    assert {parse(s, lang).arg for s in starts} == {"+" + re.sub(r"\D", "", starts[0]), "ana@example.com", "BOT"}


def _new_examples(text: str, lang: str) -> list[str]:
    word = {"en": "NEW", "fr": "NOUVELLE", "nb": "NY", "id": "BARU", "el": "NEO"}[lang]
    found = re.findall(rf"\b{word} (\+\d+|ana@example\.com|BOT)", text)
    assert len(found) == 3, text
    return [f"{word} {x}" for x in found]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("text", ["NEW 12", "NEW Ana"])  # NEW alone: a link for a friend (issue 43)
def test_case4_a_new_mistake_says_what_new_needs(lang, text):
    word = {"en": "NEW", "fr": "NOUVELLE", "nb": "NY", "id": "BARU", "el": "ΝΕΟ"}[lang]
    said = parse(text.replace("NEW", word), lang)
    assert said.reason in ("bad_address", "missing_arg")
    reply = explain_error(said, None, lang, "sms").text
    assert "Something is missing" not in reply and is_gsm7(reply)
    for example in _new_examples(reply, lang):
        assert parse(example, lang).kind == "new", example
    if text == "NEW 12":
        assert reply.startswith({"el": "TO 12"}.get(lang, "12"))


# -- case 8: the first message a player gets says who they play, to what score, who starts --------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_case8_the_first_message_of_each_player_says_who_what_score_who_starts(lang):
    t = play_game(3, langs=(lang, lang), names=NAMES, max_hands=1)
    starter = t.messages[0].seat
    for seat in (0, 1):
        first = next(m for m in t.messages if m.seat == seat)
        assert first.view.double_nil_offer  # the old text began "Hand 1. Double nil"
        expected = render("game_started", lang, "sms", label="", opp=NAMES[1 - seat],
                          first="me" if seat == starter else "opp", target=500).text
        head = expected.rsplit(".", 2)[0]  # "New game vs Bob, first to 500. You draw first" (without HELP for help)
        assert first.rendered.text.startswith(head), (first.rendered.text, head)
        assert first.rendered.segments <= 2
        later = [m for m in t.messages if m.seat == seat and m is not first]
        assert later and not any(head in m.rendered.text for m in later)


# -- case 9: one message ends a hand: last trick, the hand's score, the totals, the next hand's first question ---------
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_case9_one_message_at_the_end_of_a_hand(lang):
    t = play_game(7, langs=(lang, lang), names=NAMES, chooser=_bot_chooser(7), max_hands=3)
    words = {"en": ("won", "Hand 1:", "Score:", "Double nil? DN"),
             "fr": ("Pli pour", "Manche 1 : toi", "Score :", "Double nul ? DN")}[lang]
    ends = [m for m in t.messages if words[1] in m.rendered.text]
    assert len(ends) == 2  # one for each player, no separate summary
    asked = [m for m in ends if m.view.to_move == m.seat]
    assert len(asked) == 1
    text = asked[0].rendered.text
    positions = [text.find(w) for w in words]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), text
    assert asked[0].rendered.replies  # the question of the next hand, answerable from this message


# -- case 10: RULES links the rules page of the player's own language, in its own case --------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_case10_rules_reply_links_the_players_language(lang):
    text = render("rules", lang, "sms", url="https://slowspades.example/rules", target=500).text
    assert text.endswith(f"https://slowspades.example/rules/{lang}"), text  # el: not HTTPS://.../RULES (a 404)


# -- case 11: smaller texts -----------------------------------------------------------------------------------------
def test_case11_auto_on_says_what_auto_does():
    text = render("setting", "en", "sms", setting="auto", value=True).text
    assert "forced moves" not in text and "computer plays for you" in text and "reminder" in text


@pytest.mark.parametrize("family", ["", "lifecycle"])
def test_case11_an_email_player_is_not_invited_by_text(family):
    ctx = {"opp": "Ana", "target": 500, "days": 3, "bags_rule": False, "floor": None}
    email = render("invite", "en", "email", family=family, **ctx).text
    sms = render("invite", "en", "sms", family=family, **ctx).text
    assert "by text" not in email and "by email" in email and "by text" in sms


def test_case11_greek_help_and_french_nil():
    assert "BOHΘEIA ΓIA BOHΘEIA" not in explain_error(parse("ZZZ", "el"), None, "el", "sms").text
    bids = [m.rendered.text for m in play_game(2, langs=("fr", "fr"), names=NAMES, max_hands=1).messages
            if m.view.phase == "bid" and m.view.to_move == m.seat]
    assert bids and all("(0 = nul)" in b and "(0 = nil)" not in b for b in bids)
    assert parse("nul", "fr").kind == "bid" and parse("nul", "fr").number == 0  # the word the prompt names parses


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case4_anything_else_from_a_player_without_a_game_says_how_to_start(lang):
    for text in ("what is this", "QQ", ""):
        reply = explain_error(parse(text, lang), None, lang, "sms")
        assert reply.segments <= 2 and is_gsm7(reply.text)
        for example in _new_examples(reply.text, lang):
            assert parse(example, lang).kind == "new", (reply.text, example)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case1_name_set_and_taken(lang):
    said = parse(f"{render('name_set', lang, 'sms', chosen='x', taken=True).text.split()[-2]} Ana", lang)
    assert said.kind == "name" and said.arg == "Ana"  # the NAME word the refusal suggests parses
    done = render("name_set", lang, "sms", chosen="Ana", taken=False)
    assert "ANA" in done.text.upper() and done.segments == 1 and is_gsm7(done.text)


def test_case10_an_operators_own_rules_url_is_linked_as_it_is():
    text = render("rules", "el", "sms", url="https://example.org/Spades-Rules.html", target=500).text
    assert text.endswith("https://example.org/Spades-Rules.html")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case10_the_rules_page_examples_are_messages_the_parser_takes(lang):
    page = environment(lang).get_template("web/rules.html.j2").render(lang=lang, target=500, languages=[],
                                                                            **rules_page_context(lang))
    word = {"en": "NEW", "fr": "NOUVELLE", "nb": "NY", "id": "BARU", "el": "ΝΕΟ"}[lang]
    example = re.search(rf"{word} (\+\d+) BAGS FLOOR", page)
    assert example, page
    said = parse(example.group(0), lang)
    assert said.kind == "new" and said.rules.failed_nil_bags and said.rules.floor == -200  # RULES D6, D8
    swap = re.findall(r"(\w+) AC KC KD\.", page)[-1]  # the reply the example ends with
    assert parse(f"{swap} AC KC KD", lang).kind == "exchange"  # RULES 4: the swap example
    # "What to send" shows the same number as the house-rules example, the language's own (issue 28: it was the
    # Norwegian +4791234567 in every language)
    assert re.findall(rf"<code>{word} (\+\d+)</code>", page) == [example.group(1)], page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case3_the_reply_that_tells_the_discarded_card_starts_with_the_games_number(lang):
    """The reply to a KEEP that passed the turn (issue 14 case 3) is about one game of several: like every message
    it begins with that game's ``#N``, not with the news (``You kept ... 8H. #12 Konstantinos to move.``)."""
    from tests.chat.test_chat_conversation import _waiting_contexts

    [ctx] = _waiting_contexts(lang)["move_news"]
    text = render("move_news", lang, "sms", **{k: v for k, v in ctx.items() if k != "channel"}).text
    assert text.startswith("#12 ") and text.count("#12") == 1, text
    assert ctx["discarded"] in text


WEB_WORD = {"en": "WEB", "fr": "PAGE", "nb": "SIDE", "id": "HALAMAN", "el": "ΣEΛIΔA"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_beyond_help_names_the_word_of_the_game_page_and_it_parses(lang):
    """An SMS player learns of their game page from HELP (issue 14, "Beyond"); English HELP stays one segment."""
    text = render("help", lang, "sms").text
    assert f" {WEB_WORD[lang]}," in text, text
    assert parse(WEB_WORD[lang], lang).kind == "web"
    assert lang != "en" or segments(text) == 1


@pytest.mark.parametrize("lang", LANGUAGES)
def test_case3_a_keep_followed_by_another_draw_names_the_card_it_discarded(lang):
    """RULES D2: who keeps the first card sees the second as they discard it. When the player draws again at once
    (the simultaneous draw), the next draw prompt is the reply to the KEEP: it names that card (issue 14 case 3)."""
    from chat.messages import prompt
    from spades.commands import DeclineDoubleNil, Keep
    from spades.dealer import Dealer
    from spades.events import HouseRules, redact
    from spades.game import decide, fold, legal_moves, new_game, view

    dealer = Dealer(seed=3)
    events = list(new_game("g", HouseRules(), dealer))
    checked = 0
    for _ in range(40):
        game = fold(events)
        if game.phase != "draw":
            break
        seat = game.movers[0]
        legal = legal_moves(game, seat)
        command = DeclineDoubleNil(seat) if any(isinstance(c, DeclineDoubleNil) for c in legal) else Keep(seat)
        new = decide(game, command, dealer)
        events += new
        after = fold(events)
        if isinstance(command, Keep) and after.may_move(seat) and after.phase == "draw":
            text = prompt(view(after, seat), lang, "sms", [redact(e, seat) for e in new]).text
            tossed = after.discarded[seat][-1].code
            assert tossed in text, text
            assert text.index(tossed) < text.index(after.deck[after.draw_position(seat)].code), text
            checked += 1
    assert checked >= 3

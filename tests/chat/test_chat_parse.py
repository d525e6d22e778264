"""The parser over a table of several hundred inputs: commands, cards, each language's words, garbage."""

from __future__ import annotations

import random
import re

import pytest

from chat import explain_error
from chat.command_words import OPT_OUT_WORDS
from chat.parse import parse
from spades.cards import DECK, Card
from spades.commands import Bid, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Forfeit, Keep, Play

C = Card.from_code
LANGS = ("en", "fr", "nb", "id", "el")

# (text, lang, kind, extra checks)
TABLE: list[tuple[str, str, str, dict]] = [
    ("K", "en", "keep", {}), ("k", "fr", "keep", {}), ("KEEP", "nb", "keep", {}), (" keep! ", "en", "keep", {}),
    ("D", "en", "discard", {}), ("discard", "id", "discard", {}), ("Discard.", "el", "discard", {}),
    ("DN", "en", "double_nil", {}), ("double nil", "en", "double_nil", {}), ("BLIND NIL", "en", "double_nil", {}),
    ("DRAW", "en", "draw", {}), ("draw", "el", "draw", {}),
    ("garde", "fr", "keep", {}), ("Je garde", "fr", "keep", {}), ("jette", "fr", "discard", {}), ("défausse", "fr", "discard", {}),
    ("tire", "fr", "draw", {}), ("pioche", "fr", "draw", {}), ("double nul", "fr", "double_nil", {}),
    ("behold", "nb", "keep", {}), ("kast", "nb", "discard", {}), ("trekk", "nb", "draw", {}), ("dobbel null", "nb", "double_nil", {}),
    ("simpan", "id", "keep", {}), ("buang", "id", "discard", {}), ("tarik", "id", "draw", {}), ("nil ganda", "id", "double_nil", {}),
    ("κρατώ", "el", "keep", {}), ("ΚΡΑΤΩ", "el", "keep", {}), ("πέτα", "el", "discard", {}), ("τράβα", "el", "draw", {}),
    ("ΤΡΑΒΑ", "el", "draw", {}), ("TPABA", "el", "draw", {}), ("διπλό μηδέν", "el", "double_nil", {}),
    ("SWAP 2C 7D", "en", "exchange", {"cards": (C("2C"), C("7D"))}), ("swap none", "en", "exchange", {"cards": ()}),
    ("SWAP", "en", "exchange", {"cards": ()}), ("swap 0", "en", "exchange", {"cards": ()}),
    ("swap 2c,7d,as", "en", "exchange", {"cards": (C("2C"), C("7D"), C("AS"))}),
    ("2C 7D", "en", "exchange", {"cards": (C("2C"), C("7D"))}), ("2c7d", "en", "exchange", {"cards": (C("2C"), C("7D"))}),
    ("echange 2C", "fr", "exchange", {"cards": (C("2C"),)}), ("échange rien", "fr", "exchange", {"cards": ()}),
    ("bytt ingen", "nb", "exchange", {"cards": ()}), ("tukar kosong", "id", "exchange", {"cards": ()}),
    ("ΑΛΛΑΓΗ ΚΑΜΙΑ", "el", "exchange", {"cards": ()}), ("αλλαγή 2C 7D", "el", "exchange", {"cards": (C("2C"), C("7D"))}),
    ("BID 4", "en", "bid", {"number": 4}), ("bid 13", "en", "bid", {"number": 13}), ("4", "en", "bid", {"number": 4}),
    ("0", "en", "bid", {"number": 0}), ("NIL", "en", "bid", {"number": 0}), ("bid nil", "en", "bid", {"number": 0}),
    ("bid 14", "en", "bid", {"number": 14}), ("12", "fr", "bid", {"number": 12}), ("annonce 3", "fr", "bid", {"number": 3}),
    ("nul", "fr", "bid", {"number": 0}), ("meld 5", "nb", "bid", {"number": 5}), ("null", "nb", "bid", {"number": 0}),
    ("tawar 6", "id", "bid", {"number": 6}), ("nol", "id", "bid", {"number": 0}), ("ΜΗΔΕΝ", "el", "bid", {"number": 0}),
    ("δηλώνω 7", "el", "bid", {"number": 7}),
    ("QH", "en", "play", {"card": C("QH")}), ("qh", "en", "play", {"card": C("QH")}), ("10s", "en", "play", {"card": C("10S")}),
    ("TS", "en", "play", {"card": C("10S")}), ("♥Q", "en", "play", {"card": C("QH")}), ("Q♥️", "en", "play", {"card": C("QH")}),
    ("Q ♥", "en", "play", {"card": C("QH")}), ("Q H", "en", "play", {"card": C("QH")}), ("h q", "en", "play", {"card": C("QH")}),
    ("A♠", "en", "play", {"card": C("AS")}), ("♣10", "en", "play", {"card": C("10C")}), ("♦️2", "en", "play", {"card": C("2D")}),
    ("play 4c", "en", "play", {"card": C("4C")}), ("queen of hearts", "en", "play", {"card": C("QH")}),
    ("ace of spades", "en", "play", {"card": C("AS")}), ("dame de coeur", "fr", "play", {"card": C("QH")}),
    ("as de pique", "fr", "play", {"card": C("AS")}), ("joue 9P", "fr", "play", {"card": C("9S")}), ("10T", "fr", "play", {"card": C("10C")}),
    ("QP", "fr", "play", {"card": C("QS")}), ("QC", "fr", "play", {"card": C("QC")}), ("QK", "nb", "play", {"card": C("QC")}),
    ("9R", "nb", "play", {"card": C("9D")}), ("KK", "nb", "play", {"card": C("KC")}), ("ess spar", "nb", "play", {"card": C("AS")}),
    ("9W", "id", "play", {"card": C("9D")}), ("main QH", "id", "play", {"card": C("QH")}), ("5K", "id", "play", {"card": C("5C")}),
    ("5Σ", "el", "play", {"card": C("5C")}), ("AM", "el", "play", {"card": C("AS")}), ("ΚΗ", "el", "play", {"card": C("KH")}),
    ("#3 QH", "en", "play", {"card": C("QH"), "game": 3}), ("#12: k", "en", "keep", {"game": 12}), ("# 2 bid 3", "en", "bid", {"game": 2, "number": 3}),
    ("#7", "en", "hand", {"game": 7}),
    ("HAND", "en", "hand", {}), ("cards", "en", "hand", {}), ("main", "fr", "hand", {}), ("hånd", "nb", "hand", {}), ("kartu", "id", "hand", {}),
    ("ΧΕΡΙ", "el", "hand", {}), ("SCORE", "en", "score", {}), ("poeng", "nb", "score", {}), ("skor", "id", "score", {}), ("σκορ", "el", "score", {}),
    ("RULES", "en", "rules", {}), ("règles", "fr", "rules", {}), ("regler", "nb", "rules", {}), ("aturan", "id", "rules", {}), ("κανόνες", "el", "rules", {}),
    ("RESIGN", "en", "resign", {}), ("give up", "en", "resign", {}), ("abandon", "fr", "resign", {}), ("J'abandonne", "fr", "resign", {}),
    ("gi opp", "nb", "resign", {}), ("menyerah", "id", "resign", {}), ("παραίτηση", "el", "resign", {}),
    ("LANG fr", "en", "lang", {"arg": "fr"}), ("lang NO", "en", "lang", {"arg": "nb"}), ("LANG gr", "en", "lang", {"arg": "el"}),
    ("langue anglais", "fr", "lang", {"arg": "en"}), ("språk norsk", "nb", "lang", {"arg": "nb"}), ("bahasa indonesia", "id", "lang", {"arg": "id"}),
    ("γλώσσα ελληνικά", "el", "lang", {"arg": "el"}), ("LANG xx", "en", "unknown", {"reason": "bad_lang"}), ("LANG", "en", "unknown", {"reason": "missing_arg"}),
    ("YES", "en", "yes", {}), ("y", "en", "yes", {}), ("ok", "en", "yes", {}), ("oui", "fr", "yes", {}), ("ja", "nb", "yes", {}), ("ya", "id", "yes", {}),
    ("ναι", "el", "yes", {}), ("NO", "en", "no", {}), ("non", "fr", "no", {}), ("nei", "nb", "no", {}), ("tidak", "id", "no", {}), ("όχι", "el", "no", {}),
    ("GAMES", "en", "games", {}), ("parties", "fr", "games", {}), ("partier", "nb", "games", {}), ("permainan", "id", "games", {}),
    ("REMIND ON", "en", "remind", {"flag": True}), ("remind off", "en", "remind", {"flag": False}), ("rappel non", "fr", "remind", {"flag": False}),
    ("påminnelse på", "nb", "remind", {"flag": True}), ("REMIND", "en", "unknown", {"reason": "missing_arg"}),
    ("PAUSE 3", "en", "pause", {"number": 3}), ("pause", "en", "pause", {"number": None}), ("pause 9999", "en", "unknown", {"reason": "bad_number"}),
    ("TZ Europe/Oslo", "en", "tz", {"arg": "Europe/Oslo"}), ("tz", "en", "unknown", {"reason": "missing_arg"}),
    ("AUTO ON", "en", "auto", {"flag": True}), ("auto off", "en", "auto", {"flag": False}),
    ("DN OFF", "en", "dn_setting", {"flag": False}), ("dn on", "en", "dn_setting", {"flag": True}), ("DRAW ON", "en", "dn_setting", {"flag": False}),
    ("CLAIM", "en", "claim", {}), ("REMATCH", "en", "rematch", {}), ("revanche", "fr", "rematch", {}), ("omkamp", "nb", "rematch", {}),
    ("main lagi", "id", "rematch", {}), ("ρεβάνς", "el", "rematch", {}),
    ("NEW BOT", "en", "new", {"arg": "BOT"}), ("new +33 6 12 34 56 78", "en", "new", {"arg": "+33612345678"}),
    ("NEW +4791234567 bags floor", "en", "new", {"arg": "+4791234567"}), ("new ann@example.com to 300", "en", "new", {"arg": "ann@example.com"}),
    ("nouvelle partie", "fr", "unknown", {}), ("NEW", "en", "new", {"arg": ""}), ("NEW TO 300 BAGS", "en", "new", {"arg": ""}), ("new bot to 5", "en", "unknown", {"reason": "bad_number"}),
    ("HELP", "en", "help", {"carrier": True}), ("help me", "fr", "help", {"carrier": True}), ("aide", "fr", "help", {"carrier": False}),
    ("hjelp", "nb", "help", {}), ("bantuan", "id", "help", {}), ("βοήθεια", "el", "help", {}), ("INFO", "en", "help", {"carrier": True}),
    ("START", "en", "start", {"carrier": True}), ("start", "el", "start", {}), ("UNSTOP", "en", "start", {}),
    ("arrêt", "fr", "stop", {"carrier": False}), ("stopp", "nb", "stop", {"carrier": False}), ("berhenti", "id", "stop", {}), ("στοπ", "el", "stop", {}),
    ("stop all", "en", "stop", {}), ("opt out", "en", "stop", {}),
    ("", "en", "unknown", {"reason": "empty"}), ("   ", "en", "unknown", {"reason": "empty"}), ("\n\t", "fr", "unknown", {"reason": "empty"}),
    ("11H", "en", "unknown", {"reason": "bad_card"}), ("1S", "en", "unknown", {"reason": "bad_card"}), ("ZH", "en", "unknown", {"reason": "bad_card"}),
    ("-3", "en", "unknown", {"reason": "bad_number"}), ("500", "en", "unknown", {"reason": "bad_number"}),
    ("x" * 2000, "en", "unknown", {"reason": "too_long"}), ("STOP " + "x" * 5000, "en", "stop", {}),
    ("😀", "en", "unknown", {}), ("🃏🃏", "en", "unknown", {}), ("你好", "en", "unknown", {}), ("مرحبا", "id", "unknown", {}),
    ("שלום", "en", "unknown", {}), ("привет", "nb", "unknown", {}), ("こんにちは", "el", "unknown", {}), ("?!?", "en", "unknown", {}),
    ("lol", "en", "unknown", {}), ("what?", "en", "unknown", {}), ("keep going", "en", "unknown", {}), ("bid four", "en", "bid", {"number": 4}),
    ("QHX", "en", "unknown", {}), ("QH QH QH QH and more", "en", "unknown", {}), ("\x00\x01", "en", "unknown", {}),
    ("<script>alert(1)</script>", "en", "unknown", {}), ("'; DROP TABLE games;--", "en", "unknown", {}), ("%s%s%(x)s", "en", "unknown", {}),
    ("{{ 7*7 }}", "en", "unknown", {}), ("K D", "en", "play", {"card": C("KD")}), ("ZZ", "en", "unknown", {}),
]
for word in OPT_OUT_WORDS:
    for variant in (word, word.lower(), word.title(), f" {word}. ", f"{word}!!"):
        for lang in LANGS:
            TABLE.append((variant, lang, "stop", {"carrier": True}))
for card in DECK:  # every card, canonical and lower case, in every language
    for lang in LANGS:
        TABLE.append((card.code.lower() if card.rank % 2 else card.code, lang, "play", {"card": card}))


@pytest.mark.parametrize("text,lang,kind,extra", TABLE, ids=[f"{i}-{t[1]}" for i, t in enumerate(TABLE)])
def test_parse_table(text, lang, kind, extra):
    intent = parse(text, lang)
    assert intent.kind == kind, (text, lang, intent)
    for key, value in extra.items():
        assert getattr(intent, key) == value, (text, lang, key, intent)


def test_table_is_large():
    assert len(TABLE) > 500


def test_commands_from_intents():
    assert parse("K").command(0) == Keep(0)
    assert parse("D").command(1) == Discard(1)
    assert parse("DN").command(0) == DeclareDoubleNil(0)
    assert parse("tire", "fr").command(1) == DeclineDoubleNil(1)
    assert parse("bid 4").command(1) == Bid(1, 4)
    assert parse("QH").command(0, "play") == Play(0, C("QH"))
    assert parse("QH").command(0, "exchange") == Exchange(0, (C("QH"),))
    assert parse("0").command(0, "exchange") == Exchange(0, ())
    assert parse("0").command(0, "bid") == Bid(0, 0)
    assert parse("RESIGN").command(1) == Forfeit(1, "resigned")
    assert parse("HELP").command(0) is None
    assert parse("garbage").command(0) is None


def test_fuzz_never_raises():
    rng = random.Random(4)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 #+-@.,;:!?♠♥♦♣️😀éøåΣΩλ\n\t\u200d"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        for lang in LANGS:
            intent = parse(text, lang)
            assert intent.kind
            if intent.is_engine:
                assert intent.command(0, "play") is not None


# the house-rule words of each language after NEW (translations-round2.md E13: the Greek ones never matched, being
# compared with raw Greek capitals after the text was normalised to their Latin look-alikes)
@pytest.mark.parametrize("lang,bags,target", [
    ("en", "BAGS", "TO"), ("fr", "SACS", "A"), ("nb", "POSER", "TIL"), ("id", "KANTONG", "SAMPAI"),
    ("el", "ΣΑΚΟΥΛΕΣ", "ΕΩΣ"), ("el", "σακούλες", "έως"),
])
def test_house_rule_words_of_every_language(lang, bags, target):
    new = {"en": "NEW", "fr": "NOUVELLE", "nb": "NY", "id": "BARU", "el": "ΝΕΟ"}[lang]
    intent = parse(f"{new} +306912345678 {bags} {target} 300", lang)
    assert intent.kind == "new" and intent.rules is not None, intent
    assert intent.rules.failed_nil_bags and intent.rules.target == 300, intent.rules


# the autoplay feature under the names the catalogues gave it, and its labels as flags (translations-round2.md E2, I2:
# ΑΥΤΟΜΑΤΟ ΠΑΙΞΙΜΟ ON and MAIN OTOMATIS ON were refused, and the bare local AUTO word is the other feature)
@pytest.mark.parametrize("text,lang,flag", [
    ("ΑΥΤΟΜΑΤΟ ΠΑΙΞΙΜΟ ON", "el", True), ("αυτόματο παίξιμο όχι", "el", False), ("AUTOPLAY ενεργό", "el", True),
    ("AUTOPLAY ανενεργό", "el", False), ("MAIN OTOMATIS ON", "id", True), ("main otomatis mati", "id", False),
    ("AUTOPLAY aktif", "id", True), ("AUTOSPILL PÅ", "nb", True), ("JEU AUTOMATIQUE NON", "fr", False),
])
def test_autoplay_by_its_local_names(text, lang, flag):
    intent = parse(text, lang)
    assert (intent.kind, intent.flag) == ("autoplay", flag), (text, intent)


@pytest.mark.parametrize("lang", LANGS)
def test_a_bare_autoplay_is_told_to_add_on_or_off(lang):
    said = parse("AUTOPLAY", lang)
    assert (said.kind, said.reason) == ("unknown", "missing_arg")
    reply = explain_error(said, None, lang, "sms").text
    example = re.search(r"AUTOPLAY (\S+?)\.", reply)  # AUTOPLAY ON, or PÅ in Norwegian
    assert example, reply
    assert (parse(example.group(0), lang).kind, parse(example.group(0), lang).flag) == ("autoplay", True), reply


#: The computer's levels (issue 25): NEW BOT EASY / NEW BOT / NEW BOT HARD and REMATCH EASIER / HARDER, as a player
#: of each language writes them (accents, case, the Greek of an SMS in GSM capitals with Latin look-alikes).
LEVEL_WORDS = {
    "en": (["NEW BOT EASY", "new bot easy"], ["NEW BOT", "new bot normal"], ["NEW BOT HARD", "challenge computer hard"],
           ["REMATCH EASIER", "rematch easier"], ["REMATCH HARDER", "Rematch harder!"]),
    "fr": (["NOUVELLE BOT FACILE", "nouvelle bot facile"], ["NOUVELLE BOT", "nouveau bot normal"],
           ["NOUVELLE BOT DIFFICILE", "nouvelle bot dur", "NEW BOT HARD"],
           ["REVANCHE PLUS FACILE", "revanche plus facile", "REMATCH EASIER"],
           ["REVANCHE PLUS DIFFICILE", "revanche plus dur", "Revanche plus difficile."]),
    "nb": (["NY BOT LETT", "ny bot lett"], ["NY BOT", "ny bot normal"], ["NY BOT VANSKELIG", "ny bot vanskelig"],
           ["OMKAMP LETTERE", "omkamp lettere", "revansj lettere"], ["OMKAMP VANSKELIGERE", "omkamp vanskeligere"]),
    "id": (["BARU BOT MUDAH", "baru bot gampang"], ["BARU BOT", "baru bot biasa"], ["BARU BOT SULIT", "baru bot susah"],
           ["MAIN LAGI LEBIH MUDAH", "main lagi lebih mudah", "tanding ulang lebih mudah"],
           ["MAIN LAGI LEBIH SULIT", "main lagi lebih susah", "tanding ulang lebih sulit"]),
    "el": (["ΝΕΟ BOT ΕΥΚΟΛΟ", "νέο bot εύκολο", "NEO BOT EYKOΛO"], ["ΝΕΟ BOT", "νέο bot κανονικό"],
           ["ΝΕΟ BOT ΔΥΣΚΟΛΟ", "νέο bot δύσκολο", "NEO BOT ΔYΣKOΛO"],
           ["ΡΕΒΑΝΣ ΠΙΟ ΕΥΚΟΛΟ", "ρεβάνς πιο εύκολο", "PEBANΣ ΠIO EYKOΛO", "ρεβάνς ευκολότερο"],
           ["ΡΕΒΑΝΣ ΠΙΟ ΔΥΣΚΟΛΟ", "ρεβάνς πιο δύσκολο", "PEBANΣ ΠIO ΔYΣKOΛO", "ρεβάνς δυσκολότερο"]),
}


@pytest.mark.parametrize("lang", sorted(LEVEL_WORDS))
def test_the_computers_levels_in_every_language(lang):
    easy, normal, hard, easier, harder = LEVEL_WORDS[lang]
    for texts, address in ((easy, "BOT EASY"), (hard, "BOT HARD")):
        for text in texts:
            intent = parse(text, lang)
            assert (intent.kind, intent.arg) == ("new", address), (text, intent)
    for text in normal:  # NEW BOT, or NEW BOT NORMAL said in full: the same level
        intent = parse(text, lang)
        assert intent.kind == "new" and intent.arg in ("BOT", "BOT NORMAL"), (text, intent)
    for texts, step in ((easier, "easier"), (harder, "harder")):
        for text in texts:
            intent = parse(text, lang)
            assert (intent.kind, intent.arg) == ("rematch", step), (text, intent)
    assert parse(easier[0] + " 3", lang).is_unknown  # anything more is not understood, not a plain REMATCH
    assert parse(normal[0] + " BAGS", lang).rules.failed_nil_bags  # house rules still follow the level
    assert parse(hard[0] + " BAGS", lang).arg == "BOT HARD"


def test_a_level_word_means_a_level_only_after_new_bot():
    assert parse("NEW +4791234567 HARD").is_unknown  # not a level for a person
    assert parse("NEW HARD").is_unknown
    assert parse("REMATCH").arg is None


def test_normalizing_an_ascii_text_the_short_way_gives_what_each_character_gives() -> None:
    """``normalize`` takes a shorter way for ASCII texts (most of them): the same result as character by character,
    on every ASCII character and on random ASCII texts (controls, punctuation and letters mixed)."""
    from chat.normalize import normalize, normalize_each

    rng = random.Random(5)
    chars = [chr(i) for i in range(128)]
    texts = chars + ["".join(rng.choice(chars) for _ in range(rng.randrange(1, 30))) for _ in range(5000)]
    assert [normalize(t) for t in texts] == [normalize_each(t) for t in texts]


#: LINK, UNLINK and VIA (docs/channels.md): an address, a six-digit code, or a kind; the same words in every language.
LINK_TABLE: list[tuple[str, str, dict]] = [
    ("LINK you@Example.com", "link", {"arg": "you@example.com"}),
    ("link +30 691 234 5678", "link", {"arg": "+306912345678"}),
    ("LINK whatsapp:+306912345678", "link", {"arg": "whatsapp:+306912345678"}),
    ("LINK WhatsApp +30 6912345678", "link", {"arg": "whatsapp:+306912345678"}),
    ("LINK 482913", "link", {"arg": "482913"}),
    ("LINK 048213.", "link", {"arg": "048213"}),
    ("LINK", "web", {}),  # alone: the page's link, as before
    ("LINK 12", "unknown", {"reason": "bad_link"}),  # neither a code nor a number
    ("LINK ana", "unknown", {"reason": "bad_link"}),
    ("LINK whatsapp:ana@example.com", "unknown", {"reason": "bad_link"}),
    ("UNLINK", "unlink", {"arg": None}),
    ("UNLINK +47 912 34 567", "unlink", {"arg": "+4791234567"}),
    ("VIA SMS", "via", {"arg": "sms"}), ("via e-mail", "via", {"arg": "email"}), ("VIA WhatsApp", "via", {"arg": "whatsapp"}),
    ("VIA ana@example.com", "via", {"arg": "ana@example.com"}),
    ("VIA TELEGRAM", "via", {"arg": "telegram"}), ("via tg", "via", {"arg": "telegram"}),
    # the game page's notifications (Web Push, issue 43): each language's word for the page
    ("VIA PAGE", "via", {"arg": "push"}), ("via push", "via", {"arg": "push"}), ("VIA SIDE", "via", {"arg": "push"}),
    ("via halaman", "via", {"arg": "push"}), ("VIA ΣΕΛΙΔΑ", "via", {"arg": "push"}), ("via σελίδα", "via", {"arg": "push"}),
    ("VIA", "unknown", {"reason": "missing_arg", "arg": "via"}), ("VIA POST", "unknown", {"reason": "missing_arg"}),
    ("482913", "unknown", {}),  # a bare code is no bid, and links nothing
    ("K", "keep", {}), ("QH", "play", {}), ("BID 4", "bid", {"number": 4}),  # moves never read as a code
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("text,kind,extra", LINK_TABLE)
def test_link_unlink_and_via(text, kind, extra, lang):
    intent = parse(text, lang)
    assert intent.kind == kind, (text, lang, intent)
    for key, value in extra.items():
        assert getattr(intent, key) == value, (text, lang, key, intent)

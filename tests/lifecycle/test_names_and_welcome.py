"""What players read of each other and of the service at first contact (issue 14 cases 1 and 4): ``NAME``,
opponents named by their chosen name or a short form of their address that is never a cut number, and the
welcome of a new number. Through the real handler and a real Redis."""

from __future__ import annotations

from .helpers import ALICE, BOB, CAROL, DAVE, lifecycle_command, load, local, move, start_game

GREEK = "+306912345678"


def test_name_is_set_refused_when_another_player_holds_it_and_shown_to_the_opponent(svc) -> None:  # type: ignore[no-untyped-def]
    for who in (ALICE, BOB):
        lifecycle_command(svc, who, "LANG EN")
    res = lifecycle_command(svc, ALICE, "NAME Ana")
    assert res.outcome == "name_set"
    assert local(svc, ALICE)[-1]["body"] == "Name set: your opponents now see you as Ana."
    assert svc.players.get(ALICE)["name"] == "Ana"
    # another player may not take it, in any case; the first keeps it
    lifecycle_command(svc, CAROL, "NAME ana")
    assert local(svc, CAROL)[-1]["body"] == "ana is taken: choose another name, e.g. NAME ana2."
    assert "name" not in svc.players.get(CAROL)
    assert lifecycle_command(svc, ALICE, "NAME ANA").outcome == "name_set"  # her own name, in capitals
    # nor the computer's name, nor one that reads as a number: refused by the parser, with what a name may be
    lifecycle_command(svc, CAROL, "NAME bot")
    assert "letters or digits" in local(svc, CAROL)[-1]["body"]
    lifecycle_command(svc, CAROL, "NAME +4791234567")
    assert "letters or digits" in local(svc, CAROL)[-1]["body"]
    # a name given up is free again
    lifecycle_command(svc, ALICE, "NAME Alice")
    lifecycle_command(svc, CAROL, "NAME Ana")
    assert svc.players.get(CAROL)["name"] == "Ana"
    # the opponent reads it in the game's messages (the invitation, the game's start, the turns)
    lifecycle_command(svc, BOB, "NAME Bo")
    gid = start_game(svc, ALICE, BOB)
    invite = [m for m in local(svc, BOB) if m["kind"] == "invite"][-1]["body"]
    assert "Alice" in invite and ALICE not in invite
    told_alice = " ".join(m["body"] for m in local(svc, ALICE) if m.get("game") == gid)
    assert "Bo" in told_alice and BOB not in told_alice
    assert load(svc, gid).version > 0


def test_an_opponent_without_a_name_is_never_a_cut_number(svc) -> None:  # type: ignore[no-untyped-def]
    """Before: ``Invitation from +30691234567`` (the address cut to 12 characters, a wrong number);
    after: ``+30..5678`` in every SMS, lifecycle messages included (issue 14 case 1)."""
    for who in (GREEK, BOB):
        lifecycle_command(svc, who, "LANG EN")
    res = lifecycle_command(svc, GREEK, f"NEW {BOB}")
    invite = local(svc, BOB)[-1]["body"]
    assert "+30..5678" in invite and "+30691234567" not in invite, invite
    assert "+47..5432" in local(svc, GREEK)[-1]["body"]  # invite_sent names the invitee the same way
    lifecycle_command(svc, BOB, "YES")
    sent = [m["body"] for m in local(svc, BOB) if m.get("game") == res.game_id]
    assert sent and all("+30691234567" not in b for b in sent)
    assert any("+30..5678" in b for b in sent)
    # GAMES lists the opponent the same way
    lifecycle_command(svc, BOB, "GAMES")
    assert "+30..5678" in local(svc, BOB)[-1]["body"]
    # an email player reads the number shortened too: it is personal data (issue 23 case 5; before, an email
    # showed it whole: "Invitation sent to +306912345678.", and the subjects "Your turn vs +15553340001")
    lifecycle_command(svc, DAVE, f"NEW {GREEK}")
    mail = local(svc, DAVE)[-1]
    assert GREEK not in mail["body"] and "+30..5678" in mail["body"], mail["body"]
    assert GREEK not in mail["subject"] and GREEK not in mail["html"]


def test_a_new_number_that_sends_no_command_is_welcomed(svc) -> None:  # type: ignore[no-untyped-def]
    """Before: ``hi`` -> ``HI is not a card. HELP for help.``, ``AS`` -> the help; after: the welcome
    (what this is and the three ways to start), once the number is known the usual answers (issue 14 case 4)."""
    for who, text in ((CAROL, "hi"), ("+12125550199", "AS"), ("+12125550198", "what is this")):
        res = move(svc, who, text)
        body = local(svc, who)[-1]["body"]
        assert local(svc, who)[-1]["kind"] == "welcome", (text, body)
        assert body.startswith("slowspades: Spades for two, by text") and "NEW BOT" in body
        assert res.outcome == "no_game"
    # a command from a new number is answered as that command
    lifecycle_command(svc, "+12125550197", "HELP")
    assert local(svc, "+12125550197")[-1]["kind"] == "help"


def test_the_first_message_against_the_computer_names_its_level_and_the_others(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 25: the game's first message says which level the computer plays and how to choose another, in the
    player's language, GSM-7, within the budget of its kind (a turn prompt two segments, the start alone one)."""
    from chat.gsm import is_gsm7, segments
    from chat.languages import LANGUAGES
    from chat.parse import parse
    from chat.render import finish_sms, gettext

    for lang in LANGUAGES:
        svc.redis.flushdb()
        lifecycle_command(svc, ALICE, f"LANG {lang.upper()}")
        for level, said in (("hard", f"{gettext(lang, 'NEW')} BOT {gettext(lang, 'HARD')}"),
                            ("normal", f"{gettext(lang, 'NEW')} BOT"), ("easy", f"{gettext(lang, 'NEW')} BOT {gettext(lang, 'EASY')}")):
            assert lifecycle_command(svc, ALICE, said).outcome == "started", (lang, said)
            first = [m for m in local(svc, ALICE) if m["kind"] == "update"][-1]["body"]
            assert f"({finish_sms(gettext(lang, level), lang)})" in first, (lang, first)
            levels = gettext(lang, "Levels: %(new)s BOT %(easy)s, %(new)s BOT, %(new)s BOT %(hard)s.",
                             new=gettext(lang, "NEW"), easy=gettext(lang, "EASY"), hard=gettext(lang, "HARD"))
            assert finish_sms(levels, lang) in first, (lang, first)
            gid = svc.players.games(ALICE)[0]
            prompted = load(svc, gid).may_move(0 if svc.store.meta(gid)["seat0"] == ALICE else 1)  # else the start alone
            assert is_gsm7(first) and segments(first) <= (2 if prompted else 1), (lang, first)
            # every level it names starts that level in the player's language
            for word, address in (("EASY", "BOT EASY"), ("HARD", "BOT HARD")):
                assert parse(f"{gettext(lang, 'NEW')} BOT {gettext(lang, word)}", lang).arg == address


def test_a_settings_answer_carries_no_game_label(svc) -> None:  # type: ignore[no-untyped-def]
    """Issue 23 case 9. Before, with two games: ``#2 A name is 1 to 12 letters, ...: NAME Ana.`` and
    ``#2 Add ON or OFF, e.g. AUTO ON.``; after: the same answers with no game's label (they are about no game)."""
    lifecycle_command(svc, ALICE, "LANG EN")
    start_game(svc, ALICE, BOB)
    start_game(svc, ALICE, CAROL)
    for text in ("NAME 12", "AUTO", "NAME"):
        lifecycle_command(svc, ALICE, text)
        answer = local(svc, ALICE)[-1]["body"]
        assert not answer.startswith("#") and "#1" not in answer and "#2" not in answer, (text, answer)
    lifecycle_command(svc, ALICE, "BID")  # a move's answer still names its game
    assert local(svc, ALICE)[-1]["body"].startswith("#"), local(svc, ALICE)[-1]["body"]

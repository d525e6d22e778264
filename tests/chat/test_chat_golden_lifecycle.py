"""Golden files of the lifecycle's templates (templates/lifecycle) and of the rules page, per language: what the
players read at the edges of a game (invitations, pauses, claims, summaries) and on /rules/<lang>. Regenerate with
UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from chat import render
from chat.commands import rules_page_context
from chat.gsm import is_gsm7
from chat.languages import LANGUAGES
from chat.render import TEMPLATES_DIR, environment

GOLDEN = Path(__file__).parent / "golden"
NAME = "Konstantinos"


def _line(contract: str, bid: int, tricks: int, bags: int = 0, penalty: int = 0, total: int = 0) -> dict:
    made = tricks == 0 if contract != "bid" else tricks >= bid
    bid_points = (10 * bid + bags if made else -10 * bid) if contract == "bid" else 0
    nil_points = {"nil": 100, "double_nil": 200}.get(contract, 0) * (1 if made else -1)
    return {"contract": contract, "bid": bid, "tricks": tricks, "made": made, "bid_points": bid_points,
            "set": contract == "bid" and not made, "bags": bags, "bags_carried": 1, "nil": contract != "bid",
            "nil_points": nil_points, "sandbag_penalty": penalty, "hand_total": bid_points + nil_points + penalty,
            "game_total": total}


CONTEXTS: dict[str, list[dict]] = {
    "claim_possible": [{"opp": NAME, "label": "#2 ", "days": 1}, {"opp": NAME, "label": "", "days": 7}],
    "claim_refused": [{"hours": 1, "my_turn": False, "paused": False, "label": ""},
                      {"hours": 30, "my_turn": False, "paused": False, "label": ""},
                      {"hours": 0, "my_turn": True, "paused": False, "label": ""}],
    "decline_done": [{"opp": NAME}],
    "game_summary": [{"label": "", "won": False, "me": -100, "them": -200, "hands": 1, "reason": "floor", "opp": NAME},
                     {"label": "#3 ", "won": True, "me": 510, "them": 180, "hands": 6, "reason": "resigned",
                      "opp": NAME},
                     {"label": "", "won": False, "me": 320, "them": 512, "hands": 9, "reason": "score", "opp": "Bot",
                      "level": "normal"},
                     {"label": "", "won": True, "me": 505, "them": 470, "hands": 12, "reason": "score", "opp": "Bot",
                      "level": "hard"}],
    "games": [{"games": [{"label": "#1", "opp": NAME, "status": "active", "my_turn": True, "me": -60, "them": -146,
                          "paused": False},
                         {"label": "#2", "opp": "+30..5678", "status": "invited", "my_turn": False, "me": 0,
                          "them": 0, "paused": False}]}, {"games": []}],
    "hand_summary": [{"label": "", "hand": 3, "opp": NAME, "next_first": "me",
                      "me": _line("bid", 5, 9, bags=4, penalty=-100, total=254),
                      "them": _line("nil", 0, 1, total=-60)},
                     {"label": "#2 ", "hand": 1, "opp": NAME, "next_first": "opp",
                      "me": _line("double_nil", 0, 0, total=200), "them": _line("bid", 7, 8, bags=1, total=71)}],
    "invite": [{"opp": NAME, "days": 1, "target": 500, "bags_rule": False, "floor": None,
                "rules_url": "https://spades.example.com/rules"},
               {"opp": NAME, "days": 3, "target": 300, "bags_rule": True, "floor": -200,
                "rules_url": "https://spades.example.com/rules"}],
    "invite_expired": [{"opp": NAME}],
    "level_limit": [{"reason": "easiest"}, {"reason": "hardest"}, {"reason": "person", "opp": NAME}],
    "invite_refused": [{"reason": "stopped", "text": "+4791234567"}, {"reason": "self", "text": ""},
                       {"reason": "bad_address", "text": "12"}, {"reason": "bad_number", "text": "+6280912345678"},
                       {"reason": "role", "text": "postmaster@example.com"}],
    "invite_link": [{"url": "https://spades.example.com/i/0123456789abcdef0123456789abcdef", "tg_url": "",
                     "days": 1, "target": 500},
                    {"url": "https://spades.example.com/i/0123456789abcdef0123456789abcdef",
                     "tg_url": "https://t.me/slowspades_bot?start=0123456789abcdef0123456789abcdef", "days": 3,
                     "target": 300}],
    "invite_link_gone": [{"reason": r} for r in ("gone", "self", "refused")],
    "invite_sent": [{"opp": NAME, "days": 1}, {"opp": NAME, "days": 3, "anonymous": True, "me": "+47..4567"}],
    "no_invitation": [{}],
    "stats": [{"games": 0, "wins": 0, "bids": 0, "bids_made": 0, "nils": 0, "nils_made": 0, "h2h": None, "opp": ""},
              {"games": 12, "wins": 7, "bids": 80, "bids_made": 61, "nils": 9, "nils_made": 5, "h2h": {"me": 3, "them": 2},
               "opp": NAME},
              {"games": 1, "wins": 0, "bids": 4, "bids_made": 2, "nils": 0, "nils_made": 0, "h2h": {"me": 0, "them": 1},
               "opp": NAME}],
    "talk_line": [{"opp": NAME, "line": "nice play! <b>&</b>"}],
    "talk_refused": [{"reason": r, "opp": NAME, "limit": 20} for r in
                     ("trimmed", "link", "rate", "muted", "self_muted", "bot", "stopped")],
    "talk_setting": [{"muted": True}, {"muted": False}],
    "talk_muted": [{"opp": NAME}],
    "resign_kept": [{"label": ""}, {"label": "#2 "}],
    "no_such_game": [{"number": 4}, {"number": None}],
    "opponent_back": [{"opp": NAME, "label": "#2 "}],
    "opponent_stopped": [{"opp": NAME, "label": "", "days": 7}],
    "opponent_unreachable": [{"opp": NAME, "label": "", "days": 7}, {"opp": NAME, "label": "#2 ", "days": 1}],
    "opponent_whatsapp_closed": [{"opp": NAME, "label": ""}, {"opp": NAME, "label": "#2 "}],
    "rematch_live": [{"opp": NAME, "label": ""}, {"opp": "Bot (normal)", "label": "#2 "}],
    "paused": [{"days": 1, "by_me": True, "opp": NAME}, {"days": 3, "by_me": False, "opp": NAME},
               {"days": 0, "by_me": False, "opp": NAME}],
    "reminder": [{"prompt": "Draw 3/13: 4S. K keeps 4S, D discards it and takes the next.", "n": 1, "of": 3,
                  "opp": NAME, "label": ""}],
    "tz_unknown": [{"text": "Mars/Olympus"}],
    "limit_country": [{"number": "+19002001234"}],
    "limit_flood": [{"limit": 20}],
    "limit_invites_day": [{"count": 10}],
    "limit_invites_pending": [{"count": 3}],
    "email_move_needs_reply_address": [{}],
    "email_command_needs_reply_address": [{"word": "resign"}],
    "invite_held": [{"opp": NAME, "at": "00:00 UTC"}],
    "invite_pending": [{"opp": NAME, "theirs": False}, {"opp": NAME, "theirs": True}],
    "invite_named": [{"opp": "+47..4567", "chosen": "Ana"}],
    "limit_domain": [{"domain": "example.net", "count": 10}],
    "limit_new_numbers": [{"count": 30}],
    "send_again": [{}],
    "link_code": [{"who": NAME, "digits": "048213", "minutes": 15}, {"who": "+30..5678", "digits": "482913", "minutes": 15}],
    "link_sent": [{"addr": "ana@example.com", "minutes": 15}],
    "link_refused": [{"reason": r, "addr": "+47..4567"} for r in ("bad_address", "yours", "taken", "stopped", "limit",
                                                                  "new_numbers", "country", "bad_number", "role")],
    "link_failed": [{"reason": r} for r in ("wrong", "locked", "expired", "none")],
    "linked": [{"here": True, "who": NAME, "kind": "EMAIL"}, {"here": False, "addr": "ana@example.com"}],
    "unlinked": [{"addrs": "ana@example.com, +47..4567"}, {"addrs": ""}],
    "via": [{"addr": "+47..4567", "kind": "SMS"}, {"addr": "", "kind": "WHATSAPP"}],
}


def test_every_lifecycle_template_has_a_golden_context():
    names = {p.name[: -len(".txt.j2")] for p in (TEMPLATES_DIR / "lifecycle" / "sms").glob("[!_]*.txt.j2")}
    assert names == set(CONTEXTS)


def _check(path: Path, text: str) -> None:
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"golden {path} is missing (UPDATE_GOLDEN=1 writes it; review it before committing)"
    assert path.read_text(encoding="utf-8") == text, f"golden {path} differs (UPDATE_GOLDEN=1 to regenerate)"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_golden_lifecycle(lang):
    for name, contexts in sorted(CONTEXTS.items()):
        parts = []
        for ctx in contexts:
            sms = render(name, lang, "sms", family="lifecycle", **ctx)
            assert is_gsm7(sms.text) and not re.search(r"-\s*-\s*\d", sms.text), sms.text
            mail = render(name, lang, "email", family="lifecycle", **ctx)
            parts.append(f"== sms ({sms.segments} seg) ==\n{sms.text}\n== email ==\nsubject: {mail.subject}\n{mail.text}")
        _check(GOLDEN / lang / "lifecycle" / f"{name}.txt", "\n\n".join(parts) + "\n")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_golden_rules_page(lang):
    page = environment(lang).get_template("web/rules.html.j2").render(lang=lang, target=500, languages=[],
                                                                            **rules_page_context(lang))
    text = "\n".join(line.strip() for line in re.sub(r"<[^>]+>", " ", page.split("<body>")[1]).splitlines()
                     if line.strip())
    _check(GOLDEN / lang / "rules_page.txt", text + "\n")


@pytest.mark.parametrize("name", ["limit_invites_day", "limit_invites_pending"])
def test_an_invitation_limit_of_one_reads_right(name: str) -> None:
    """An operator may set a limit of 1 (SLOWSPADES_LIMIT_INVITES_PER_DAY): never "1 invitations"."""
    for channel in ("sms", "email"):
        text = render(name, "en", channel, family="lifecycle", count=1).text
        assert "(1)" in text or ": 1," in text
        assert "1 invitations" not in text and "1 of your invitations are" not in text


def test_an_address_short_form_ending_a_sentence_gets_no_third_dot() -> None:
    from service.conversation_port import render_message

    text = render_message("invite_sent", "en", "sms", opp="dave@example.org").text
    assert text.startswith("Invitation sent to dave@.. I'll text you"), text


def _game_page_context() -> dict:
    """A seat's page (issue 14, "Beyond") in hand 2, four tricks in, a card on the table: from an engine game."""
    from chat.page import page_context
    from spades.commands import Bid, DeclineDoubleNil
    from spades.dealer import Dealer
    from spades.events import HouseRules, redact
    from spades.game import decide, fold, legal_moves, new_game, view

    dealer = Dealer(seed=14)
    events = list(new_game("golden", HouseRules(), dealer))
    while True:
        game = fold(events)
        if game.hand_no == 2 and game.phase == "play" and sum(game.tricks_won) == 4 and len(game.trick) == 1:
            break
        seat = game.movers[0]
        legal = legal_moves(game, seat)
        command = next((c for c in legal if isinstance(c, DeclineDoubleNil)), None) or \
            next((c for c in legal if isinstance(c, Bid) and c.tricks == 3), None) or legal[-1]
        events += decide(game, command, dealer)
    return page_context(view(game, 0), [redact(e, 0) for e in events], "Ana", NAME)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_golden_game_page(lang):
    from chat.page import render_page

    page = render_page(lang, {**_game_page_context(), "move_url": "/g/TOKEN/move", "csrf": "CSRF"})  # with its forms
    text = "\n".join(line.strip() for line in re.sub(r"<[^>]+>", " ", re.split(r"<body[^>]*>", page)[1]).splitlines()
                     if line.strip())
    _check(GOLDEN / lang / "game_page.txt", text + "\n")

"""Every lifecycle SMS (invitations, reminders, pauses, claims, summaries...) in every language stays GSM-7
and within its segment budget, for the longest names and the busiest hands.

One character outside GSM-7 turns a 160-character segment into a 70-character one, and SMS is paid per
segment (issue 4, section 4; the lifecycle's texts are SMS like any other).
"""

from __future__ import annotations

from typing import Any

import pytest

from chat.gsm import is_gsm7, segments
from chat.languages import LANGUAGES
from service.games import summaries
from service.games.outbox import render
from spades.events import GameEnded, HandScore, HandScored, to_dict

LONG = "Maximiliana Øyvindsdottir"  # a long name with a letter GSM-7 has
LABEL = "#12"


def _score(contract: str, bid: int, tricks: int, carried: int, total: int, penalty: int = 0) -> HandScore:
    made = tricks == 0 if contract != "bid" else tricks >= bid
    worth = {"nil": 100, "double_nil": 200}.get(contract, 0)
    bags = tricks - bid if contract == "bid" and made else 0
    points = (10 * bid + bags if made else -10 * bid) if contract == "bid" else 0
    nil = (worth if made else -worth) if worth else 0
    return HandScore(contract, bid, tricks, made, points, bags, nil, penalty, points + nil + penalty, total, carried)


HANDS = {
    "bid vs set": HandScored(17, (_score("bid", 13, 13, 9, -1234), _score("bid", 4, 0, 9, -1180))),
    "sandbag vs failed double nil": HandScored(23, (_score("bid", 1, 12, 1, 498, -100), _score("double_nil", 0, 1, 9, -987))),
    "nil made vs nil failed": HandScored(9, (_score("nil", 0, 0, 0, 100), _score("nil", 0, 13, 0, -100))),
}

# name -> (segment budget, contexts)
CASES: dict[str, tuple[int, list[dict[str, Any]]]] = {
    "invite": (2, [dict(opp=LONG, days=3, target=500, bags_rule=True, floor=-200),
                   dict(opp=LONG, days=3, target=500, bags_rule=False, floor=None, alternating=True),
                   dict(opp="+4791234567", days=3, target=500, bags_rule=False, floor=None)]),
    "invite_sent": (1, [dict(opp="friend.with.a.long.address@example.com", days=3)]),
    "invite_link": (2, [dict(url="https://spades.example.com/i/0123456789abcdef0123456789abcdef", days=3, target=1000,
                             tg_url="https://t.me/slowspades_bot?start=0123456789abcdef0123456789abcdef")]),
    "invite_link_gone": (1, [dict(reason=r) for r in ("gone", "self", "refused")]),
    "invite_expired": (1, [dict(opp=LONG)]),
    "invite_refused": (2, [dict(reason=r, text="friend.with.a.long.address@example.com") for r in ("bad_address", "self", "stopped")]),
    "decline_done": (1, [dict(opp=LONG)]),
    "no_invitation": (1, [{}]),
    "no_such_game": (1, [dict(number=12), dict(number=None)]),
    "claim_possible": (1, [dict(opp=LONG, label=LABEL + " ", days=7)]),
    "claim_refused": (1, [dict(hours=167, my_turn=m, paused=p, label=LABEL + " ") for m, p in ((True, False), (False, True), (False, False))]),
    "opponent_back": (1, [dict(opp=LONG, label=LABEL + " ")]),
    "opponent_stopped": (1, [dict(opp=LONG, label=LABEL + " ", days=7)]),
    "opponent_unreachable": (1, [dict(opp=LONG, label=LABEL + " ", days=14)]),
    "paused": (1, [dict(days=d, by_me=b, opp=LONG) for d in (0, 14) for b in (True, False)]),
    "tz_unknown": (1, [dict(text="America/Argentina/ComodRivadavia")]),
    "level_limit": (1, [dict(reason="easiest"), dict(reason="hardest"), dict(reason="person", opp=LONG),
                        dict(reason="person", opp="friend.with.a.long.address@example.com")]),
    "stats": (1, [dict(games=1234, wins=999, bids=12345, bids_made=12000, nils=999, nils_made=888, h2h=dict(me=99, them=99),
                       opp=LONG)]),
    "talk_refused": (1, [dict(reason=r, opp=LONG, limit=20) for r in
                         ("trimmed", "link", "rate", "muted", "self_muted", "bot", "stopped")]),
    "talk_setting": (1, [dict(muted=True), dict(muted=False)]),
    "talk_muted": (1, [dict(opp=LONG)]),
    "games": (2, [dict(games=[dict(label=f"#{n}", opp=LONG if n % 2 else "+4791234567", status="active", my_turn=n % 2,
                                    me=-1234, them=498, paused=n == 3) for n in (1, 2, 3)]), dict(games=[])]),
}


def _rendered(name: str, lang: str, ctx: dict[str, Any]) -> str:
    return render(name, lang, "sms", **ctx).text


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_lifecycle_sms_is_gsm7_within_budget(name: str, lang: str) -> None:
    budget, contexts = CASES[name]
    for ctx in contexts:
        text = _rendered(name, lang, ctx)
        assert text.strip(), f"{name}/{lang} rendered nothing"
        assert is_gsm7(text), f"{name}/{lang} leaves GSM-7: {text!r}"
        assert segments(text) <= budget, f"{name}/{lang}: {segments(text)} segments > {budget}: {text!r}"
        assert "{" not in text and "%(" not in text, f"{name}/{lang} has an unfilled placeholder: {text!r}"


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
@pytest.mark.parametrize("case", sorted(HANDS))
def test_hand_and_game_summaries_fit_two_segments(case: str, lang: str) -> None:
    scored = to_dict(HANDS[case])
    for seat in (0, 1):
        for next_first in (0, 1, None):
            ctx = summaries.hand_summary(scored, seat, next_first, LONG, LABEL)
            text = summaries.render_hand(ctx, lang, "sms").text
            assert is_gsm7(text), text
            assert segments(text) <= 2, f"{segments(text)} segments: {text!r}"
            # what the player must be able to read off it: both game totals
            for total in (HANDS[case].scores[0].game_total, HANDS[case].scores[1].game_total):
                assert str(total) in text
    for reason in ("score", "floor", "resigned", "timeout"):
        ended = to_dict(GameEnded(winner=0, scores=(-1234, -1180), reason=reason, hands=41))
        for seat in (0, 1):
            for opp, level in ((LONG, None), ("Bot", "easy"), ("Bot", "normal"), ("Bot", "hard")):  # the computer: levels
                text = summaries.render_game(summaries.game_summary(ended, seat, opp, LABEL, level), lang, "sms").text
                assert is_gsm7(text) and segments(text) <= 2, f"{segments(text)} segments: {text!r}"
                assert "1234" in text and "1180" in text

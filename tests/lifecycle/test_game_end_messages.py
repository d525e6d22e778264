"""The end of a game, as the players read it (issue 23 cases 1 and 2).

Case 1, before: after the last card an SMS player got ``Game over: Bot wins 538 to 184. 10 hands played. REMATCH to
play again.``: no last trick, no hand score (an SMS player hears of a hand's end in the next hand's first prompt, and
there is none). After: the message that ends the game tells the last tricks and the last hand's score too.
"""

from __future__ import annotations

import random
import re
import uuid

from tests.chat.goldens import check_golden

from . import helpers
from .helpers import lifecycle_command, load, local, start_game
from .test_snapshots import play  # the basic bot's moves for both players, through the handler

ANN, BEN = "+15551230101", "+15551230102"


def test_the_last_hand_of_a_game_reaches_both_sms_players_in_the_message_that_ends_it(svc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pinned = random.Random(23)  # the game's id, so its deals: the golden file is one game
    monkeypatch.setattr(helpers.uuid, "uuid4", lambda: uuid.UUID(int=pinned.getrandbits(128), version=4))
    gid = start_game(svc, ANN, BEN, rules="TO 100")
    game = play(svc, gid, 999)
    last_hand = game.history[-1]
    texts = []
    for seat, who in enumerate((ANN, BEN)):
        last = local(svc, who)[-1]["body"]
        texts.append(last)
        mine, theirs = last_hand.scores[seat], last_hand.scores[1 - seat]
        assert f"Hand {last_hand.hand}: you {mine.tricks}/" in last, last
        assert re.search(r"won \w+", last), last  # the last trick
        assert "Game over:" in last and "hands played." in last and "REMATCH" in last, last
        assert f"{game.scores[seat]} to {game.scores[1 - seat]}" in last or \
            f"{game.scores[1 - seat]} to {game.scores[seat]}" in last, last
        assert theirs is not None
    assert load(svc, gid).phase == "over"
    check_golden("en", "issue23/game_end_sms", "\n".join(texts) + "\n")


def test_after_the_game_web_score_hand_and_games_answer_about_the_finished_game(svc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Case 2. Before: after the game ``WEB``, ``SCORE`` and ``HAND`` answered the generic help, ``GAMES`` said
    ``No game. NEW +number invites...``. After: the finished game's page link and score; GAMES lists it as over."""
    pinned = random.Random(2)
    monkeypatch.setattr(helpers.uuid, "uuid4", lambda: uuid.UUID(int=pinned.getrandbits(128), version=4))
    gid = start_game(svc, ANN, BEN, rules="TO 100")
    game = play(svc, gid, 999)
    seat = 0 if svc.store.meta(gid)["seat0"] == ANN else 1
    final = f"{game.scores[seat]}"
    answers = {}
    for word in ("WEB", "SCORE", "HAND", "GAMES"):
        lifecycle_command(svc, ANN, word)
        answers[word] = local(svc, ANN)[-1]["body"]
    assert "/g/" in answers["WEB"], answers["WEB"]
    for word in ("SCORE", "HAND"):
        assert final in answers[word] and "Game over" in answers[word], answers[word]
    assert "No game" not in answers["GAMES"] and "+1..0102" in answers["GAMES"], answers["GAMES"]
    check_golden("en", "issue23/after_the_game", "\n".join(f"{k}: {v}" for k, v in answers.items()
                                                           if k != "WEB") + "\n")

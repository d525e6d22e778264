"""AUTOPLAY OFF does what it says (issue 23 case 4).

Before: ``AUTOPLAY OFF`` answered ``Autoplay off: you play every card yourself``, and the next hand still ended with
``Last 6 tricks decided.``: 12 cards, the player's AS among them, played as decided. After: with AUTOPLAY OFF no
card of theirs is played for them, forced or decided; the answer says so.
"""

from __future__ import annotations

import random
import uuid

from spades.events import AUTO_DECIDED, AUTO_FORCED
from tests.chat.goldens import check_golden

from . import helpers
from .helpers import lifecycle_command, local, start_game
from .test_snapshots import play

ANN, BEN = "+15551230201", "+15551230202"


def test_autoplay_off_plays_no_card_for_the_player_forced_or_decided(svc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pinned = random.Random(4)
    monkeypatch.setattr(helpers.uuid, "uuid4", lambda: uuid.UUID(int=pinned.getrandbits(128), version=4))
    lifecycle_command(svc, ANN, "AUTOPLAY OFF")
    answer = local(svc, ANN)[-1]["body"]
    gid = start_game(svc, ANN, BEN, rules="TO 200")
    play(svc, gid, 999)
    seat = 0 if svc.store.meta(gid)["seat0"] == ANN else 1
    events = [e.event for e in svc.store.load(gid)]
    played = [e for e in events if e["type"] == "card_played"]
    assert not [e for e in played if e["seat"] == seat and e.get("auto")], "a card was played for ANN"
    assert not [e for e in played if e.get("auto") == AUTO_DECIDED]  # a decided end plays both players' cards
    assert [e for e in played if e["seat"] == 1 - seat and e.get("auto") == AUTO_FORCED]  # BEN's still play
    assert not any("decided" in m["body"] for m in local(svc, ANN))
    check_golden("en", "issue23/autoplay_off", answer + "\n")

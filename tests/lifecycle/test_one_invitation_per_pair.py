"""One invitation per pair of players while one is pending (issue 23 case 7).

Before: the same invitation sent twice reached the friend twice; after they accepted, GAMES still listed the second as
``#1 +62..0001 (ΠPOΣKΛHΣH)``, and their ``#1 OXI`` told the inviter ``+30..5001 menolak undanganmu.`` ("declined your
invitation") while the two were playing. After: a repeat is told the invitation is pending and nothing is sent again;
the invited player's own NEW is told they are invited already; a NO after YES declines nothing.
"""

from __future__ import annotations

import random
import uuid

from tests.chat.goldens import check_golden

from . import helpers
from .helpers import lifecycle_command, local

ANN, BEN = "+15551230401", "+15551230402"


def test_a_repeated_invitation_is_not_sent_again_and_a_late_no_declines_nothing(svc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pinned = random.Random(7)  # the message ids, so the game's id and deals: the golden file is one game
    monkeypatch.setattr(helpers.uuid, "uuid4", lambda: uuid.UUID(int=pinned.getrandbits(128), version=4))
    first = lifecycle_command(svc, ANN, f"NEW {BEN}")
    assert first.outcome == "invited"
    again = lifecycle_command(svc, ANN, f"NEW {BEN}")
    told = local(svc, ANN)[-1]["body"]
    assert [m["kind"] for m in local(svc, BEN)] == ["invite"], local(svc, BEN)  # one invitation reached BEN
    assert again.outcome != "invited" and "waiting" in told, told
    reverse = lifecycle_command(svc, BEN, f"NEW {ANN}")
    told_ben = local(svc, BEN)[-1]["body"]
    assert reverse.outcome != "invited" and "YES" in told_ben, told_ben
    assert [m["kind"] for m in local(svc, ANN)].count("invite") == 0  # ANN was not invited back
    assert lifecycle_command(svc, BEN, "YES").outcome == "started"
    lifecycle_command(svc, BEN, "#1 NO")
    assert not any(m["kind"] == "declined" for m in local(svc, ANN)), [m["body"] for m in local(svc, ANN)]
    lifecycle_command(svc, BEN, "GAMES")
    games = local(svc, BEN)[-1]["body"]
    assert "invited" not in games, games
    check_golden("en", "issue23/one_invitation", "\n".join([told, told_ben, games]) + "\n")

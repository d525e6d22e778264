"""An invitation names the inviter better than a masked number (issue 23 case 13).

Before: ``+1..0001 invites you...``: the friend could not tell who it was unless the inviter had set ``NAME``. After:
an inviter with no name is told, with their invitation sent, how the friend sees them and that ``NAME Ana`` tells
them who it is; a NAME given while the invitation waits reaches the friend at once (``+1..0501 is Ann, who invited
you: YES to play, NO to decline.``), once per waiting invitation.
"""

from __future__ import annotations

from tests.chat.goldens import check_golden

from .helpers import lifecycle_command, local

ANN, BEN, CARL = "+15551230501", "+15551230502", "+15551230503"


def test_an_inviter_without_a_name_is_asked_for_one_and_the_friend_learns_it(svc) -> None:  # type: ignore[no-untyped-def]
    lifecycle_command(svc, ANN, f"NEW {BEN}")
    sent = local(svc, ANN)[-1]["body"]
    assert "NAME" in sent and "+1..0501" in sent, sent
    lifecycle_command(svc, ANN, "NAME Ann")
    told = local(svc, BEN)[-1]
    assert told["kind"] == "invite_named" and "Ann" in told["body"] and "+1..0501" in told["body"], told
    assert "YES" in told["body"]
    lifecycle_command(svc, CARL, "NAME Carl")
    lifecycle_command(svc, CARL, f"NEW {BEN}")
    assert "NAME" not in local(svc, CARL)[-1]["body"]  # an inviter with a name is not asked
    check_golden("en", "issue23/inviter_named", f"{sent}\n{told['body']}\n")

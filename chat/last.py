"""``LAST``: the trick played before, or, when a hand ended decided (played out at once, RULES 6), the cards of
its decided tricks, from the game's events as the player may see them (the cards of a trick are public).

:func:`last_tricks` is pure: the events in, the template's context out (``templates/sms/last.txt.j2``).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from spades.events import AUTO_DECIDED


def last_tricks(events: Iterable[Mapping[str, Any] | None], me: int) -> dict[str, Any]:
    """The context of the ``LAST`` reply for the player at seat ``me``: ``hand_no`` (its number), ``trick`` (the trick's
    number), ``tricks`` (each ``mine``, ``theirs`` card codes, ``won`` by me, ``led`` by me; the last trick alone, or
    every decided trick of that hand when it was one of them), ``decided`` (True then). No trick yet: ``tricks`` is
    empty."""
    hand = 0
    decided_cards: set[str] = set()
    last_hand: list[dict[str, Any]] = []  # the tricks of the hand of the last trick, each with its decided mark
    last_no, trick_no = 0, 0
    for e in events:
        if not e:
            continue
        t = e.get("type")
        if t == "hand_started":
            hand = int(e.get("hand", hand + 1))
            decided_cards = set()
        elif t == "card_played" and e.get("auto") == AUTO_DECIDED:
            decided_cards.add(str(e["card"]))
        elif t == "trick_won":
            cards = [(int(s), str(c)) for s, c in e["cards"]]
            trick = {"mine": next(c for s, c in cards if s == me), "theirs": next(c for s, c in cards if s != me),
                     "won": int(e["seat"]) == me, "led": cards[0][0] == me,
                     "decided": any(c in decided_cards for _s, c in cards)}
            if last_no != hand:
                last_hand, last_no = [], hand
            last_hand.append(trick)
            trick_no = int(e.get("trick", len(last_hand)))
    if not last_hand:
        return {"hand_no": hand, "trick": 0, "tricks": [], "decided": False}
    if last_hand[-1]["decided"]:
        run = [t for t in last_hand if t["decided"]]
        return {"hand_no": last_no, "trick": trick_no, "tricks": run, "decided": True,
                "won": sum(t["won"] for t in run)}
    return {"hand_no": last_no, "trick": trick_no, "tricks": last_hand[-1:], "decided": False}

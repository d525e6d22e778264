"""Every trick of a game as a player may know it: :func:`hands_of` (the game page's past hands, issue 46: each hand's
tricks, who led and who won each, the decided ones marked) and ``LAST`` (:func:`last_tricks`: the trick played
before, or, when a hand ended decided, played out at once by RULES 6, the cards of its decided tricks). The cards of
a trick are public; that a card came from the player's own plan (RULES D12) is marked for them alone, since their
events are redacted for their seat (:func:`spades.events.redact` drops the opponent's plan mark).

Both are pure: the events in, a template's context out (``templates/sms/last.txt.j2``,
``templates/web/_past_hands.html.j2``).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from spades.events import AUTO_DECIDED, AUTO_PLAN


def hands_of(events: Iterable[Mapping[str, Any] | None], me: int) -> list[dict[str, Any]]:
    """The tricks of each hand of the game for the player at seat ``me``, oldest first: ``hand_no``, ``over`` (the
    hand was scored), ``tricks`` (each ``n``, ``mine``, ``theirs`` card codes, ``won`` by me, ``led`` by me,
    ``decided``: played out at once, ``plan``: my card came from my plan), ``decided`` (the decided tricks, in
    order) and ``decided_won`` (how many of them I won). A hand with no trick yet is left out."""
    hands: list[dict[str, Any]] = []
    hand = 0
    decided_cards: set[str] = set()
    planned: set[str] = set()
    for e in events:
        if not e:
            continue
        t = e.get("type")
        if t == "hand_started":
            hand = int(e.get("hand", hand + 1))
            decided_cards, planned = set(), set()
        elif t == "card_played" and e.get("auto") == AUTO_DECIDED:
            decided_cards.add(str(e["card"]))
        elif t == "card_played" and e.get("auto") == AUTO_PLAN and e.get("seat") == me:
            planned.add(str(e["card"]))
        elif t == "trick_won":
            cards = [(int(s), str(c)) for s, c in e["cards"]]
            mine = next(c for s, c in cards if s == me)
            if not hands or hands[-1]["hand_no"] != hand:
                hands.append({"hand_no": hand, "over": False, "tricks": [], "decided": [], "decided_won": 0})
            trick = {"n": int(e.get("trick", len(hands[-1]["tricks"]) + 1)), "mine": mine,
                     "theirs": next(c for s, c in cards if s != me), "won": int(e["seat"]) == me,
                     "led": cards[0][0] == me, "decided": any(c in decided_cards for _s, c in cards),
                     "plan": mine in planned}
            hands[-1]["tricks"].append(trick)
            if trick["decided"]:
                hands[-1]["decided"].append(trick)
                hands[-1]["decided_won"] += trick["won"]
        elif t == "hand_scored" and hands and hands[-1]["hand_no"] == int(e.get("hand", hand)):
            hands[-1]["over"] = True
    return hands


def last_tricks(events: Iterable[Mapping[str, Any] | None], me: int) -> dict[str, Any]:
    """The context of the ``LAST`` reply for the player at seat ``me``: ``hand_no`` (its number), ``trick`` (the trick's
    number), ``tricks`` (each ``mine``, ``theirs`` card codes, ``won`` by me, ``led`` by me; the last trick alone, or
    every decided trick of that hand when it was one of them), ``decided`` (True then). No trick yet: ``tricks`` is
    empty."""
    events = list(events)
    hands = hands_of(events, me)
    if not hands:
        hand = max((int(e.get("hand", 0)) for e in events if e and e.get("type") == "hand_started"), default=0)
        return {"hand_no": hand, "trick": 0, "tricks": [], "decided": False}
    last = hands[-1]
    tricks = last["tricks"]
    if tricks[-1]["decided"]:
        return {"hand_no": last["hand_no"], "trick": tricks[-1]["n"], "tricks": last["decided"], "decided": True,
                "won": last["decided_won"]}
    return {"hand_no": last["hand_no"], "trick": tricks[-1]["n"], "tricks": tricks[-1:], "decided": False}

"""What both players learn at the end of each hand, and at the end of the game.

:func:`hand_summary` turns a ``hand_scored`` event (as a dict, redacted or not: scores are
public) into the context of the ``hand_summary`` template, from one player's side: each
player's bid, tricks, bid points or set penalty, bags this hand and carried, the nil or double
nil result, the sandbag penalty, the hand total and the game total, and who draws first in the
next hand. :func:`game_summary` does the same for the end of the game (winner, final score,
hands played, ``REMATCH``). :func:`render_hand` / :func:`render_game` render them (SMS, or
email with an HTML table). :func:`entries` composes their outbox entries from data (what it asks of the world, a
:class:`~service.games.known.Lookups`: a move's :class:`~service.games.known.Known`, read before): no gateway here.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from chat.render import Rendered
from spades.events import AUTO_DECIDED, Event, to_dict

from ..addresses import EMAIL, is_bot
from ..records import GameMeta
from . import levels
from .compose_entry import entry, render
from .known import Lookups
from .seats import opponent_of


def _line(score: dict[str, Any]) -> dict[str, Any]:
    contract = score["contract"]
    return {
        "contract": contract,
        "bid": score["bid"],
        "tricks": score["tricks"],
        "made": bool(score["made"]),
        "bid_points": score["bid_points"] if contract == "bid" else 0,
        "set": contract == "bid" and not score["made"],
        "bags": score["bags"],
        "bags_carried": score["bags_carried"],
        "nil": contract in ("nil", "double_nil"),
        "nil_points": score["nil_points"],
        "sandbag_penalty": score["sandbag_penalty"],
        "hand_total": score["hand_total"],
        "game_total": score["game_total"],
    }


def hand_summary(hand_scored: dict[str, Any], seat: int, next_first: int | None, opponent_name: str,
                 label: str = "", decided: int = 0) -> dict[str, Any]:
    """The ``hand_summary`` context for the player at ``seat``.

    ``next_first`` is the seat that draws first in the next hand (None when the game is over); ``decided``:
    how many last tricks the service played out because their result was decided (``spades.autoplay``).
    """
    scores = hand_scored["scores"]
    return {
        "label": (label.strip() + " ") if label else "",
        "hand": hand_scored["hand"],
        "me": _line(scores[seat]),
        "them": _line(scores[1 - seat]),
        "opp": opponent_name,
        "next_first": None if next_first is None else ("me" if next_first == seat else "opp"),
        "decided": decided,
    }


def summaries_from_events(events: Sequence[dict[str, Any]], seat: int, opponent_name: str,
                          label: str = "") -> list[dict[str, Any]]:
    """Every hand summary the events hold (usually one), with who draws first next."""
    out = []
    for i, e in enumerate(events):
        if e.get("type") != "hand_scored":
            continue
        nxt = next((x["first_player"] for x in events[i + 1:] if x.get("type") == "hand_started"), None)
        start = max((j for j in range(i) if events[j].get("type") == "hand_scored"), default=-1) + 1
        decided = sum(x.get("type") == "card_played" and x.get("auto") == AUTO_DECIDED for x in events[start:i]) // 2
        out.append(hand_summary(e, seat, nxt, opponent_name, label, decided))
    return out


def game_summary(game_ended: dict[str, Any], seat: int, opponent_name: str, label: str = "",
                 level: str | None = None) -> dict[str, Any]:
    """The ``game_summary`` context: winner, final score, hands played, why it ended; ``level``: the computer's,
    when it was the opponent (the summary says how to play it again one level down or up)."""
    scores = game_ended["scores"]
    return {
        "label": (label.strip() + " ") if label else "",
        "won": game_ended["winner"] == seat,
        "me": scores[seat],
        "them": scores[1 - seat],
        "hands": game_ended["hands"],
        "reason": game_ended["reason"],
        "opp": opponent_name,
        "level": level,
    }


def render_hand(context: dict[str, Any], lang: str, channel: str) -> Rendered:
    return render("hand_summary", lang, channel, **context)


def render_game(context: dict[str, Any], lang: str, channel: str) -> Rendered:
    return render("game_summary", lang, channel, **context)


def entries(look: Lookups, game_id: str, meta: GameMeta, events: Sequence[Event | dict[str, Any]],
            meta_updates: dict[str, str] | None = None, hands_by_sms: bool = True,
            quiet: frozenset[int] = frozenset(), lives: Mapping[str, Mapping[str, str]] | None = None
            ) -> list[dict[str, Any]]:
    """Outbox entries of the hand summary (and the game summary) for both players, if ``events`` end a hand.

    ``events`` are engine events (or their dicts). The computer and stopped numbers get nothing.
    ``hands_by_sms`` False: no hand or game summary to an SMS player (their turn message tells the hand's end, and
    the game's with its last tricks and last hand, issue 23 case 1).
    ``quiet``: the seats on their game page (:mod:`.presence`), who get nothing (the page shows it).
    ``lives``: the players' life hashes, if the caller has them (else ``look.life``).
    """
    dicts = [e if isinstance(e, dict) else to_dict(e) for e in events]
    if not any(d.get("type") in ("hand_scored", "game_ended") for d in dicts):
        return []
    out = []
    for seat in (0, 1):
        if seat in quiet:
            continue
        address = meta.seats[seat]
        if not address or is_bot(address):  # (the computer gets nothing)
            continue
        opp = look.name(opponent_of(meta, seat))
        shown = look.label(address, game_id)
        by_email = look.destination(  # their game messages go to a mailbox
            address, "hand_summary", "", (lives or {}).get(address)).channel == EMAIL
        for ctx in summaries_from_events(dicts, seat, opp, shown) if hands_by_sms or by_email else ():
            e = entry(look.config, look, address, "hand_summary", game_id=game_id, seat=seat, meta=meta,
                      meta_updates=meta_updates, **ctx)
            if e:
                out.append(e)
        ended = next((d for d in dicts if d.get("type") == "game_ended"), None)
        if ended is not None and (hands_by_sms or by_email):
            e = entry(look.config, look, address, "game_summary", game_id=game_id, seat=seat, meta=meta,
                      meta_updates=meta_updates,
                      h2h=look.head_to_head(address, opponent_of(meta, seat), game_id, ended["winner"], seat),
                      **game_summary(ended, seat, opp, shown, levels.level_of(opponent_of(meta, seat))))
            if e:
                out.append(e)
    return out

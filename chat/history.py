"""A player's page of their games (issue 46, ``/g/<token>/games``): each game they played or play, with its opponent,
the day it began, its result and score, its score sheet and a link to their own page of it; the head-to-head record
against each opponent.

Pure: :func:`game_entry` reads one game's events as the player may know them (:func:`spades.events.redact`; only
the scored hands and the game's end are used, so no card reaches the page), :func:`render_history` renders
``templates/web/history.html.j2`` in the player's language.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from babel.dates import format_date

from .render import environment, unforget


def game_entry(events: Iterable[Mapping[str, Any] | None], seat: int) -> dict[str, Any]:
    """One game's line for the player at ``seat``: ``sheet`` (a row a scored hand: ``hand``, ``me``, ``opp``, each a
    hand score's dict), ``scores`` (``me``, ``opp``: the totals now, or the final ones), ``result`` (``won``,
    ``lost`` or ``playing``) and ``reason`` (how it ended: score, floor, resigned, timeout; ``""`` under way)."""
    sheet: list[dict[str, Any]] = []
    scores = {"me": 0, "opp": 0}
    result, reason = "playing", ""
    for e in events:
        if not e:
            continue
        if e["type"] == "hand_scored":
            me, opp = e["scores"][seat], e["scores"][1 - seat]
            sheet.append({"hand": e["hand"], "me": me, "opp": opp})
            scores = {"me": me["game_total"], "opp": opp["game_total"]}
        elif e["type"] == "game_ended":
            result, reason = ("won" if e["winner"] == seat else "lost"), str(e.get("reason", ""))
            scores = {"me": e["scores"][seat], "opp": e["scores"][1 - seat]}
    return {"sheet": sheet, "scores": scores, "result": result, "reason": reason}


def day(ms: int, lang: str) -> str:
    """The day of a time in milliseconds (UTC) as ``lang`` writes a date (``Dec 4, 2026``, ``4 déc. 2026``)."""
    return format_date(datetime.fromtimestamp(ms / 1000, tz=timezone.utc).date(), "medium", locale=lang)


def render_history(lang: str, context: Mapping[str, Any]) -> str:
    """``templates/web/history.html.j2`` in ``lang``. Context: ``me`` (the player's name), ``games`` (newest first:
    a :func:`game_entry` with ``opp``, ``level``, ``day``, ``url``, ``current``), ``records`` (the head-to-head
    lines: ``opp``, ``me``, ``them``), ``back_url`` (the game page the player came from)."""
    ctx = unforget(context, lang)
    ctx["records"] = [unforget(r, lang) for r in ctx.get("records", [])]
    return environment(lang).get_template("web/history.html.j2").render(**ctx)

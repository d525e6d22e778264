"""What issue 46 adds to a seat's game page (:func:`service.web.game._page`): the link to the player's page of
their games (:mod:`.history`) and, once the game is over, its buttons (:mod:`.again`: ``REMATCH``, one level harder against
the computer, a new game against the computer), each in a partial of its own (``templates/web/_history_link``,
``_again``; the past hands, ``_past_hands``, come with :func:`chat.page.page_context`)."""

from __future__ import annotations

from typing import Any

from flask import request, url_for

from chat.names import is_forgotten

from ..games import levels
from ..games.seats import opponent_of
from ..records import GameMeta

#: what the finished game's page says after one of its buttons (``?again=``): the words are in ``_again.html.j2``
AGAIN_FLASHES = ("invited", "refused")


def page_parts(token: str, meta: GameMeta, seat: int) -> dict[str, Any]:
    """The web's part of the context the partials of issue 46 read (the past hands are :func:`chat.page.page_context`'s
    ``past``): ``history_url``, ``again`` (the finished game's buttons: ``url``, ``rematch``, ``harder`` (the level one up,
    against the computer), ``level``; None while the game is under way) and ``again_flash``."""
    opponent = opponent_of(meta, seat)
    again = None
    if meta.over:
        level = levels.level_of(opponent)
        again = {"url": url_for("again.again", token=token), "rematch": not is_forgotten(opponent), "level": level,
                 "harder": levels.step(level, 1) if level is not None else None}
    flash = request.args.get("again", "")
    return {"history_url": url_for("history_page.history", token=token), "again": again,
            "again_flash": flash if flash in AGAIN_FLASHES else ""}

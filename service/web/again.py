"""The buttons of a finished game's page (issue 46): ``POST /g/<token>/again``, ``REMATCH`` (the same level against
the computer), ``REMATCH HARDER`` (the next level) or ``NEW BOT`` (a new game against the computer).

A plain form (it works without JavaScript), checked as a move's is (:func:`.game.posted_form`: the page's form
token, from this site; 403 and nothing recorded otherwise) but for a game that is over, and recorded as the words
typed by SMS would be (:func:`.game.record_from_page`); the worker handles it exactly as the typed ``REMATCH`` or
``NEW BOT`` (:mod:`service.lifecycle.commands`). Its id is an HMAC of the page token, the form's token and the
words: the same form sent twice is one action, and a second ``REMATCH`` later is told the game it started goes on.
Once handled: a game under way at once (against the computer) is shown, the player's own page of it; an invitation
sent (to a person) or a refusal (said to them by their channel, as a typed one is) brings them back to this page
saying so.
"""

from __future__ import annotations

from flask import Blueprint, Response, request, url_for

from ..games.seats import seat_of
from ..lifecycle.invitations import game_id_for
from .game import _back, _sign, _svc, posted_form, record_from_page

bp = Blueprint("again", __name__)
WORDS = {"rematch": "REMATCH", "harder": "REMATCH HARDER", "bot": "NEW BOT"}


@bp.post("/g/<token>/again")
def again(token: str) -> Response:
    svc = _svc()
    checked = posted_form(svc.store, svc.players, svc.games, token, status="over")
    if isinstance(checked, Response):
        return checked
    game_id, seat, meta, _game = checked
    body = WORDS.get(str(request.form.get("again", "")))
    if body is None:
        return _back(token, "illegal", "again")
    sender = meta.seats[seat]
    message_id = f"page:{_sign(svc.store, 'again', token, request.form.get('csrf', ''), body)}"
    flash = record_from_page(svc.config, svc.store, token, game_id, seat, sender, message_id, body, "over")
    if flash in ("busy", "sent"):
        return _back(token, flash, "again")
    new_gid = game_id_for(message_id)
    started = svc.store.meta(new_gid)
    new_seat = seat_of(started, sender)
    if new_seat is None:
        return _seen(token, "refused")  # (the reason went to the player by their channel, as for a typed one)
    if started.get("status") != "active":
        return _seen(token, "invited")
    new_token = started.get(f"web{new_seat}") or svc.players.ensure_web_token(new_gid, new_seat)
    return _to(url_for("game_page.game_page", token=new_token))


def _seen(token: str, what: str) -> Response:
    return _to(url_for("game_page.game_page", token=token, again=what) + "#again")


def _to(target: str) -> Response:
    resp = Response(status=303, headers={"Location": target})
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp

"""The card colours of a player's game pages (issue 46): ``POST /g/<token>/colours``.

Two colours (spades and clubs black, hearts and diamonds red) or four (diamonds blue, clubs green). A plain form (it
works without JavaScript: 303 back to the page), refused like a move without the page's form token or from another
site (403, nothing stored). The choice is the player's (their record's ``colours``), so every page of theirs shows
it, reload after reload, in every game; it says nothing of any hand.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from .game import _back, _page, _seat_of_token, _svc, form_token_ok, same_site

bp = Blueprint("card_colours", __name__)
CHOICES = {"2": False, "4": True}  # the form's value -> four colours


@bp.post("/g/<token>/colours")
def colours(token: str) -> Response:
    svc = _svc()
    _game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    if not same_site() or not form_token_ok(svc.store, token, request.form.get("csrf", "")):
        return _page(token, "forbidden", 403)  # nothing stored; a fresh form to choose from
    choice = request.form.get("colours", "")
    if choice in CHOICES:
        svc.players.set_colours(meta.seats[seat], CHOICES[choice])
    return _back(token, "", "colours")  # a value the page never offers changes nothing

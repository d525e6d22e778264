"""The talk box of a seat's game page (``SAY``, issue 46): ``POST /g/<token>/say``.

A plain form (it works without JavaScript: 303 back to the page's talk), refused like a move (403, nothing
recorded) without the page's form token or from another site. The line is recorded as a message from the page
saying ``SAY <text>`` (:func:`service.web.take_inbound`; its id an HMAC of the page token, the form's token and the
text: the same form sent twice is one line), which the worker handles as any ``SAY``
(:mod:`service.lifecycle.talk`: relayed, trimmed, or refused with a reply by the player's channel). The page shows
the game's talk (:func:`service.lifecycle.talk.page_lines`).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from ..spool import SpoolError
from ..store import now_ms
from . import take_inbound
from .game import _back, _outcome, _page, _seat_of_token, _sign, _svc, form_token_ok, same_site

bp = Blueprint("talk_box", __name__)
MAX_TEXT = 1600  # what a page's line may carry at most to the worker (which trims it to one SMS segment)


@bp.post("/g/<token>/say")
def say(token: str) -> Response:
    svc = _svc()
    game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    csrf = request.form.get("csrf", "")
    if not same_site() or not form_token_ok(svc.store, token, csrf):
        return _page(token, "forbidden", 403)  # nothing recorded
    line = " ".join(str(request.form.get("text", "")).split())[:MAX_TEXT]
    if not line or meta.status not in ("active", "over"):
        return _back(token, "", "talk")
    sender = meta.seats[seat]
    message_id = f"page:{_sign(svc.store, 'say', token, csrf, line)}"
    fields = {"channel": "page", "from": sender, "to": "", "body": f"SAY {line}", "page": token, "ask": "say",
              "received": now_ms(), "status": "queued"}
    try:
        take_inbound(message_id, sender, fields, int(current_app.config["MESSAGE_TTL"]))
    except SpoolError:
        return _back(token, "busy", "talk")
    outcome = _outcome(svc.store, game_id, sender, message_id)  # (a line refused is answered by the player's channel)
    return _back(token, "busy" if outcome == "sent" else "", "talk")

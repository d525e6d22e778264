"""``GET /g/<token>``: a seat's private page of its game (issue 14, "Beyond").

The token (128 random bits, ``web<seat>`` of the game's meta, ``wtok:<token>`` -> ``<game id> <seat>``) names
one seat of one game; ``SLOWSPADES_PAGE_TTL_DAYS`` after the game ended (or after ``WEB`` renewed it) it answers
410, saying how to get a new link. The page shows only what that seat may see: the seat's
:class:`spades.game.PlayerView` and the game's events redacted for it (:func:`spades.events.redact`),
rendered by :mod:`chat.page` in the player's language. An unknown token is a 404. The page is not cached and
sends no referrer (its address is the secret).
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app

from chat.page import page_context, render_expired, render_page
from spades.events import from_dict, redact
from spades.game import fold, view

from ..addresses import page_expired
from ..games.players import lang_of, name_of

bp = Blueprint("game_page", __name__)


@bp.get("/g/<token>")
def game_page(token: str) -> Response:
    svc = current_app.extensions["slowspades"]
    found = svc.players.web_token(token)
    if found is None:
        abort(404)
    game_id, seat = found
    meta = svc.store.meta(game_id)
    if meta.get(f"web{seat}") != token:
        abort(404)
    if page_expired(meta, seat, svc.store.clock.now_ms(), float(svc.config.get("PAGE_TTL_DAYS") or 30)):
        lang = lang_of(svc, meta.get(f"seat{seat}", ""))
        gone = Response(render_expired(lang), status=410, mimetype="text/html")
        gone.headers["Cache-Control"] = "no-store"
        return gone
    events = [from_dict(se.event) for se in svc.store.load(game_id)]
    if not events:
        abort(404)  # an invitation not yet answered: no game to show
    v = view(fold(events), seat)
    me, opp = meta.get(f"seat{seat}", ""), meta.get(f"seat{1 - seat}", "")
    html = render_page(lang_of(svc, me), page_context(v, [redact(e, seat) for e in events], name_of(svc, me),
                                                      name_of(svc, opp)))
    resp = Response(html, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["X-Robots-Tag"] = "noindex"
    return resp

"""A player's page of their games (issue 46): ``GET /g/<token>/games``, reached from the game page.

The token is the game page's (:mod:`.game`): it names one seat of one game, and so the player who holds it; an
unknown token is a 404, an expired page a 410 as the game page is. The page lists that player's games that began
(under way and finished, newest first: :func:`chat.history.game_entry`) with the opponent, the day, the result, the
score and the score sheet, each linking to the player's own page of that game (their seat's token, never the
opponent's), and the head-to-head record against each opponent (:mod:`service.games.record`). Only scored hands
and the game's end are read, as the player may know them: no card of anyone's reaches it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, url_for

from chat.history import day, game_entry, render_history
from chat.page import render_expired, shown_name
from spades.events import from_dict, redact

from ..games import levels
from ..games.players import lang_of, name_of
from ..games.record import Record, add_game
from ..games.seats import opponent_of, seat_of
from ..store import UNREACHABLE as STORE_UNREACHABLE
from ..store import Players, Store
from .game import _expired, _no_store, _seat_of_token, _svc, storage_down

bp = Blueprint("history_page", __name__)


@bp.get("/g/<token>/games")
def history(token: str) -> Response:
    svc = _svc()
    game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    me = meta.seats[seat]
    lang = lang_of(svc.config, svc.players, me)
    if _expired(svc.config, svc.store, meta, seat):
        return _no_store(Response(render_expired(lang), status=410, mimetype="text/html"))
    record = Record()
    games = entries(svc.store, svc.players, me, lang, game_id, record)
    records = [{"opp": shown_name(name_of(svc.players, opp)), "me": won, "them": lost}
               for opp, (won, lost) in record.against.items()]
    ctx = {"me": name_of(svc.players, me), "games": games, "records": records,
           "back_url": url_for("game_page.game_page", token=token)}
    return _no_store(Response(render_history(lang, ctx), mimetype="text/html"))


def entries(store: Store, players: Players, address: str, lang: str, current: str,
            record: Record) -> list[dict[str, Any]]:
    """The player's games that began, newest first, each a :func:`chat.history.game_entry` with ``opp`` (the
    opponent's name as a page shows it), ``level`` (the computer's), ``day``, ``url`` (the player's own page of it)
    and ``current`` (the game whose page led here); each finished one counted into ``record`` from the same read of
    its events (:func:`service.games.record.add_game`)."""
    out: list[dict[str, Any]] = []
    for gid in players.games(address):
        meta = store.meta(gid)
        seat = seat_of(meta, address)
        if seat is None or meta.status not in ("active", "over"):
            continue
        logged = [se.event for se in store.load(gid)]
        if not logged:
            continue
        opponent = opponent_of(meta, seat)
        if meta.over:
            add_game(record, seat, opponent, logged)
        events = [redact(from_dict(e), seat) for e in logged]
        token = meta.of_seat("web", seat) or players.ensure_web_token(gid, seat)
        entry = game_entry(events, seat)
        entry.update(opp=shown_name(name_of(players, opponent)), level=levels.level_of(opponent),
                     day=day(meta.created_ms, lang), current=gid == current,
                     url=url_for("game_page.game_page", token=token))
        out.append(entry)
    return out


for _error in STORE_UNREACHABLE:
    bp.register_error_handler(_error, storage_down)

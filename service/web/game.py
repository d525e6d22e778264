"""A seat's private page of its game (issues 14 "Beyond" and 23): ``GET /g/<token>``, a place to play from.

The token (128 random bits, ``web<seat>`` of the game's meta, ``wtok:<token>`` -> ``<game id> <seat>``) names
one seat of one game; ``SLOWSPADES_PAGE_TTL_DAYS`` after the game ended (or after ``WEB`` renewed it) it answers
410, saying how to get a new link. The page shows only what that seat may see: the seat's
:class:`spades.game.PlayerView` and the game's events redacted for it (:func:`spades.events.redact`),
rendered by :mod:`chat.page` in the player's language, with the question the game asks them now and its legal
answers as buttons. An unknown token is a 404. The page is not cached and sends no referrer (its address is the
secret).

* ``POST /g/<token>/move``: a move from the page, a plain form (it works without JavaScript: 303 back to the
  page). Refused (403, nothing recorded) without the page's form token (:func:`form_token`: an HMAC of the page
  token and its time, with a key kept in Redis) or from another site (``Sec-Fetch-Site``, else ``Origin``; the
  page's own forms come with ``Origin: null``, its referrer policy: :func:`same_site`). A move
  that answers a question the game no longer asks, or that is not legal, is answered on the page and nothing is
  recorded. Otherwise it is recorded exactly as an SMS is (:func:`service.web.take_inbound`: the inbound record,
  its id claimed once, the ``handle_inbound`` task), with the page token and the question it answers; the id is
  an HMAC of both and the move, so the same form sent twice is one move. The worker applies it as any message
  (:mod:`service.inbound`, ``service.games``: one writer, the expected version, the same messages to the
  opponent); the request waits a moment for it, so the page it redirects to shows the move made.
* ``GET /g/<token>/poll``: the game's version and question, for ``page.js`` (``GET /page.js``) to reload the
  page's content when the game moved; each poll marks the seat as on its page (:mod:`service.games.presence`:
  no SMS or email about this game to them meanwhile), as does each move. 410 once the page answers 410.
* While Redis does not answer: 503 and a page saying to try again (a move: nothing was played), never a 500.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, current_app, jsonify, request, send_from_directory, url_for

from chat.languages import LANGUAGES
from chat.page import page_context, plan_board, render_busy, render_expired, render_page
from chat.questions import question_key
from spades.commands import Exchange
from spades.events import from_dict, redact
from spades.game import Game, view

from .. import conversation_port as port
from ..addresses import page_expired
from ..bootstrap import Dependencies
from ..caches import GameCache
from ..context import Config
from ..games import levels, presence
from ..games.ahead import plans_of
from ..games.players import lang_of, lang_of_record, name_of
from ..games.record import head_to_head
from ..games.seats import opponent_of
from ..lifecycle import talk
from ..records import GameMeta, PlayerRecord
from ..spool import SpoolError
from ..store import UNREACHABLE as STORE_UNREACHABLE
from ..store import Players, Store, game_owner, now_ms
from . import take_inbound
from .page_parts import page_parts
from .push_page import page_context as push_context

bp = Blueprint("game_page", __name__)
ASSETS = Path(__file__).with_name("page_assets")
FORM_TOKEN_DAYS = 2  # a page's form token is good this long (a page left open overnight still plays)
MOVE_WAIT_S = 4.0  # how long a move's request waits for the worker before redirecting (then "on its way")


def _svc() -> Dependencies:
    svc: Dependencies = current_app.extensions["slowspades"]
    return svc


def _sign(store: Store, *parts: str) -> str:
    return hmac.new(store.page_secret(), "|".join(parts).encode(), hashlib.sha256).hexdigest()[:32]


def form_token(store: Store, token: str, at_s: int | None = None) -> str:
    """The page's form token: its time and an HMAC of the page token with it (bound to this page, good for
    ``FORM_TOKEN_DAYS``); a cross-site form cannot read it, so cannot send it."""
    at = int(time.time()) if at_s is None else at_s
    return f"{at}.{_sign(store, 'form', token, str(at))}"


def form_token_ok(store: Store, token: str, given: str) -> bool:
    at, _, mac = given.partition(".")
    if not at.isdigit() or not mac or abs(time.time() - int(at)) > FORM_TOKEN_DAYS * 86400:
        return False
    return hmac.compare_digest(mac, _sign(store, "form", token, at))


def same_site() -> bool:
    """Whether the request comes from the service's own pages.

    ``Sec-Fetch-Site``, which every current browser sends whatever the referrer policy, must be ``same-origin``
    or ``none``; an ``Origin`` of another site is refused. An ``Origin``
    of ``null`` proves nothing either way: the page's own forms are posted with it, because the page sends
    ``Referrer-Policy: no-referrer`` (issue 45 case 1), and so are a sandboxed frame's, which browsers mark
    ``cross-site``. What a ``null`` origin is left with is the form token (:func:`form_token`, checked beside
    this): only a page the service rendered for this seat holds it, and the same-origin policy keeps another
    site from reading it."""
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if not origin or origin == "null":
        return True
    mine = {_origin(current_app.config["PUBLIC_BASE_URL"]), _origin(request.host_url)}
    return _origin(origin) in mine


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _seat_of_token(store: Store, players: Players, token: str) -> tuple[str, int, GameMeta]:
    """(game id, seat, meta) of a page token, or 404."""
    found = players.web_token(token)
    if found is None:
        abort(404)
    game_id, seat = found
    meta = store.meta(game_id)
    if meta.of_seat("web", seat) != token:
        abort(404)
    return game_id, seat, meta


def _no_store(resp: Response) -> Response:
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["X-Robots-Tag"] = "noindex"
    return resp  # the Content-Security-Policy (no inline script, forms to this site only): service/web/headers.py


def _game(games: GameCache, game_id: str) -> Game | None:
    game = games.load(game_id)
    return game if game.version else None  # an invitation not yet answered: no game to show


def _open(config: Config, store: Store, games: GameCache, game_id: str, seat: int, meta: GameMeta,
          shows: bool = False) -> Game:
    """The game a page shows (404 before it began), its seat marked as on its page while it is under way
    (``shows``: the page itself, which shows the game as it stands: the version it showed is kept)."""
    game = _game(games, game_id)
    if game is None:
        abort(404)
    if meta.status == "active":
        presence.mark_open(config, store, game_id, seat, game.version if shows else None)
    return game


@bp.get("/g/<token>")
def game_page(token: str) -> Response:
    return _page(token, request.args.get("m", ""))


def _page(token: str, flash: str = "", status: int = 200) -> Response:
    svc = _svc()
    game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    if _expired(svc.config, svc.store, meta, seat):
        lang = lang_of(svc.config, svc.players, meta.seats[seat])
        return _no_store(Response(render_expired(lang), status=410, mimetype="text/html"))
    game = _open(svc.config, svc.store, svc.games, game_id, seat, meta, shows=True)
    v = view(game, seat)
    me, opp = meta.seats[seat], opponent_of(meta, seat)
    record = svc.players.get(me) or PlayerRecord(me)
    lang = lang_of_record(svc.config, me, record)
    ctx = page_context(v, _redacted(svc.store, game_id, seat), name_of(svc.players, me), name_of(svc.players, opp))
    ctx.update(page_parts(token, meta, seat))  # the link to the player's games, the finished game's buttons
    ctx.update(board=plan_board(v, plans_of(meta)[seat], lang),  # the seat's own plan (RULES D12)
               plan_url=url_for("plan_board.plan", token=token) if meta.status == "active" else "")
    ctx.update(talk=talk.page_lines(svc.talk, game_id, seat),  # the talk (SAY) and its box: service.web.talk_box
               h2h=head_to_head(svc.store, svc.players, me, opp),  # the record between them (issue 46)
               say_url=url_for("talk_box.say", token=token) if meta.status in ("active", "over") else "")
    ctx.update(version=game.version, move_url=url_for("game_page.move", token=token),
               poll_url=url_for("game_page.poll", token=token), script_url=url_for("game_page.script"),
               csrf=form_token(svc.store, token), poll_every=presence.poll_seconds(svc.config),
               flash=flash if flash in FLASHES else "",
               level=levels.level_of(opp),  # the computer's, named with it (issue 45 case 10)
               colours_url=url_for("card_colours.colours", token=token), four=record.get("colours") == "4")
    ctx.update(push_context(token))  # "Notify me here" (Web Push): service.web.push_box
    return _no_store(Response(render_page(lang, ctx), status=status, mimetype="text/html"))


def _expired(config: Config, store: Store, meta: GameMeta, seat: int) -> bool:
    return page_expired(meta, seat, store.clock.now_ms(), float(config.get("PAGE_TTL_DAYS") or 30))


def storage_down(_exc: Exception) -> Response:
    """Redis does not answer: which seat a page token names cannot be read, so a move cannot be kept for later as an
    SMS is (issue 44 case 12). A page saying so, in the language the browser asks for (503, nothing played), or for
    ``page.js``'s poll a 503 it tries again after; never a bare 500."""
    if request.endpoint == "game_page.poll":
        resp = jsonify(retry=True)
    else:
        lang = request.accept_languages.best_match(LANGUAGES) or "en"
        resp = Response(render_busy(lang, request.method == "POST"), mimetype="text/html")
    resp.status_code = 503
    resp.headers["Retry-After"] = "30"
    return _no_store(resp)


for _error in STORE_UNREACHABLE:
    bp.register_error_handler(_error, storage_down)


#: what a page shows after a move (``?m=``): the words are in the template (``templates/web/game.html.j2``)
FLASHES = ("stale", "illegal", "sent", "forbidden", "busy", "planned", "plan_refused")


def _redacted(store: Store, game_id: str, seat: int) -> list[dict[str, Any] | None]:
    return [redact(from_dict(se.event), seat) for se in store.load(game_id)]


@bp.get("/g/<token>/poll")
def poll(token: str) -> Response:
    """The game's version and the question asked of this seat (``page.js`` reloads the page when they change);
    marks the seat as on its page. 410 once the page is (issue 44 case 12)."""
    svc = _svc()
    game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    if _expired(svc.config, svc.store, meta, seat):
        resp = jsonify(gone=True)
        resp.status_code = 410
        resp.headers["Cache-Control"] = "no-store"
        return resp
    game = _open(svc.config, svc.store, svc.games, game_id, seat, meta)
    v = view(game, seat)
    resp = jsonify(v=game.version, ask=question_key(v), my_turn=v.my_turn)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/page.js")
def script() -> Response:
    resp = send_from_directory(ASSETS, "page.js", mimetype="text/javascript", max_age=300)
    return resp


def posted_form(store: Store, players: Players, games: GameCache, token: str,
                status: str = "active") -> tuple[str, int, GameMeta, Game] | Response:
    """The game a form of the page of ``token`` acts in (its id, the seat, its meta, its state), or the answer that
    refuses it: 403 with a fresh page from another site or without the page's form token, a redirect saying "stale"
    when the game is not ``status`` (under way; ``over`` for a finished game's buttons, :mod:`.again`). Nothing is
    recorded either way (a move, a plan: :mod:`.plan_board`)."""
    game_id, seat, meta = _seat_of_token(store, players, token)
    if not same_site() or not form_token_ok(store, token, request.form.get("csrf", "")):
        return _page(token, "forbidden", 403)  # nothing recorded; a fresh form to play from
    game = _game(games, game_id)
    if game is None or meta.status != status:
        return _back(token, "stale")
    return game_id, seat, meta, game


@bp.post("/g/<token>/move")
def move(token: str) -> Response:
    svc = _svc()
    checked = posted_form(svc.store, svc.players, svc.games, token)
    if isinstance(checked, Response):
        return checked
    game_id, seat, meta, game = checked
    v = view(game, seat)
    if request.form.get("ask", "") != question_key(v):
        return _back(token, "stale")  # the game asks another question now: nothing played
    body = move_text(request.form)
    said = port.parse_text(body, "en")
    command = None if said.is_unknown else said.command(seat, game.phase)
    legal = command is not None and (_swap_ok(command, v.hand) if isinstance(command, Exchange)
                                     else command in v.legal)
    if not legal:
        return _back(token, "illegal")
    ask = question_key(v)
    message_id = f"page:{_sign(svc.store, 'move', token, ask, body)}"  # the same form sent twice: one move
    outcome = record_from_page(svc.config, svc.store, token, game_id, seat, meta.seats[seat], message_id, body, ask)
    return _back(token, outcome)


def record_from_page(config: Config, store: Store, token: str, game_id: str, seat: int, sender: str, message_id: str,
                     body: str,
                     ask: str) -> str:
    """Record what the page of ``token`` sent (``body``, as an SMS would say it) exactly as an SMS is recorded
    (:func:`service.web.take_inbound`), the question it answers with it (``ask``), and wait a moment for the worker
    (:func:`_outcome`); the seat is marked as on its page first, so the messages it causes leave this player alone.
    Returns the flash to redirect with (``busy``: not even the spool took it, nothing recorded)."""
    presence.mark_moved(config, store, game_id, seat)
    fields = {"channel": "page", "from": sender, "to": "", "body": body, "page": token, "ask": ask,
              "received": now_ms(), "status": "queued"}
    try:
        take_inbound(message_id, sender, fields, int(current_app.config["MESSAGE_TTL"]))
    except SpoolError:
        return "busy"
    return _outcome(store, game_id, sender, message_id)


def move_text(form: Any) -> str:
    """What an SMS would say for the page's form: its ``move`` (``KEEP``, ``BID 4``, ``QH``...), and for ``SWAP``
    the cards ticked."""
    word = str(form.get("move", "")).strip().upper()[:12]
    if word == "SWAP":
        cards = [str(c).strip().upper()[:3] for c in form.getlist("card")][:13]
        return "SWAP " + (" ".join(cards) if cards else "NONE")
    return word


def _swap_ok(command: Exchange, hand: tuple[Any, ...]) -> bool:
    return len(command.cards) <= 3 and len(set(command.cards)) == len(command.cards) and set(command.cards) <= set(hand)


def _outcome(store: Store, game_id: str, sender: str, message_id: str) -> str:
    """Wait (``MOVE_WAIT_S`` at most) for the worker to handle the move: ``""`` once the game took it, ``stale``
    when it was refused (the game moved on in between), ``sent`` when it is still on its way."""
    deadline = time.monotonic() + MOVE_WAIT_S
    while time.monotonic() < deadline:
        if store.consumed(game_owner(game_id), message_id) is not None:
            return ""
        record = store.inbound(sender, message_id)
        if record is None or record.get("status") == "done":
            return "" if store.consumed(game_owner(game_id), message_id) is not None else "stale"
        time.sleep(0.02)
    return "sent"


def _back(token: str, flash: str, anchor: str = "ask") -> Response:
    """303 to the page (a reload shows the game, never posts again), saying ``flash`` if anything, at ``anchor``."""
    target = url_for("game_page.game_page", token=token, m=flash or None)
    resp = Response(status=303, headers={"Location": f"{target}#{anchor}"})
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp

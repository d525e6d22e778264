"""``GET /i/<token>`` and ``POST /i/<token>``: an invitation link opened in a browser (issue 43).

``NEW`` alone answers with this page's link (:mod:`service.lifecycle.invite_links`). The page names who invites
(their name, or their address masked) and the house rules, offers the same link for Telegram (``t.me/<bot>?start=``,
when a bot is named), and takes a phone number, WhatsApp number or email address. What is sent is recorded as the
inviter's ``NEW <that address> <the link's rules>`` (the inbound record of any message, handled by the worker): the
invitation then passes exactly the gate of any ``NEW`` (the countries, a valid number, the day's and the hour's
limits, STOP, role addresses) and the friend answers ``YES`` where it went. Only then do they play; their game's
private page comes with the game's first message. An address the gate refused gives the link back and the page says
so (the inviter is told why); a link taken, expired or of no invitation is 410 and says to ask for a new one.

Why no game "on this page only": a player with no address could not be told when it is their turn (a reminder or
a prompt goes to an address), so every seat keeps an address; a number or email typed here is never trusted as
the friend's until the friend answers from it.
"""

from __future__ import annotations

import hashlib
import time

from flask import Blueprint, Response, current_app, request

from chat.languages import LANGUAGES
from chat.names import display_name
from chat.render import environment

from ..addresses import TELEGRAM, BadAddress, parse_address
from ..bootstrap import Dependencies
from ..context import Config
from ..games.players import lang_of, name_of
from ..lifecycle import invite_links
from ..lifecycle.invitations import game_id_for
from ..spool import SpoolError
from ..store import Players, Store, now_ms
from ..store.invite_links import InviteLink
from . import take_inbound
from .sms import flood_answer

bp = Blueprint("invite_page", __name__)
WAIT_S = 4.0  # how long a sent address waits for the worker's verdict before "on its way"
ADDRESS_MAX = 120  # what the form's field takes


def _svc() -> Dependencies:
    svc: Dependencies = current_app.extensions["slowspades"]
    return svc


def _page(config: Config, players: Players, link: InviteLink | None, state: str, status: int = 200,
          typed: str = "",
          to: str = "") -> Response:
    """The page in the browser's language (else the inviter's): ``state`` is ``ask``, ``bad``, ``sent``,
    ``refused``, ``gone`` or ``busy``."""
    lang = request.accept_languages.best_match(LANGUAGES) or (lang_of(config, players, link.inviter) if link else "en")
    ctx = {"lang": lang, "state": state, "typed": typed, "to": to, "name": "", "target": 500, "rules": "",
           "tg_url": ""}
    if link is not None:
        rules = invite_links.house_rules(link)
        ctx.update(name=display_name(name_of(players, link.inviter), TELEGRAM), target=rules.target,
                   tg_url=invite_links.telegram_url(config, link.token), bags=rules.failed_nil_bags, floor=rules.floor,
                   alternating=not rules.simultaneous_draw)
    html = environment(lang).get_template("web/invite_link.html.j2").render(**ctx)
    resp = Response(html, status=status, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/i/<token>")
def invite_page(token: str) -> Response:
    svc = _svc()
    link = invite_links.usable(svc.store, svc.invite_links, token)
    return _page(svc.config, svc.players, link, "ask") if link is not None else _page(svc.config, svc.players, None,
                                                                                      "gone", 410)


@bp.post("/i/<token>")
def invite_take(token: str) -> Response:
    """An address for the invitation: the inviter's ``NEW <address>``, recorded once per (link, address)."""
    svc = _svc()
    typed = str(request.form.get("address", ""))[:ADDRESS_MAX].strip()
    try:
        address = parse_address(typed, svc.config.get("DEFAULT_REGION", "US")).value
    except BadAddress:
        address = ""
    message_id = f"ilink:{token}:{hashlib.sha256(address.encode()).hexdigest()[:16]}"
    game_id = game_id_for(message_id)
    link = invite_links.usable(svc.store, svc.invite_links, token,
                               game_id)  # the same address sent again: the same invitation
    if link is None:
        return _page(svc.config, svc.players, None, "gone", 410)
    if not address:
        return _page(svc.config, svc.players, link, "bad", 400, typed=typed)
    dropped, _flood = flood_answer(link.inviter)  # what the page sends counts as the inviter's messages
    if dropped is not None or _flood:
        return _page(svc.config, svc.players, link, "busy", 429)
    if not svc.invite_links.take(token, game_id):
        return _page(svc.config, svc.players, None, "gone", 410)
    fields = {"channel": "page", "from": link.inviter, "to": "", "received": now_ms(), "status": "queued",
              "body": f"NEW {address} {invite_links.rules_words(link)}"}
    try:
        take_inbound(message_id, link.inviter, fields, int(current_app.config["MESSAGE_TTL"]))
    except SpoolError:
        svc.invite_links.release(token, game_id)
        return _page(svc.config, svc.players, link, "busy", 503)
    shown = display_name(address, TELEGRAM)
    verdict = _verdict(svc.store, link.inviter, message_id, game_id)
    if verdict == "refused":
        svc.invite_links.release(token, game_id)
    return _page(svc.config, svc.players, link, verdict, 200, to=shown)


def _verdict(store: Store, inviter: str, message_id: str, game_id: str) -> str:
    """``sent`` once the invitation exists, ``refused`` when the worker handled the ``NEW`` and made none,
    ``sent`` too while it is still on its way after :data:`WAIT_S` (the page says "on its way")."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if store.meta(game_id).get("status"):
            return "sent"
        record = store.inbound(inviter, message_id)
        if record is not None and record.get("status") == "done":
            return "sent" if store.meta(game_id).get("status") else "refused"
        time.sleep(0.05)
    return "sent"

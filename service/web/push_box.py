"""The game page's notifications (Web Push, issue 43): the page made installable, and "Notify me here".

* ``GET /g/<token>/manifest.webmanifest``: the page's web app manifest (``application/manifest+json``): its name,
  its start URL (the page itself), its icons; ``GET /push-sw.js``: the service worker that shows a push as a
  notification and opens the page it names when tapped; ``GET /push.js``: the page's script of the button, which
  asks the browser's permission, subscribes with the service's VAPID key and posts the subscription;
  ``GET /icon-<size>.png``.
* ``POST /g/<token>/push``: the subscription (``subscription``: the JSON of a ``PushSubscription``), refused like a
  move (403, nothing stored) without the page's form token or from another site; a body past
  :data:`BODY_MAX` is 413; a subscription :func:`service.webpush.parse_subscription` refuses (not https, a push
  service the operator does not allow, an internal address, bad keys) is 400 saying why, and nothing is stored or
  sent; a page past its time (410) takes none. A good one is kept (:mod:`service.store.push`) as a push address
  linked to the seat's player: from then on their prompts come to this browser first (:mod:`service.channels`),
  free. Sent twice: the same address, once. A player is notified in :data:`BROWSERS_MAX` browsers at most: a new one
  past it replaces the one that asked first.
  Answers are JSON: ``{"ok": true}`` or ``{"error": <reason>, "message": <what is allowed>}``.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, jsonify, request, send_from_directory, url_for

from .. import webpush
from ..addresses import PUSH, address_kind
from ..games.players import lang_of
from ..store import UNREACHABLE as STORE_UNREACHABLE
from .game import ASSETS, _expired, _no_store, _seat_of_token, _svc, form_token_ok, same_site, storage_down

bp = Blueprint("push_box", __name__)
BODY_MAX = 4096  # a form with a subscription (some 250 to 700 bytes) and the form token
BROWSERS_MAX = 5  # the browsers one player is notified in: a sixth replaces the one that asked first
ICONS = (192, 512)
#: what each refusal says is allowed (the page shows its own words for them, in the player's language)
REASONS = {
    "off": "This service does not send notifications.",
    "forbidden": "Only this game's page may ask for its notifications: reload the page and try again.",
    "expired": "This page has expired: text WEB for a new link, then ask again there.",
    "too_long": "A push subscription is at most 2 KB, with an endpoint of at most 1,024 characters.",
    "not_json": "A push subscription is the JSON of a PushSubscription: an endpoint and its keys.",
    "not_https": "A push endpoint must be an https URL.",
    "host_not_allowed": "A push endpoint must be at a browser's push service.",
    "private_address": "A push endpoint must be at a public address.",
    "bad_keys": "A push subscription needs a P-256 key (p256dh, 65 bytes) and an auth secret (16 bytes), base64url.",
}


def _refuse(status: int, reason: str) -> Response:
    resp = jsonify(error=reason, message=REASONS[reason])
    resp.status_code = status
    return _no_store(resp)


@bp.post("/g/<token>/push")
def subscribe(token: str) -> Response:
    svc = _svc()
    if (request.content_length or 0) > BODY_MAX:
        return _refuse(413, "too_long")  # read no further
    _game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    if not same_site() or not form_token_ok(svc.store, token, request.form.get("csrf", "")):
        return _refuse(403, "forbidden")
    if _expired(svc.config, svc.store, meta, seat):
        return _refuse(410, "expired")
    try:
        sub = webpush.parse_subscription(svc.config, str(request.form.get("subscription", "")).encode())
    except webpush.BadSubscription as exc:
        return _refuse({"off": 404, "too_long": 413}.get(exc.reason, 400), exc.reason)
    home = meta.seats[seat]
    browsers = [a for a in svc.links.route(home).links if address_kind(a) == PUSH and a != sub.address]
    for oldest in browsers[:max(0, len(browsers) - BROWSERS_MAX + 1)]:
        webpush.drop(svc.links, svc.push, oldest, "replaced")
    svc.push.save(sub.address, sub.endpoint, sub.p256dh, sub.auth, home)
    svc.links.attach(home, sub.address)
    resp = jsonify(ok=True)
    resp.status_code = 201
    return _no_store(resp)


@bp.get("/g/<token>/manifest.webmanifest")
def manifest(token: str) -> Response:
    svc = _svc()
    _game_id, seat, meta = _seat_of_token(svc.store, svc.players, token)
    page = url_for("game_page.game_page", token=token)
    body = {"name": "Slow Spades", "short_name": "Spades", "id": page, "start_url": page, "scope": page,
            "display": "standalone", "background_color": "#0b3d2e", "theme_color": "#0b3d2e",
            "lang": lang_of(svc.config, svc.players, meta.seats[seat]),
            "icons": [{"src": url_for("push_box.icon", size=s), "sizes": f"{s}x{s}", "type": "image/png",
                       "purpose": "any"} for s in ICONS]}
    return _no_store(Response(json.dumps(body), mimetype="application/manifest+json"))


@bp.get("/push-sw.js")
def service_worker() -> Response:
    resp = send_from_directory(ASSETS, "push-sw.js", mimetype="text/javascript", max_age=0)
    resp.headers["Cache-Control"] = "no-cache"  # a new worker is taken at the next visit
    return resp


@bp.get("/push.js")
def script() -> Response:
    return send_from_directory(ASSETS, "push.js", mimetype="text/javascript", max_age=300)


@bp.get("/icon-<int:size>.png")
def icon(size: int) -> Response:
    if size not in ICONS:
        return Response("no such icon", status=404, mimetype="text/plain")
    return send_from_directory(ASSETS, f"icon-{size}.png", mimetype="image/png", max_age=86400)


for _error in STORE_UNREACHABLE:
    bp.register_error_handler(_error, storage_down)

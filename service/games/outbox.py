"""Outbox entries: building one (SMS or email, with email threading), rendering the lifecycle's messages,
and writing replies and game notices once per message id.

Every text is rendered by ``chat`` (``chat.render``; the lifecycle's from ``templates/lifecycle/``, with
the same catalogues and SMS finishing pass), never built here.
"""

from __future__ import annotations

import uuid
from typing import Any

from chat.page import email_link
from chat.render import Rendered, refinish
from chat.render import render as chat_render

from ..addresses import EMAIL, WHATSAPP, address_kind, page_url, reply_address
from ..channels import WINDOW_CLOSED, destination
from ..context import Services
from ..conversation_port import named
from ..store import game_owner, keys, player_owner
from ..whatsapp import template_kind
from ..whatsapp import variables as template_variables
from .players import is_stopped, lang_of, seat_of
from .result import Outcome, Result


def outbound(svc: Services, address: str, rendered: Rendered, *, game_id: str | None = None,
             seat: int | None = None, meta: dict[str, str] | None = None,
             meta_updates: dict[str, str] | None = None, kind: str = "", about: str | None = None) -> dict[str, Any]:
    """An outbox entry for ``address`` (SMS, WhatsApp or email); email entries carry threading headers (the first
    message of a game to a seat starts its thread: ``thr<seat>`` is set in ``meta_updates``) and the link of
    the player's page of the game (issue 14, "Beyond"): of ``game_id``, or of ``about`` for a reply about a
    game that is written in the player's own outbox (``SCORE``, ``WEB``, an error).

    A WhatsApp address goes where :func:`service.channels.destination` says: free-form in its 24-hour window;
    outside it as an approved template (the entry's ``content_sid`` and ``content_variables``; its ``body`` the
    message as free-form would have said it), or by the player's next linked channel, the message finished
    for it (:func:`chat.render.refinish`); if nothing else takes it, the entry is marked ``window: closed`` and
    the delivery does not hand it to Twilio, which would refuse it."""
    channel = address_kind(address)
    if channel == WHATSAPP:
        lang = lang_of(svc, address)
        dest = destination(svc, address, template_kind(kind, bool(rendered.replies)), lang)
        if dest.address != address:  # fell back to a linked channel: the entry says whose it is (``home``)
            return dict(outbound(svc, dest.address, refinish(rendered, dest.channel, lang), game_id=game_id, seat=seat,
                                 meta=meta, meta_updates=meta_updates, kind=kind, about=about), home=address)
    entry: dict[str, Any] = {"channel": channel, "to": address, "body": rendered.text, "kind": kind}
    if channel == WHATSAPP:
        if dest.template is not None:
            entry["content_sid"] = dest.template.sid
            entry["content_variables"] = template_variables(rendered.text)
        elif dest.held == WINDOW_CLOSED:
            entry["window"] = "closed"
    if game_id:
        entry["game"] = game_id
    if channel == EMAIL:
        domain = svc.config["MAIL_DOMAIN"]
        entry["subject"] = rendered.subject or "Slow Spades"
        entry["html"] = rendered.html or ""
        entry["message_id"] = f"<{uuid.uuid4().hex}@{domain}>"
        if game_id is not None and seat is not None and meta is not None:
            token = meta.get(f"tok{seat}")
            if token:
                entry["reply_to"] = reply_address(token, domain)
            root = f"<game-{game_id}.{seat}@{domain}>"
            if meta.get(f"thr{seat}") or (meta_updates or {}).get(f"thr{seat}"):
                entry["in_reply_to"] = root
                entry["references"] = root
            else:
                entry["message_id"] = root
                if meta_updates is not None:
                    meta_updates[f"thr{seat}"] = "1"
        if "reply_to" not in entry and not keys.is_bot(address):  # no game's: the player's own reply address
            entry["reply_to"] = reply_address(svc.players.own_reply_token(address), domain)
        if game_id or about:
            _link_page(svc, entry, address, game_id or about or "", seat, meta, meta_updates)
    return entry


def _link_page(svc: Services, entry: dict[str, Any], address: str, game_id: str, seat: int | None,
               meta: dict[str, str] | None, meta_updates: dict[str, str] | None) -> None:
    """Add to an email the link of ``address``'s page of ``game_id`` (none before the game is under way)."""
    if meta is None:
        meta = svc.store.meta(game_id)
    if seat is None:
        seat = seat_of(meta, address)
    status = (meta_updates or {}).get("status") or meta.get("status", "")
    if seat is None or status in ("", "invited"):  # an invitation: no game to show yet
        return
    web = meta.get(f"web{seat}") or svc.players.ensure_web_token(game_id, seat)
    entry["body"], entry["html"] = email_link(lang_of(svc, address), page_url(svc.config["PUBLIC_BASE_URL"], web),
                                              entry["body"], entry["html"])


def render(name: str, lang: str, channel: str, **context: Any) -> Rendered:
    """Render ``templates/lifecycle/<channel>/<name>`` exactly as chat renders its own templates (the
    opponent's name as the channel shows it: ``conversation_port.named``)."""
    return chat_render(name, lang, channel, family="lifecycle", **named(context, channel))


def entry(svc: Services, address: str, name: str, *, game_id: str | None = None, seat: int | None = None,
          meta: dict[str, str] | None = None, meta_updates: dict[str, str] | None = None,
          rendered: Rendered | None = None, even_if_stopped: bool = False, **context: Any) -> dict[str, Any] | None:
    """The outbox entry of message ``name`` to ``address`` (a lifecycle template unless ``rendered`` is
    given); None for the computer or a stopped number (unless ``even_if_stopped``)."""
    if keys.is_bot(address) or (not even_if_stopped and is_stopped(svc, address)):
        return None
    if rendered is None:
        rendered = render(name, lang_of(svc, address), address_kind(address), **context)
    return outbound(svc, address, rendered, game_id=game_id, seat=seat, meta=meta, meta_updates=meta_updates,
                    kind=name)


def send_reply(svc: Services, address: str, message_id: str, entries: list[dict[str, Any] | None],
               outcome: Outcome | str, game_id: str | None = None) -> Result:
    """Write ``entries`` (those not None) in ``address``'s own outbox, once for ``message_id``."""
    kept = [e for e in entries if e is not None]
    res = svc.store.append(player_owner(address), -1, message_id=message_id, outbox=kept)
    return Result(res.outbox_ids, Outcome(outcome) if res.ok else Outcome.DUPLICATE, game_id)


def reply_rendered(svc: Services, address: str, message_id: str, rendered: Rendered, kind: str,
                   outcome: Outcome | str | None = None, game_id: str | None = None,
                   even_if_stopped: bool = True) -> Result:
    """A reply rendered already (``chat``), tied to no game, in the sender's own outbox, once per message id.
    An answer to the sender's own message goes even to a stopped number unless ``even_if_stopped`` is False."""
    e = (outbound(svc, address, rendered, kind=kind, about=game_id) if even_if_stopped
         else entry(svc, address, kind, rendered=rendered))
    return send_reply(svc, address, message_id, [e], outcome or kind, game_id)


def reply(svc: Services, address: str, message_id: str, name: str, outcome: Outcome | None = None,
          **context: Any) -> Result:
    """A lifecycle reply (template ``name``) tied to no game, in the sender's own outbox, once per message id;
    its outcome is ``outcome``, else the template's name."""
    e = entry(svc, address, name, **context)
    if e is None:
        return Result([], Outcome.SUPPRESSED)
    return send_reply(svc, address, message_id, [e], outcome or name, context.get("game_id"))


def notify_game(svc: Services, game_id: str, message_id: str, messages: list[tuple[int, str, dict[str, Any]]],
                meta_updates: dict[str, str] | None = None, expected_version: int = -1) -> Result:
    """Write lifecycle messages about a game (``(seat, template, context)``) to the game's outbox, once."""
    meta = svc.store.meta(game_id)
    updates = dict(meta_updates or {})
    entries = []
    for seat, name, ctx in messages:
        address = meta.get(f"seat{seat}", "")
        e = entry(svc, address, name, game_id=game_id, seat=seat, meta=meta, meta_updates=updates, **ctx)
        if e is not None:
            entries.append(e)
    res = svc.store.append(game_owner(game_id), expected_version, [], message_id=message_id, outbox=entries,
                           meta=updates)
    return Result(res.outbox_ids, Outcome(res.status), game_id)

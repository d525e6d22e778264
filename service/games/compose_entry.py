"""One outbox entry, composed from data: :func:`outbound` (SMS, WhatsApp, email, Telegram, push; email threading,
the reply address, the page's link) and :func:`entry` (a lifecycle template, to where the player's messages go).

What an entry needs of the world it asks a :class:`~service.games.known.Lookups`: a move's
:class:`~service.games.known.Known` (read before composing: this module calls no gateway), or a lifecycle
message's :class:`~service.games.live_lookups.Live` (:mod:`.outbox`'s wrappers, which read as they ask).

Every text is rendered by ``chat`` (``chat.render``; the lifecycle's from ``templates/lifecycle/``, with
the same catalogues and SMS finishing pass), never built here. A message to a player goes where
:func:`service.channels.destination` says (one of their linked addresses, ``VIA``), a reply to the address that
wrote (:func:`service.channels.reply_to`), and is rendered for that address's channel; an entry to another
address than the player's home names the home too (``home``: :func:`recipient`).
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from chat.page import email_link
from chat.render import Rendered
from chat.render import render as chat_render

from ..addresses import EMAIL, PUSH, TELEGRAM, WHATSAPP, address_kind, is_bot, page_url, reply_address
from ..channels import WINDOW_CLOSED, Destination, reply_to
from ..context import Config
from ..conversation_port import named
from ..records import GameMeta, Route
from ..telegram import buttons as telegram_buttons
from ..whatsapp import variables as template_variables
from ..whatsapp_buttons import offered
from .known import Lookups

#: The answers a Telegram message offers as buttons when ``chat`` names none: a lifecycle question, by its kind
BUTTONS: dict[str, tuple[str, ...]] = {"invite": ("YES", "NO"), "confirm_resign": ("YES", "NO")}


def recipient(entry: dict[str, Any]) -> str:
    """The player an outbox entry is for (their home address), whichever of their addresses it goes to."""
    return str(entry.get("home") or entry["to"])


def outbound(config: Config, look: Lookups, address: str, rendered: Rendered, *,
             game_id: str | None = None,
             seat: int | None = None, meta: GameMeta | None = None,
             meta_updates: dict[str, str] | None = None, kind: str = "", about: str | None = None,
             home: str | None = None, to: Destination | None = None) -> dict[str, Any]:
    """An outbox entry for ``address`` (SMS, WhatsApp or email); email entries carry threading headers (the first
    message of a game to a seat starts its thread: ``thr<seat>`` is set in ``meta_updates``) and the link of
    the player's page of the game (issue 14, "Beyond"): of ``game_id``, or of ``about`` for a reply about a
    game that is written in the player's own outbox (``SCORE``, ``WEB``, an error). ``home``: the player, when
    ``address`` is another of their addresses (linked: :mod:`service.channels`).

    ``to``: the destination :func:`service.channels.destination` chose for it, when the caller asked: a WhatsApp
    address outside its 24-hour window goes as the approved template it names (the entry's ``content_sid`` and
    ``content_variables``, :func:`service.whatsapp.variables`; its ``body`` the message as free text would have
    said it); a WhatsApp home the window step dropped with nothing else to take the message (``held``) is marked
    ``window: closed``, and the delivery does not hand it to Twilio, which would refuse it.

    A Telegram entry carries ``buttons``, the inline keyboard of the answers the message offers
    (``rendered.replies``, tagged with the game's question ``rendered.ask``; a lifecycle question's, :data:`BUTTONS`);
    so does a WhatsApp entry inside the window (not a template), when WhatsApp can show them
    (:func:`service.whatsapp_buttons.offered`), with its ``lang``."""
    channel = address_kind(address)
    entry: dict[str, Any] = {"channel": channel, "to": address, "body": rendered.text, "kind": kind}
    if home and home != address:
        entry["home"] = home
    home = home or address
    if to is not None and to.address == address:
        if to.template is not None:
            entry["content_sid"] = to.template.sid
            entry["content_variables"] = template_variables(rendered.text)
        elif to.held == WINDOW_CLOSED:
            entry["window"] = "closed"
    if game_id:
        entry["game"] = game_id
    whatsapp = channel == WHATSAPP and "content_sid" not in entry and "window" not in entry  # inside the window
    if channel == TELEGRAM or whatsapp:
        replies = rendered.replies or BUTTONS.get(kind, ())
        pairs = telegram_buttons(replies, game_id or about or "", rendered.ask) if replies else []
        if pairs and (not whatsapp or offered(pairs)):  # the answers it offers, one tap each (service.telegram)
            entry["buttons"] = pairs
            if whatsapp:  # a list's own words are in the message's language (service.whatsapp_buttons)
                entry["lang"] = rendered.lang or look.lang(home)
    if channel == PUSH and (game_id or about):  # a push opens the player's page of the game (service.webpush)
        web = look.web_token(home, game_id or about or "", seat, meta, meta_updates)
        if web:
            entry["url"] = page_url("", web)
    if channel == EMAIL:
        domain = config["MAIL_DOMAIN"]
        entry["subject"] = rendered.subject or "Slow Spades"
        entry["html"] = rendered.html or ""
        entry["message_id"] = f"<{uuid.uuid4().hex}@{domain}>"
        if game_id is not None and seat is not None and meta is not None:
            token = look.game_reply_token(game_id, seat, meta, address, home)
            if token:
                entry["reply_to"] = reply_address(token, domain)
            root = f"<game-{game_id}.{seat}@{domain}>"
            if meta.of_seat("thr", seat) or (meta_updates or {}).get(f"thr{seat}"):
                entry["in_reply_to"] = root
                entry["references"] = root
            else:
                entry["message_id"] = root
                if meta_updates is not None:
                    meta_updates[f"thr{seat}"] = "1"
        elif game_id or about:  # a reply about a game (HAND, an error, a refused move): a reply to it is a move
            token = look.game_reply_token(game_id or about or "", None, meta, address, home)
            if token:
                entry["reply_to"] = reply_address(token, domain)
        if "reply_to" not in entry and not is_bot(address):  # no game's: the address's own reply address
            entry["reply_to"] = reply_address(look.own_reply_token(address), domain)
        if game_id or about:
            _link_page(config, look, entry, home, game_id or about or "", seat, meta, meta_updates)
    return entry


def _link_page(config: Config, look: Lookups, entry: dict[str, Any], address: str, game_id: str, seat: int | None,
               meta: GameMeta | None, meta_updates: dict[str, str] | None) -> None:
    """Add to an email the link of ``address``'s page of ``game_id`` (none before the game is under way)."""
    web = look.web_token(address, game_id, seat, meta, meta_updates)
    if web:
        entry["body"], entry["html"] = email_link(look.lang(address),
                                                  page_url(config["PUBLIC_BASE_URL"], web),
                                                  entry["body"], entry["html"])


def render(name: str, lang: str, channel: str, ask: str = "", **context: Any) -> Rendered:
    """Render ``templates/lifecycle/<channel>/<name>`` exactly as chat renders its own templates (the
    opponent's name as the channel shows it: ``conversation_port.named``). ``replies`` and ``ask``: the answers it
    offers to a game's question (a reminder's: the prompt's), which its buttons carry."""
    return replace(chat_render(name, lang, channel, family="lifecycle", **named(context, channel)), ask=ask)


def entry(config: Config, look: Lookups, address: str, name: str, *,
          game_id: str | None = None, seat: int | None = None,
          meta: GameMeta | None = None, meta_updates: dict[str, str] | None = None,
          rendered: Rendered | None = None, even_if_stopped: bool = False, to: Destination | None = None,
          **context: Any) -> dict[str, Any] | None:
    """The outbox entry of message ``name`` to the player ``address`` (their home), at the address
    :func:`~service.channels.destination` chooses, rendered for its channel (a lifecycle template). ``to``: that
    destination, if the caller asked already (it rendered ``rendered`` for its channel); else a message
    ``rendered`` already is a reply (rendered for :func:`~service.channels.reply_channel`) and goes to
    :func:`~service.channels.reply_to`. None for the computer, or when the address chosen sent STOP (unless
    ``even_if_stopped``)."""
    if is_bot(address):
        return None
    life = look.life(address)
    route = Route.of(address, life)
    if rendered is None:
        lang = look.lang(address)
        to = to or look.destination(address, name, lang, life)  # (its template, if any: the whatsapp step's)
        rendered = render(name, lang, to.channel, **context)
    elif to is None:
        to = Destination.to(reply_to(address))
    if not even_if_stopped and route.is_off(to.address):
        return None
    return outbound(config, look, to.address, rendered, game_id=game_id, seat=seat, meta=meta,
                    meta_updates=meta_updates,
                    kind=name, home=address, to=to)

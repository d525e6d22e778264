"""Outbox entries: building one (SMS or email, with email threading), rendering the lifecycle's messages,
and writing replies and game notices once per message id.

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
from ..channels import WINDOW_CLOSED, Destination, destination, reply_to
from ..context import Config
from ..conversation_port import named
from ..records import GameMeta, Route
from ..store import Players, Reach, Store, game_owner, player_owner
from ..store.links import Links
from ..telegram import buttons as telegram_buttons
from ..whatsapp import variables as template_variables
from ..whatsapp_buttons import offered
from .players import lang_of
from .result import Outcome, Result
from .seats import seat_of

#: The answers a Telegram message offers as buttons when ``chat`` names none: a lifecycle question, by its kind
BUTTONS: dict[str, tuple[str, ...]] = {"invite": ("YES", "NO"), "confirm_resign": ("YES", "NO")}


def recipient(entry: dict[str, Any]) -> str:
    """The player an outbox entry is for (their home address), whichever of their addresses it goes to."""
    return str(entry.get("home") or entry["to"])


def outbound(config: Config, store: Store, players: Players, address: str, rendered: Rendered, *,
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
                entry["lang"] = rendered.lang or lang_of(config, players, home)
    if channel == PUSH and (game_id or about):  # a push opens the player's page of the game (service.webpush)
        web = _web_token(store, players, home, game_id or about or "", seat, meta, meta_updates)
        if web:
            entry["url"] = page_url("", web)
    if channel == EMAIL:
        domain = config["MAIL_DOMAIN"]
        entry["subject"] = rendered.subject or "Slow Spades"
        entry["html"] = rendered.html or ""
        entry["message_id"] = f"<{uuid.uuid4().hex}@{domain}>"
        if game_id is not None and seat is not None and meta is not None:
            token = _game_reply_token(store, players, game_id, seat, meta, address, home)
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
            token = _game_reply_token(store, players, game_id or about or "", None, meta, address, home)
            if token:
                entry["reply_to"] = reply_address(token, domain)
        if "reply_to" not in entry and not is_bot(address):  # no game's: the address's own reply address
            entry["reply_to"] = reply_address(players.own_reply_token(address), domain)
        if game_id or about:
            _link_page(config, store, players, entry, home, game_id or about or "", seat, meta, meta_updates)
    return entry


def _game_reply_token(store: Store, players: Players, game_id: str, seat: int | None, meta: GameMeta | None,
                      address: str,
                      home: str) -> str | None:
    """The reply token of ``home``'s seat in ``game_id`` for an email to ``address`` (issue 45 case 2: every email
    that may ask for a move takes a move by reply): the seat's (an email player's, made with the game), or for a
    player's linked mailbox one made once; None when ``home`` holds no seat (or is the computer)."""
    if is_bot(home):
        return None
    if meta is None or seat is None:
        meta = store.meta(game_id) if meta is None else meta
        seat = seat_of(meta, home)
        if seat is None:
            return None
    token = meta.of_seat("tok", seat)
    if not token and home != address:  # a player's linked mailbox: the seat's own reply address, made once
        token = players.ensure_reply_token(game_id, seat, home)
    return token or None


def _link_page(config: Config, store: Store, players: Players, entry: dict[str, Any], address: str, game_id: str,
               seat: int | None,
               meta: GameMeta | None, meta_updates: dict[str, str] | None) -> None:
    """Add to an email the link of ``address``'s page of ``game_id`` (none before the game is under way)."""
    web = _web_token(store, players, address, game_id, seat, meta, meta_updates)
    if web:
        entry["body"], entry["html"] = email_link(lang_of(config, players, address),
                                                  page_url(config["PUBLIC_BASE_URL"], web),
                                                  entry["body"], entry["html"])


def _web_token(store: Store, players: Players, address: str, game_id: str, seat: int | None,
               meta: GameMeta | None,
               meta_updates: dict[str, str] | None) -> str:
    """The page token of ``address``'s seat in ``game_id`` (made once); ``""`` before the game is under way."""
    if meta is None:
        meta = store.meta(game_id)
    if seat is None:
        seat = seat_of(meta, address)
    status = (meta_updates or {}).get("status") or meta.status
    if seat is None or status in ("", "invited"):  # an invitation: no game to show yet
        return ""
    return meta.of_seat("web", seat) or players.ensure_web_token(game_id, seat)


def render(name: str, lang: str, channel: str, ask: str = "", **context: Any) -> Rendered:
    """Render ``templates/lifecycle/<channel>/<name>`` exactly as chat renders its own templates (the
    opponent's name as the channel shows it: ``conversation_port.named``). ``replies`` and ``ask``: the answers it
    offers to a game's question (a reminder's: the prompt's), which its buttons carry."""
    return replace(chat_render(name, lang, channel, family="lifecycle", **named(context, channel)), ask=ask)


def entry(config: Config, store: Store, players: Players, links: Links, reach: Reach, address: str, name: str, *,
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
    life = store.player_life(address)
    route = Route.of(address, life)
    if rendered is None:
        lang = lang_of(config, players, address)
        to = to or destination(config, store, links, reach, address, name, lang,
                               life=life)  # (its template, if any: the whatsapp step's)
        rendered = render(name, lang, to.channel, **context)
    elif to is None:
        to = Destination.to(reply_to(address))
    if not even_if_stopped and route.is_off(to.address):
        return None
    return outbound(config, store, players, to.address, rendered, game_id=game_id, seat=seat, meta=meta,
                    meta_updates=meta_updates,
                    kind=name, home=address, to=to)


def send_reply(store: Store, address: str, message_id: str, entries: list[dict[str, Any] | None],
               outcome: Outcome | str, game_id: str | None = None) -> Result:
    """Write ``entries`` (those not None) in ``address``'s own outbox, once for ``message_id``."""
    kept = [e for e in entries if e is not None]
    res = store.append(player_owner(address), -1, message_id=message_id, outbox=kept)
    return Result(res.outbox_ids, Outcome(outcome) if res.ok else Outcome.DUPLICATE, game_id)


def reply_rendered(config: Config, store: Store, players: Players, links: Links, reach: Reach, address: str,
                   message_id: str, rendered: Rendered, kind: str,
                   outcome: Outcome | str | None = None, game_id: str | None = None,
                   even_if_stopped: bool = True) -> Result:
    """A reply rendered already (``chat``, for :func:`~service.channels.reply_channel`), tied to no game, in the
    sender's own outbox, once per message id, to the address that wrote (:func:`~service.channels.reply_to`). An answer to the sender's own message goes even to a stopped number unless ``even_if_stopped`` is False."""
    e = (outbound(config, store, players, reply_to(address), rendered, kind=kind, about=game_id,
                  home=address) if even_if_stopped
         else entry(config, store, players, links, reach, address, kind, rendered=rendered))
    return send_reply(store, address, message_id, [e], outcome or kind, game_id)


def reply(config: Config, store: Store, players: Players, links: Links, reach: Reach, address: str, message_id: str,
          name: str, outcome: Outcome | None = None,
          **context: Any) -> Result:
    """A lifecycle reply (template ``name``) tied to no game, in the sender's own outbox, once per message id;
    its outcome is ``outcome``, else the template's name."""
    e = entry(config, store, players, links, reach, address, name, **context)
    if e is None:
        return Result([], Outcome.SUPPRESSED)
    return send_reply(store, address, message_id, [e], outcome or name, context.get("game_id"))


def notify_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, game_id: str,
                message_id: str, messages: list[tuple[int, str, dict[str, Any]]],
                meta_updates: dict[str, str] | None = None, expected_version: int = -1) -> Result:
    """Write lifecycle messages about a game (``(seat, template, context)``) to the game's outbox, once."""
    meta = store.meta(game_id)
    updates = dict(meta_updates or {})
    entries = []
    for seat, name, ctx in messages:
        address = meta.seats[seat]
        e = entry(config, store, players, links, reach, address, name, game_id=game_id, seat=seat, meta=meta,
                  meta_updates=updates, **ctx)
        if e is not None:
            entries.append(e)
    res = store.append(game_owner(game_id), expected_version, [], message_id=message_id, outbox=entries, meta=updates)
    return Result(res.outbox_ids, Outcome(res.status), game_id)

"""An invitation taken on Telegram: the ``t.me/<bot>?start=<token>`` link an invitation carries, and ``/start
<token>`` when the friend opens it.

With ``SLOWSPADES_TELEGRAM_BOT_NAME`` set, the invitation to a friend who is not on Telegram carries a link to the
bot (:func:`invite_link`) whose token was issued for that friend's address (a reply token of the game
:data:`START`, :meth:`service.store.players.Players.new_reply_token`: 128 bits, only in that invitation). Opened in
Telegram, it sends ``/start <token>`` from the friend's chat (:mod:`service.web.telegram` records the token). The
chat is then linked to the invited address as ``LINK`` would link it (:mod:`service.lifecycle.linking`: the
address's ``home`` written by the link code's own script, then the home's side), and the player's prompts go there
first (``VIA`` that chat): the friend answers the invitation and plays on Telegram, one tap a move. Having the token
is the proof, as receiving a link code is: it went only to the invited address. A token of no invitation, or a chat
that plays or acts for someone already, links nothing, and the answer says so (``link_failed``, ``link_refused``).
(The token of a link ``NEW`` alone made is :func:`service.lifecycle.invite_links.take`'s: the chat invited.)
"""

from __future__ import annotations

from typing import Any

from chat.names import display_name

from ..addresses import TELEGRAM, address_kind
from ..caches import SeatCache
from ..channels import Destination
from ..context import Config
from ..games import outbox
from ..games.players import lang_of, name_of, unfinished_games
from ..games.result import Outcome, Result
from ..store import Links, Players, Reach, Store
from . import settings

#: the "game" a start token is issued for (its reply-token record names it with the invited address)
START = "tg-start"


def invite_link(config: Config, players: Players, invitee: str) -> str:
    """The link that lets ``invitee`` take their invitation on Telegram (``""``: no bot named, or a Telegram chat
    already)."""
    bot = str(config.get("TELEGRAM_BOT_NAME") or "").lstrip("@")
    if not bot or address_kind(invitee) == TELEGRAM:
        return ""
    return f"https://t.me/{bot}?start={players.new_reply_token(START, invitee)}"


def _free(store: Store, players: Players, links: Links, chat: str) -> bool:
    """Whether the chat may be linked: it acts for nobody, has no linked addresses and no game or invitation."""
    return links.home(chat) == chat and not links.route(chat).links and not unfinished_games(store, players, chat)


def take(config: Config, store: Store, players: Players, links: Links, reach: Reach, seats: SeatCache, message_id: str,
         sender: str, origin: str, token: str) -> Result:
    """``/start <token>`` from the Telegram chat ``origin`` (``sender``: who it acts for now, itself unless linked)."""
    found = players.reply_token(token)
    if found is None or found[0] != START:
        rendered = outbox.render("link_failed", lang_of(config, players, sender), TELEGRAM, reason="none")
        return outbox.reply_rendered(config, store, players, links, reach, sender, message_id, rendered, "link_failed",
                                     Outcome.LINK_FAILED)
    home = found[1]
    if sender != home and (sender != origin or not _free(store, players, links,
                                                         origin)):  # it plays, or acts for another
        out = outbox.reply(config, store, players, links, reach, sender, message_id, "link_refused",
                           Outcome.LINK_REFUSED, reason="taken",
                           addr="Telegram")
        return Result(out.outbox_ids, Outcome.LINK_REFUSED)
    if sender != home:  # the address's side first, by the link code's own script (LINK's), then the home's
        now = store.clock.now_ms()
        code = links.new_code(home, origin, now, int(settings.get(config, "LINK_CODE_TTL")))
        check = links.take_code(origin, code, now, int(settings.get(config, "LINK_CODE_TRIES")))
        if check.status not in ("ok", "linked") or check.home != home:
            rendered = outbox.render("link_failed", lang_of(config, players, home), TELEGRAM, reason=check.status)
            return outbox.reply_rendered(config, store, players, links, reach, sender, message_id, rendered,
                                         "link_failed", Outcome.LINK_FAILED)
    links.add_link(home, origin)  # idempotent: a retry writes it once
    links.set_via(home, origin)  # the player's prompts to this chat first
    seats.note_home(origin, home)
    context: dict[str, Any] = {"here": True, "who": display_name(name_of(players, home), TELEGRAM), "kind": "TELEGRAM"}
    here = outbox.entry(config, store, players, links, reach, home, "linked", to=Destination.to(origin),
                        even_if_stopped=False, **context)
    return outbox.send_reply(store, home, message_id, [here], Outcome.LINKED)

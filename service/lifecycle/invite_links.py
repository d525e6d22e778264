"""Invitations by link (issue 43): ``NEW`` alone answers with a link a friend can open anywhere.

``NEW`` (with house rules or none: ``NEW TO 300 BAGS``) from any channel makes a link (:func:`offer`; a 128-bit token
kept by :mod:`service.store.invite_links`, ``INVITE_TTL`` long, taken once) and answers with it: the link's page,
``<PUBLIC_BASE_URL>/i/<token>`` (:mod:`service.web.invite_page`), which opens in any browser, and, with
``SLOWSPADES_TELEGRAM_BOT_NAME`` set, the bot's ``https://t.me/<bot>?start=<token>``. Whoever takes the link is
invited by the inviter exactly as ``NEW <their address>`` would invite them (:func:`take`,
:func:`service.lifecycle.invitations.invite`): the abuse limits, STOP, the countries and the role addresses apply
to every address a link brings in, and the friend answers ``YES`` (a tap on Telegram) to start the game.

* Opened in Telegram, the link sends ``/start <token>`` from the friend's chat: the chat is invited (the chat's
  player, if the chat acts for a linked home).
* Opened in a browser, the page names the inviter and the house rules, offers the Telegram link, and takes a phone
  number, WhatsApp number or email address: the invitation goes there, as ``NEW <that address>`` from the inviter.

A link taken once (or expired) invites nobody more, and says so. An invitation the gate refused gives the link
back (the friend may try another address; the inviter is told why, as for any ``NEW``), :data:`GIVEN_BACK_MAX`
times at most.
"""

from __future__ import annotations

import json

from spades.events import HouseRules

from .. import limits
from ..caches import GameCache
from ..context import Config, DealerFactory
from ..games import outbox
from ..games.result import Outcome, Result
from ..store import Links, Players, Reach, Store
from ..store.invite_links import InviteLink, InviteLinks
from . import invitations, settings

#: how many refused invitations a link is given back after (then it is spent: every refusal is a message to the
#: inviter, which no one holding the link may make unending)
GIVEN_BACK_MAX = 3
#: what a link that invited someone answers with (an invitation sent, held for tomorrow, or one waiting already)
_TAKEN = (Outcome.INVITED, Outcome.INVITE_HELD, Outcome.INVITE_PENDING, Outcome.DUPLICATE)


def page_url(config: Config, token: str) -> str:
    """The link's page, for a browser."""
    return f"{config['PUBLIC_BASE_URL']}/i/{token}"


def telegram_url(config: Config, token: str) -> str:
    """The link for Telegram (``""``: no bot named)."""
    bot = str(config.get("TELEGRAM_BOT_NAME") or "").lstrip("@")
    return f"https://t.me/{bot}?start={token}" if bot else ""


def _days(config: Config) -> int:
    return max(1, round(int(settings.get(config, "INVITE_TTL")) / 86400))


def offer(config: Config, store: Store, players: Players, links: Links, reach: Reach, invite_links: InviteLinks,
          message_id: str, sender: str, rules: HouseRules) -> Result:
    """``NEW`` alone: a link for a friend, or the day's limit."""
    now_ms = store.clock.now_ms()
    refused = limits.invite_link_refusal(config, store, sender, message_id, now_ms / 1000)
    if refused is not None:
        return outbox.reply(config, store, players, links, reach, sender, message_id,
                            refused.template, **refused.context)
    expires = now_ms + int(settings.get(config, "INVITE_TTL")) * 1000
    token = invite_links.issue(message_id, sender, json.dumps(rules.to_dict(), separators=(",", ":")), expires, now_ms)
    return outbox.reply(config, store, players, links, reach, sender, message_id, "invite_link",
                        Outcome.OK, url=page_url(config, token),
                        tg_url=telegram_url(config, token), days=_days(config), target=rules.target)


def usable(store: Store, invite_links: InviteLinks, token: str, game_id: str = "") -> InviteLink | None:
    """The link of ``token`` if it can still be taken (for ``game_id``: taken by it already, a retry)."""
    link = invite_links.get(token)
    if link is None or store.clock.now_ms() >= link.expires or (link.game and link.game != game_id):
        return None
    if link.refused >= GIVEN_BACK_MAX and link.game != game_id:
        return None
    return link


def house_rules(link: InviteLink) -> HouseRules:
    """The house rules the link's game is played by."""
    return HouseRules.from_dict(json.loads(link.rules))


def rules_words(link: InviteLink) -> str:
    """The link's house rules as ``NEW`` says them (``TO 300 BAGS FLOOR 200 ALT``)."""
    rules = house_rules(link)
    words = [f"TO {rules.target}"] + ["BAGS"] * rules.failed_nil_bags
    words += [f"FLOOR {abs(rules.floor)}"] if rules.floor is not None else []
    return " ".join(words + ["ALT"] * (not rules.simultaneous_draw))


def take(config: Config, store: Store, players: Players, links: Links, reach: Reach, invite_links: InviteLinks,
         games: GameCache, dealer: DealerFactory, message_id: str, invitee: str, token: str) -> Result | None:
    """``invitee`` took the link of ``token`` (``/start <token>`` on Telegram): invited by its inviter through the
    same gate as ``NEW <invitee>``; None if ``token`` is no invitation link."""
    if invite_links.get(token) is None:
        return None
    gid = invitations.game_id_for(message_id)
    link = usable(store, invite_links, token, gid)
    if link is None or link.inviter == invitee or not invite_links.take(token, gid):
        reason = "self" if link is not None and link.inviter == invitee else "gone"
        return outbox.reply(config, store, players, links, reach, invitee, message_id,
                            "invite_link_gone", Outcome.INVITE_REFUSED, reason=reason)
    out = invitations.invite(config, store, players, links, reach, games, dealer,
                             message_id, link.inviter, invitee, house_rules(link), address=invitee)
    if out.outcome in _TAKEN:
        return out
    invite_links.release(token, gid)  # refused (the inviter is told why): the link may be taken again
    told = outbox.reply(config, store, players, links, reach, invitee, message_id,
                        "invite_link_gone", Outcome.INVITE_REFUSED, reason="refused")
    return Result(out.outbox_ids + told.outbox_ids, out.outcome)


"""Starting a game: ``NEW +4791234567`` / ``NEW friend@example.com`` invites a friend, ``NEW BOT`` plays the computer.

The invitee is told who invites them, the house rules chosen (RULES.md D6, D8) and how to
answer: ``YES`` starts the game, ``NO`` declines (the inviter is told either way). An
invitation not answered within ``INVITE_TTL`` (default 3 days) expires and the inviter is told.
An address that is not a phone number or email address, the sender's own, or one that has
sent STOP gets a clear refusal and no game.

``NEW BOT`` starts a game against the computer at once, at the ``normal`` level (``NEW BOT EASY``: ``easy``,
``NEW BOT HARD``: ``hard``; :mod:`service.games.levels`); the computer's moves are
made by a Celery task after ``BOT_DELAY`` seconds (see :mod:`workers.beat`).

The game record (``{g:<id>}:meta``) holds ``rules`` (JSON of :class:`spades.events.HouseRules`),
``status`` (invited, active, declined, expired, over) and ``expires`` (ms).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from chat.names import display_name
from spades.events import HouseRules

from .. import daily_cap, limits, metrics
from ..addresses import EMAIL, WHATSAPP, WHATSAPP_PREFIX, BadAddress, address_kind, is_bot, parse_address, phone_number
from ..caches import GameCache
from ..channels import Destination, destination
from ..context import Config, DealerFactory
from ..conversation_port import render_message
from ..games import levels, outbox, status
from ..games.players import all_stopped, default_lang, lang_of, mailbox_stopped, name_of, number_of, unfinished_games
from ..games.result import Outcome, Result
from ..games.start import rules_of
from ..games.start import start as start_game
from ..records import GameMeta, PlayerRecord
from ..store import Links, Players, Reach, Store, game_owner
from ..store import due as due
from ..store.due import EXPIRY, Item
from . import hooks, settings, telegram_start

#: What the parser reads after NEW (:func:`chat.parse.parse`) -> the computer's level.
_BOT_LEVELS = {"BOT": levels.DEFAULT, "BOT NORMAL": "normal", "BOT EASY": "easy", "BOT HARD": "hard"}


def game_id_for(message_id: str) -> str:
    """The id of the game a ``NEW`` message creates (the same for a retried message)."""
    return hashlib.sha256(message_id.encode()).hexdigest()[:12]


__all__ = ["game_id_for", "rules_of", "rules_context", "invite", "new_meta", "start",
           "start_bot_game", "create_game", "tell_name", "pending_between", "pending_for", "waiting_for", "twin", "accept", "decline", "on_expiry_due"]


def rules_context(rules: HouseRules) -> dict[str, Any]:
    return {"target": rules.target, "bags_rule": rules.failed_nil_bags, "floor": rules.floor,
            "alternating": not rules.simultaneous_draw}


def invite(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
           dealer: DealerFactory, message_id: str, sender: str, target: str, rules: HouseRules | None = None,
           now_ms: int | None = None, address: str = "") -> Result:
    """``NEW <address | BOT>``: an invitation (or a game against the computer at once), or a refusal (``NEW`` alone
    is :func:`service.lifecycle.invite_links.offer`). ``address``: the invitee's address already normalised (a link
    taken: a Telegram chat, which no one types)."""
    rules = rules or HouseRules()
    said = " ".join((target or "").upper().split())
    if said in _BOT_LEVELS:
        return start_bot_game(config, store, players, links, reach, games, dealer, message_id, sender, rules,
                              _BOT_LEVELS[said])
    try:
        invitee = links.home(address or parse_address(target, config.get("DEFAULT_REGION", "US")).value)
    except BadAddress:
        return outbox.reply(config, store, players, links, reach, sender, message_id, "invite_refused",
                            reason="bad_address", text=(target or "")[:40])
    if invitee == sender:
        return outbox.reply(config, store, players, links, reach, sender, message_id, "invite_refused", reason="self",
                            text=(target or "")[:40])
    if limits.forbidden_recipient(config, invitee):  # the service's own address, or a role address (issue 44 case 4)
        return outbox.reply(config, store, players, links, reach, sender, message_id, "invite_refused", reason="role",
                            text=invitee)
    by = _invitation_address(config, store, players, links, reach,
                             invitee)  # where the invitation goes: the invitee, or their number by SMS
    if all_stopped(links, invitee) or mailbox_stopped(config, store, invitee):  # no address of theirs takes messages
        return outbox.reply(config, store, players, links, reach, sender, message_id, "invite_refused",
                            reason="stopped", text=invitee)
    pending = pending_between(store, players, sender, invitee)
    if pending is not None:  # one invitation per pair while one waits (issue 23 case 7): nothing is sent again
        theirs = store.meta(pending).get("seat0") == invitee
        out = outbox.reply(config, store, players, links, reach, sender, message_id, "invite_pending",
                           opp=name_of(players, invitee), theirs=theirs)
        return Result(out.outbox_ids, Outcome.INVITE_PENDING, pending)
    limited = limits.invite_refusal(config, store, players, sender, by, message_id, store.clock.now_ms() / 1000)
    if limited is not None:  # abuse limits (service.limits), each with its own reply
        return outbox.reply(config, store, players, links, reach, sender, message_id, limited.template,
                            **limited.context)
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    gid = game_id_for(message_id)
    held = daily_cap.invitation_held_until(config, store, by, now_ms / 1000)  # the day's SMS cap: it goes tomorrow
    expires = (held or now_ms) + int(settings.get(config, "INVITE_TTL")) * 1000
    fields = new_meta(config, store, players, gid, sender, invitee, rules, now_ms)
    fields["expires"] = str(expires)
    meta, updates = GameMeta(fields), dict(fields)
    days = max(1, round(int(settings.get(config, "INVITE_TTL")) / 86400))
    if held is not None:
        updates["held"] = str(held)
        entries = [outbox.entry(config, store, players, links, reach, sender, "invite_held", game_id=gid, seat=0,
                                meta=meta, meta_updates=updates,
                                opp=name_of(players, invitee), at="00:00 UTC")]
    else:
        anonymous = not (players.get(sender) or PlayerRecord(sender)).name  # the friend sees a masked number: ask a NAME
        entries = [_invitation(config, store, players, links, reach, gid, meta, updates, rules, days),
                   outbox.entry(config, store, players, links, reach, sender, "invite_sent", game_id=gid, seat=0,
                                meta=meta, meta_updates=updates,
                                opp=name_of(players, invitee), days=days, anonymous=anonymous,
                                me=display_name(sender, "sms"))]
    outcome = Outcome.INVITE_HELD if held is not None else Outcome.INVITED
    res = status.change(store, gid, message_id, outcome, entries, updates)
    if res.outcome == outcome:
        store.due.schedule(Item(EXPIRY, gid), held or expires)
    return res


def _invitation_address(config: Config, store: Store, players: Players, links: Links, reach: Reach,
                        invitee: str) -> str:
    """Where an invitation to ``invitee`` goes: to them; to a WhatsApp address WhatsApp would refuse it to (it never
    wrote to the service, or not for a day, and no approved template: :func:`service.channels.destination` holds it),
    to the same number by SMS (issue 45 case 4), which then passes the SMS gate (:mod:`service.limits`). YES from
    either finds it (:func:`accept`)."""
    if address_kind(invitee) != WHATSAPP:
        return invitee
    to = destination(config, store, links, reach, invitee, "invite", lang_of(config, players, invitee))
    return phone_number(invitee) if to.held else invitee


def twin(address: str) -> str | None:
    """The same phone number on the other channel (SMS <-> WhatsApp), None for an email address."""
    kind = address_kind(address)
    return None if kind == EMAIL else phone_number(address) if kind == WHATSAPP else WHATSAPP_PREFIX + address


def _invitation(config: Config, store: Store, players: Players, links: Links, reach: Reach, gid: str,
                meta: GameMeta, updates: dict[str, str] | None,
                rules: HouseRules, days: int) -> dict[str, Any] | None:
    """The invitation to the invited player (seat 1), where :func:`_invitation_address` says."""
    invitee = meta.seats[1]
    by = _invitation_address(config, store, players, links, reach, invitee)
    return outbox.entry(config, store, players, links, reach, invitee, "invite", game_id=gid, seat=1, meta=meta,
                        meta_updates=updates, to=None if by == invitee else Destination.to(by),
                        opp=name_of(players, meta.seats[0]), days=days,
                        tg_url=telegram_start.invite_link(config, players, invitee),
                        **rules_context(rules),
                        rules_url=config.get("RULES_URL") or f"{config['PUBLIC_BASE_URL']}/rules")


def _release_held(config: Config, store: Store, players: Players, links: Links, reach: Reach, gid: str,
                  meta: GameMeta) -> list[str]:
    """The invitation the day's SMS cap held (``held`` of the game's meta), sent now that its day has come."""
    days = max(1, round(int(settings.get(config, "INVITE_TTL")) / 86400))
    e = _invitation(config, store, players, links, reach, gid, meta, None, rules_of(meta), days)
    return status.change(store, gid, "release:" + gid, Outcome.INVITED, [e], {"held": ""}).outbox_ids


def new_meta(config: Config, store: Store, players: Players, gid: str, seat0: str, seat1: str, rules: HouseRules,
             now_ms: int) -> dict[str, str]:
    for address in (seat0, seat1):
        if not is_bot(address):
            players.ensure(address, default_lang(config, address))
        players.add_game(address, gid, now_ms)
    meta = {"seat0": seat0, "seat1": seat1, "status": "invited", "created": str(now_ms),
            "target": str(rules.target), "rules": json.dumps(rules.to_dict(), separators=(",", ":"))}
    for seat, address in enumerate((seat0, seat1)):
        if address_kind(address) == EMAIL:
            meta[f"tok{seat}"] = players.new_reply_token(gid, address)
        if not is_bot(address):  # the seat's private page (issue 14, "Beyond")
            meta[f"web{seat}"] = players.new_web_token(gid, seat)
    for address in (seat0, seat1):
        if not is_bot(address):
            number_of(store, address, gid)
    return meta


def start(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          dealer: DealerFactory, message_id: str, gid: str, meta: GameMeta, updates: dict[str, str]) -> Result:
    """The game under way (:func:`service.games.start.start`); its expiry cancelled, its first turn scheduled
    (``Result.bot``: the computer's move to queue, if it begins)."""
    out = start_game(config, store, players, links, reach, games, dealer, message_id, gid, meta, updates)
    people = [meta.seats[0], meta.seats[1]]
    if out.game is not None and not any(is_bot(a) for a in people):  # the limits' known numbers
        store.mark_people_game(people)
    if out.game is not None:
        store.due.cancel(Item(EXPIRY, gid))
        out.bot = hooks.after_game_change(config, store, gid, out.game)
    return out


def start_bot_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                   dealer: DealerFactory, message_id: str, sender: str, rules: HouseRules,
                   level: str = levels.DEFAULT) -> Result:
    """``NEW BOT`` (``NEW BOT EASY``, ``NEW BOT HARD``): a game against the computer at ``level``, under way at
    once."""
    gid = game_id_for(message_id)
    done = store.consumed(game_owner(gid), message_id)
    if done is not None:
        return Result(done, Outcome.DUPLICATE, gid)
    fields = new_meta(config, store, players, gid, sender, levels.address_for(level), rules, store.clock.now_ms())
    return start(config, store, players, links, reach, games, dealer, message_id, gid, GameMeta(fields), fields)


def create_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                dealer: DealerFactory, game_id: str, seat0: str, seat1: str, message_id: str,
                target: int | None = None, start_now: bool = True) -> Result:
    """A game between two addresses under way at once (tests, the load benchmark); ``start_now=False``: an
    invitation from ``seat0`` instead (its id then comes from ``message_id``, as for ``NEW``)."""
    rules = HouseRules(target=target or 500)
    if not start_now:
        return invite(config, store, players, links, reach, games, dealer, message_id, seat0, seat1, rules)
    fields = new_meta(config, store, players, game_id, seat0, seat1, rules, store.clock.now_ms())
    return start(config, store, players, links, reach, games, dealer, message_id, game_id, GameMeta(fields), fields)


def tell_name(config: Config, store: Store, players: Players, links: Links, reach: Reach, message_id: str,
              inviter: str, name: str) -> list[str]:
    """The name ``inviter`` just chose, told to each friend whose invitation from them waits (issue 23 case 13: the
    invitation named them by a masked number); returns the outbox ids."""
    out: list[str] = []
    for gid in unfinished_games(store, players, inviter, ("invited",)):
        meta = store.meta(gid)
        if meta.seats[0] != inviter or meta.held_until:
            continue  # an invitation to them, or one not sent yet (it will carry the name)
        e = outbox.entry(config, store, players, links, reach, meta.seats[1], "invite_named", game_id=gid, seat=1,
                         meta=meta, opp=inviter, chosen=name)
        out += status.change(store, gid, f"named:{message_id}", Outcome.INVITED, [e], {}).outbox_ids
    return out


def pending_between(store: Store, players: Players, a: str, b: str, but: str = "") -> str | None:
    """The invitation waiting between ``a`` and ``b`` (whoever invited), other than ``but``, if there is one."""
    for gid in unfinished_games(store, players, a, ("invited",)):
        meta = store.meta(gid)
        if gid != but and {meta.seats[0], meta.seats[1]} == {a, b}:
            return gid
    return None


def pending_for(store: Store, players: Players, address: str) -> str | None:
    """The newest invitation waiting for ``address``'s answer."""
    for gid in unfinished_games(store, players, address, ("invited",)):
        if store.meta(gid).get("seat1") == address:
            return gid
    return None


def waiting_for(store: Store, players: Players, address: str) -> str | None:
    """The newest invitation waiting for ``address``'s answer, or for the same number on the other channel
    (:func:`twin`)."""
    other = twin(address)
    return pending_for(store, players, address) or (pending_for(store, players, other) if other else None)


def accept(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
           dealer: DealerFactory, message_id: str, sender: str, game_id: str | None = None) -> Result:
    """``YES``: the invited player starts the game (the newest invitation, unless ``game_id`` is given). An
    invitation to the same number on the other channel (SMS or WhatsApp) is theirs too: they play where they
    answered from (issue 45 case 4; WhatsApp knows the number as its owner's)."""
    other = twin(sender)
    gid = game_id or waiting_for(store, players, sender)
    if gid is None:
        return outbox.reply(config, store, players, links, reach, sender, message_id, "no_invitation")
    done = store.consumed(game_owner(gid), message_id)
    if done is not None:
        return Result(done, Outcome.DUPLICATE, gid)
    meta = store.meta(gid)
    updates: dict[str, str] = {}
    if other and meta.seats[1] == other and meta.status == "invited" and meta.seats[0] != sender:
        players.ensure(sender, default_lang(config, sender))
        players.add_game(sender, gid, store.clock.now_ms())
        number_of(store, sender, gid)
        meta = meta.updated({"seat1": sender})
        updates["seat1"] = sender
    if meta.status != "invited" or meta.seats[1] != sender:
        return outbox.reply(config, store, players, links, reach, sender, message_id, "no_invitation")
    out = start(config, store, players, links, reach, games, dealer, message_id, gid, meta, updates)
    other = pending_between(store, players, meta.seats[0], sender, but=gid)
    if other is not None:  # one sent before the rule, or in a race: closed unheard, so that no NO can decline it
        status.change(store, other, f"superseded:{gid}", Outcome.DECLINED, [], {"status": "declined"})
        store.due.cancel(Item(EXPIRY, other))
    return out


def decline(config: Config, store: Store, players: Players, links: Links, reach: Reach, message_id: str, sender: str,
            game_id: str | None = None) -> Result:
    """``NO``: the invitation is declined (one to the same number on the other channel too); the inviter is told."""
    gid = game_id or waiting_for(store, players, sender)
    if gid is None:
        return outbox.reply(config, store, players, links, reach, sender, message_id, "no_invitation")
    meta = store.meta(gid)
    if meta.status != "invited" or meta.seats[1] not in (sender, twin(sender)):
        return outbox.reply(config, store, players, links, reach, sender, message_id, "no_invitation")
    inviter = meta.seats[0]
    lang = lang_of(config, players, inviter)
    to = destination(config, store, links, reach, inviter, "declined", lang)
    e = outbox.entry(config, store, players, links, reach, inviter, "declined", game_id=gid, seat=0, meta=meta, to=to,
                     rendered=render_message("declined", lang, to.channel, opp=name_of(players, sender)))
    ok = outbox.entry(config, store, players, links, reach, sender, "decline_done", game_id=gid, seat=1, meta=meta,
                      opp=name_of(players, inviter))
    res = status.change(store, gid, message_id, Outcome.DECLINED, [e, ok], {"status": "declined"})
    store.due.cancel(Item(EXPIRY, gid))
    return res


def on_expiry_due(config: Config, store: Store, players: Players, links: Links, reach: Reach, item: Item,
                  now_ms: int) -> tuple[int | None, list[str]]:
    """The beat's action for an ``x`` item: an invitation still unanswered expires; the inviter is told."""
    meta = store.meta(item.game_id)
    if meta.status != "invited":
        return None, []
    if meta.held_until:  # an invitation the cap held: it goes when its day comes, then waits for its answer
        if now_ms < meta.held_until:
            return meta.held_until, []
        return meta.expires_ms, _release_held(config, store, players, links, reach, item.game_id, meta)
    expires = meta.expires_ms
    if now_ms < expires:
        return expires, []
    out = outbox.notify_game(config, store, players, links, reach, item.game_id, "expire:" + item.game_id,
                             [(0, "invite_expired", {"opp": name_of(players, meta.seats[1])})],
                             meta_updates={"status": "expired"}, expected_version=0)
    if out.outbox_ids:
        metrics.invitation("expired")
    return None, out.outbox_ids

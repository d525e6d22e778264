"""Starting a game: ``NEW +4791234567`` / ``NEW friend@example.com`` invites a friend, ``NEW BOT`` plays the computer.

The invitee is told who invites them, the house rules chosen (RULES.md D6, D8) and how to
answer: ``YES`` starts the game, ``NO`` declines (the inviter is told either way). An
invitation not answered within ``INVITE_TTL`` (default 3 days) expires and the inviter is told.
An address that is not a phone number or email address, the sender's own, or one that has
sent STOP gets a clear refusal and no game.

``NEW BOT`` starts a game against the ``basic`` strategy at once; the computer's moves are
made by a Celery task after ``BOT_DELAY`` seconds (see :mod:`workers.beat`).

The game record (``{g:<id>}:meta``) holds ``rules`` (JSON of :class:`spades.events.HouseRules`),
``status`` (invited, active, declined, expired, over) and ``expires`` (ms).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from chat import render as chat_render
from spades.events import HouseRules, to_dict
from spades.game import fold, new_game

from .. import clock
from ..context import Services
from ..players import EMAIL, BadAddress, address_kind, parse_address
from ..store import game_owner
from . import due, gateway, keys, routing, settings
from .due import Item

BOT_ADDRESS = keys.BOT_PREFIX + "basic"


def game_id_for(message_id: str) -> str:
    """The id of the game a ``NEW`` message creates (the same for a retried message)."""
    return hashlib.sha256(message_id.encode()).hexdigest()[:12]


def rules_of(meta: dict[str, str]) -> HouseRules:
    """The house rules a game was created with."""
    if meta.get("rules"):
        return HouseRules.from_dict(json.loads(meta["rules"]))
    return HouseRules(target=int(meta.get("target", 500)))


def rules_context(rules: HouseRules) -> dict[str, Any]:
    return {"target": rules.target, "bags_rule": rules.failed_nil_bags, "floor": rules.floor}


def invite(svc: Services, message_id: str, sender: str, target: str, rules: HouseRules | None = None,
           now_ms: int | None = None) -> gateway.Outcome:
    """``NEW <address | BOT>``: an invitation (or a game against the computer at once), or a refusal."""
    rules = rules or HouseRules()
    if (target or "").strip().upper() == "BOT":
        return start_bot_game(svc, message_id, sender, rules)
    try:
        invitee = parse_address(target, svc.config.get("DEFAULT_REGION", "US")).value
    except BadAddress:
        return gateway.reply(svc, sender, message_id, "invite_refused", reason="bad_address", text=(target or "")[:40])
    if invitee == sender:
        return gateway.reply(svc, sender, message_id, "invite_refused", reason="self", text=(target or "")[:40])
    if gateway.is_stopped(svc, invitee):
        return gateway.reply(svc, sender, message_id, "invite_refused", reason="stopped", text=invitee)
    now_ms = clock.now_ms(svc.redis) if now_ms is None else now_ms
    gid = game_id_for(message_id)
    expires = now_ms + int(settings.get(svc.config, "INVITE_TTL")) * 1000
    meta = new_meta(svc, gid, sender, invitee, rules, now_ms)
    meta["expires"] = str(expires)
    updates = dict(meta)
    days = max(1, round(int(settings.get(svc.config, "INVITE_TTL")) / 86400))
    entries = [
        gateway.entry(svc, invitee, "invite", game_id=gid, seat=1, meta=meta, meta_updates=updates,
                      opp=gateway.name_of(svc, sender), days=days, **rules_context(rules)),
        gateway.entry(svc, sender, "invite_sent", game_id=gid, seat=0, meta=meta, meta_updates=updates,
                      opp=gateway.name_of(svc, invitee), days=days),
    ]
    res = svc.store.append(game_owner(gid), 0, [], message_id=message_id, outbox=[e for e in entries if e],
                           meta=updates)
    if res.ok:
        due.schedule(svc.redis, Item("x", gid), expires)
    return gateway.Outcome(res.outbox_ids, "invited" if res.ok else res.status, gid)


def new_meta(svc: Services, gid: str, seat0: str, seat1: str, rules: HouseRules, now_ms: int) -> dict[str, str]:
    lang0 = svc.config.get("LANG", "en")
    from chat.languages import language_for_address

    for address in (seat0, seat1):
        if not keys.is_bot(address):
            svc.players.ensure(address, language_for_address(address) if lang0 == "en" else lang0)
        svc.players.add_game(address, gid, now_ms)
    meta = {"seat0": seat0, "seat1": seat1, "status": "invited", "created": str(now_ms),
            "target": str(rules.target), "rules": json.dumps(rules.to_dict(), separators=(",", ":"))}
    for seat, address in enumerate((seat0, seat1)):
        if address_kind(address) == EMAIL:
            meta[f"tok{seat}"] = svc.players.new_reply_token(gid, address)
    for address in (seat0, seat1):
        if not keys.is_bot(address):
            routing.number_of(svc, address, gid)
    return meta


def start(svc: Services, message_id: str, gid: str, meta: dict[str, str], updates: dict[str, str]) -> gateway.Outcome:
    from .. import handlers

    # strict alternation (RULES D11 house rule) until the service handles a simultaneous draw
    events = new_game(gid, dataclasses.replace(rules_of(meta), simultaneous_draw=False), svc.dealer(gid, 0))
    game = fold(events)
    updates = dict(updates, status="active", started=str(clock.now_ms(svc.redis)))
    events, outbox = gateway.game_messages(svc, gid, meta, game, events, updates, everyone=True)
    res = svc.store.append(game_owner(gid), 0, [to_dict(e) for e in events], message_id=message_id,
                           outbox=outbox, meta=updates)
    if res.ok:
        handlers.CACHE.put(gid, game, res.last_stream_id)
        due.cancel(svc.redis, Item("x", gid))
        from . import hooks

        hooks.after_game_change(svc, gid, game)
        return gateway.Outcome(res.outbox_ids, "started", gid, game)
    return gateway.Outcome(res.outbox_ids, res.status, gid)


def start_bot_game(svc: Services, message_id: str, sender: str, rules: HouseRules) -> gateway.Outcome:
    """``NEW BOT``: a game against the ``basic`` strategy, under way at once."""
    gid = game_id_for(message_id)
    done = svc.store.consumed(game_owner(gid), message_id)
    if done is not None:
        return gateway.Outcome(done, "duplicate", gid)
    meta = new_meta(svc, gid, sender, BOT_ADDRESS, rules, clock.now_ms(svc.redis))
    return start(svc, message_id, gid, meta, dict(meta))


def pending_for(svc: Services, address: str) -> str | None:
    """The newest invitation waiting for ``address``'s answer."""
    for gid in routing.unfinished_games(svc, address, ("invited",)):
        if svc.store.meta(gid).get("seat1") == address:
            return gid
    return None


def accept(svc: Services, message_id: str, sender: str, game_id: str | None = None) -> gateway.Outcome:
    """``YES``: the invited player starts the game (the newest invitation, unless ``game_id`` is given)."""
    gid = game_id or pending_for(svc, sender)
    if gid is None:
        return gateway.reply(svc, sender, message_id, "no_invitation")
    done = svc.store.consumed(game_owner(gid), message_id)
    if done is not None:
        return gateway.Outcome(done, "duplicate", gid)
    meta = svc.store.meta(gid)
    if meta.get("status") != "invited" or meta.get("seat1") != sender:
        return gateway.reply(svc, sender, message_id, "no_invitation")
    return start(svc, message_id, gid, meta, {})


def decline(svc: Services, message_id: str, sender: str, game_id: str | None = None) -> gateway.Outcome:
    """``NO``: the invitation is declined; the inviter is told."""
    gid = game_id or pending_for(svc, sender)
    if gid is None:
        return gateway.reply(svc, sender, message_id, "no_invitation")
    meta = svc.store.meta(gid)
    if meta.get("status") != "invited" or meta.get("seat1") != sender:
        return gateway.reply(svc, sender, message_id, "no_invitation")
    inviter = meta["seat0"]
    e = gateway.entry(svc, inviter, "declined", game_id=gid, seat=0, meta=meta,
                      rendered=chat_render("declined", gateway.lang_of(svc, inviter), address_kind(inviter),
                                           opp=gateway.name_of(svc, sender)))
    ok = gateway.entry(svc, sender, "decline_done", game_id=gid, seat=1, meta=meta, opp=gateway.name_of(svc, inviter))
    res = svc.store.append(game_owner(gid), 0, [], message_id=message_id, outbox=[x for x in (e, ok) if x],
                           meta={"status": "declined"})
    due.cancel(svc.redis, Item("x", gid))
    return gateway.Outcome(res.outbox_ids, "declined" if res.ok else res.status, gid)


def on_expiry_due(svc: Services, item: Item, now_ms: int) -> tuple[int | None, list[str]]:
    """The beat's action for an ``x`` item: an invitation still unanswered expires; the inviter is told."""
    meta = svc.store.meta(item.game_id)
    if meta.get("status") != "invited":
        return None, []
    expires = int(meta.get("expires", "0"))
    if now_ms < expires:
        return expires, []
    inviter, invitee = meta["seat0"], meta["seat1"]
    out = gateway.notify_game(svc, item.game_id, "expire:" + item.game_id,
                              [(0, "invite_expired", {"opp": gateway.name_of(svc, invitee)})],
                              meta_updates={"status": "expired"}, expected_version=0)
    _ = inviter
    return None, out.outbox_ids

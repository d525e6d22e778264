"""What the service calls after it changed a game, and the lifecycle's handling of its own intents.

* :func:`after_game_change` (after every successful append of engine events): records the new
  turn and schedules its reminders and timeout, or the computer's move; returns the
  :class:`BotTurn` the worker should queue (with ``BOT_DELAY`` as countdown), if any.
* :func:`after_handled` (after the inbound handler): the same for the game the message changed,
  plus noting which game each player was last prompted about.
* :func:`handle_intent` handles the lifecycle's own intents (``NEW YES NO GAMES REMIND PAUSE TZ
  AUTO CLAIM REMATCH STOP START``) for the handler, which calls it first and goes on with the
  message itself when it returns None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chat import render as chat_render
from spades.game import Game

from .. import clock
from ..context import Services
from ..players import SMS, address_kind
from . import gateway, invitations, keys, optout, reminders, routing, timeouts
from .reminders import TurnState


@dataclass(frozen=True)
class BotTurn:
    """The computer is to move in ``game_id`` at ``version`` (as ``seat``)."""

    game_id: str
    seat: int
    version: int


def after_game_change(svc: Services, game_id: str, game: Game | TurnState, meta: dict[str, str] | None = None,
                      now_ms: int | None = None, life: dict[str, str] | None = None,
                      tail: Any = None, restore: bool = False, recorded: Any = None) -> BotTurn | None:
    """Record the game's new turn and schedule what it needs; the computer's turn if it is one.

    ``meta`` (``now_ms``, ``life``): as the caller read them just before, if it did. ``tail``: see
    :func:`reminders.on_turn` (the caller executes what is left on it).
    """
    reminders.on_turn(svc, game_id, game, now_ms=now_ms, meta=meta, life=life, tail=tail, restore=restore,
                      recorded=recorded)
    if game.phase == "over" or game.to_move is None:
        return None
    if meta is None:
        meta = svc.store.meta(game_id)
    if meta.get("status") == "active" and keys.is_bot(meta.get(f"seat{game.to_move}", "")):
        return BotTurn(game_id, game.to_move, game.version)
    return None


def after_handled(svc: Services, game_id: str | None, outbox_ids: list[str], tail: Any = None,
                  after: Any = None, duplicate: bool = False) -> BotTurn | None:
    """After the inbound handler: note the prompted games, and run :func:`after_game_change`.

    ``tail``: a pipeline holding the caller's last writes; the notes are queued on it too, and it goes
    with the new turn's writes when it may (:func:`reminders.on_turn`); the caller executes what is
    left on it (before the computer's move, if any, is queued). ``after``: the handler's
    :class:`service.handlers.AfterMove` when it applied a move (then nothing is read again).
    ``duplicate``: the message was handled before (a task delivered again, say): the turn's items are
    put back if they are missing (the worker handling it first may have died before writing them)."""
    from .. import handlers
    from ..store import owner_keys

    if game_id and after is not None:
        routing.note_prompted(svc, [(to, game_id) for to in after.renote], tail=tail)
        if after.meta.get("status") not in ("active", "over"):
            return None
        return after_game_change(svc, game_id, after.game, meta=after.meta, now_ms=after.now_ms, life=after.life,
                                 tail=tail, recorded=after.recorded)

    # one round trip: the recipients of the messages, the game's meta and state, the clock's offset
    pipe = svc.redis.pipeline(transaction=False)
    routed = routing.queue_note_outbox(pipe, outbox_ids)
    finish = None
    if game_id:
        pipe.hgetall(owner_keys(f"g:{game_id}")["meta"])
        pipe.get(clock.OFFSET_KEY)
        pipe.hgetall(keys.game_life(game_id))
        finish = handlers.CACHE.take_queued(svc, game_id, pipe)
    replies = pipe.execute()
    routing.note_outbox_from(svc, routed, replies[:len(routed)], tail=tail)
    if not game_id or finish is None:
        return None
    raw_meta, offset, raw_life = replies[len(routed):len(routed) + 3]
    game, sid = finish(replies[len(routed) + 3:])
    handlers.CACHE.put(game_id, game, sid)
    meta = {gateway._s(a): gateway._s(b) for a, b in raw_meta.items()}
    if meta.get("status") not in ("active", "over"):
        return None
    life = {gateway._s(a): gateway._s(b) for a, b in raw_life.items()}
    return after_game_change(svc, game_id, game, meta=meta, now_ms=clock.now_ms_with(offset), life=life, tail=tail,
                             restore=duplicate)


@dataclass
class IntentResult:
    """What :func:`handle_intent` did: outbox ids to dispatch, the game it changed, a bot turn to queue."""

    outbox_ids: list[str]
    outcome: str
    game_id: str | None = None
    bot: BotTurn | None = None


def _setting(svc: Services, sender: str, message_id: str, setting: str, value: Any) -> IntentResult:
    e = gateway.entry(svc, sender, "setting", rendered=chat_render(
        "setting", gateway.lang_of(svc, sender), address_kind(sender), setting=setting, value=value))
    ids = svc.store.append(f"p:{sender}", -1, message_id=message_id, outbox=[e] if e else []).outbox_ids
    return IntentResult(ids, setting)


def handle_intent(svc: Services, message_id: str, sender: str, intent: Any,
                  token_game: str | None = None, before_append: Any = None) -> IntentResult | None:
    """Handle a ``chat.Intent`` of the lifecycle; None when the intent is not one of them.

    ``before_append`` is passed to the handler's decide loop when a ``YES`` confirms a resignation.
    """
    kind = intent.kind
    if kind == "stop":  # a carrier's own word (SMS): the carrier confirms it; any other: we do, once
        confirm = not getattr(intent, "carrier", False) or address_kind(sender) != SMS
        return IntentResult(optout.stop(svc, message_id, sender, confirm=confirm), "stopped")
    if kind == "start":
        return IntentResult(optout.start(svc, message_id, sender), "started")
    if kind == "new":
        out = invitations.invite(svc, message_id, sender, intent.arg or "", intent.rules)
        return IntentResult(out.outbox_ids, out.outcome, out.game_id, _bot_of(svc, out))
    invited_token = token_game if token_game and svc.store.meta(token_game).get("status") == "invited" else None
    if kind == "yes" and (invited_token or (not token_game and invitations.pending_for(svc, sender))):
        gid = invited_token
        out = invitations.accept(svc, message_id, sender, gid)
        return IntentResult(out.outbox_ids, out.outcome, out.game_id, _bot_of(svc, out))
    if kind == "no" and (token_game or invitations.pending_for(svc, sender)):
        out = invitations.decline(svc, message_id, sender, token_game)
        return IntentResult(out.outbox_ids, out.outcome, out.game_id)
    if kind == "rematch":
        return _rematch(svc, message_id, sender, intent, token_game)
    if kind == "resign":
        return _ask_resign(svc, message_id, sender, intent, token_game)
    if kind == "yes" and _resign_pending(svc, sender):
        return _resign(svc, message_id, sender, before_append)
    if kind == "games":
        out = gateway.reply(svc, sender, message_id, "games", games=routing.listing(svc, sender))
        return IntentResult(out.outbox_ids, "games")
    if kind in ("remind", "auto"):
        reminders.set_flag(svc, sender, kind, bool(intent.flag))
        return _setting(svc, sender, message_id, kind, bool(intent.flag))
    if kind == "tz":
        zone = reminders.set_zone(svc, sender, intent.arg or "")
        if zone is None:
            out = gateway.reply(svc, sender, message_id, "tz_unknown", text=(intent.arg or "")[:40])
            return IntentResult(out.outbox_ids, "tz_unknown")
        return _setting(svc, sender, message_id, "tz", zone)
    if kind in ("pause", "claim"):
        target = routing.resolve(svc, sender, intent.game) if not token_game else routing.Target(token_game, "token")
        if target.game_id is None:
            out = gateway.reply(svc, sender, message_id, "no_such_game", number=intent.game)
            return IntentResult(out.outbox_ids, "no_game")
        gid = target.game_id
        seat = gateway.seat_of(svc.store.meta(gid), sender)
        if seat is None:
            return IntentResult([], "ignored", gid)
        if kind == "pause":
            out = reminders.pause(svc, gid, message_id, seat, intent.number)
            return IntentResult(out.outbox_ids, "paused", gid)
        out = timeouts.claim(svc, message_id, sender, gid)
        if out.game is not None and out.outcome == "applied":
            after_game_change(svc, gid, out.game)
        return IntentResult(out.outbox_ids, out.outcome, gid)
    return None


RESIGN_WINDOW_MS = 3_600_000  # a YES more than an hour after RESIGN confirms nothing


def _ask_resign(svc: Services, message_id: str, sender: str, intent: Any, token_game: str | None) -> IntentResult:
    """``RESIGN``: ask for confirmation (``YES``) before the game ends."""
    target = routing.resolve(svc, sender, intent.game) if not token_game else routing.Target(token_game, "token")
    if target.game_id is None:
        out = gateway.reply(svc, sender, message_id, "no_such_game", number=intent.game)
        return IntentResult(out.outbox_ids, "no_game")
    gid = target.game_id
    meta = svc.store.meta(gid)
    seat = gateway.seat_of(meta, sender)
    if seat is None:
        return IntentResult([], "ignored", gid)
    svc.redis.hset(keys.player_life(sender), mapping={"resign": gid, "resign_at": str(clock.now_ms(svc.redis))})
    opp = gateway.name_of(svc, meta.get(f"seat{1 - seat}", ""))
    rendered = chat_render("confirm_resign", gateway.lang_of(svc, sender), address_kind(sender),
                           label=(routing.label(svc, sender, gid) + " ").lstrip(), opp=opp)
    e = gateway.entry(svc, sender, "confirm_resign", rendered=rendered)
    ids = svc.store.append(f"p:{sender}", -1, message_id=message_id, outbox=[e] if e else []).outbox_ids
    return IntentResult(ids, "confirm_resign", gid)


def _resign_pending(svc: Services, sender: str) -> str | None:
    life = gateway.hgetall(svc, keys.player_life(sender))
    gid = life.get("resign")
    if not gid or clock.now_ms(svc.redis) - int(life.get("resign_at", "0")) > RESIGN_WINDOW_MS:
        return None
    return gid if svc.store.meta(gid).get("status") == "active" else None


def _resign(svc: Services, message_id: str, sender: str, before_append: Any = None) -> IntentResult:
    """``YES`` after ``RESIGN``: the game ends (through the handler's decide loop), the opponent wins and is told."""
    from chat import Intent

    from .. import handlers

    gid = _resign_pending(svc, sender)
    assert gid is not None
    out = handlers.decide_intent(svc, message_id, sender, gid, Intent("resign"), before_append)
    svc.redis.hdel(keys.player_life(sender), "resign", "resign_at")
    if out.outcome == "applied":
        after_game_change(svc, gid, gateway.load_game(svc, gid))
    return IntentResult(out.outbox_ids, "resigned" if out.outcome == "applied" else out.outcome, gid)


def _rematch(svc: Services, message_id: str, sender: str, intent: Any, token_game: str | None) -> IntentResult:
    """``REMATCH``: the same opponent and house rules again (an invitation, or at once against the computer)."""
    gid = token_game or routing.resolve(svc, sender, intent.game, statuses=("over",)).game_id
    meta = svc.store.meta(gid) if gid else {}
    seat = gateway.seat_of(meta, sender) if gid else None
    if gid is None or seat is None or meta.get("status") != "over":
        out = gateway.reply(svc, sender, message_id, "no_such_game", number=intent.game)
        return IntentResult(out.outbox_ids, "no_game")
    opponent = meta.get(f"seat{1 - seat}", "")
    rules = invitations.rules_of(meta)
    if keys.is_bot(opponent):
        out = invitations.start_bot_game(svc, message_id, sender, rules)
    else:
        out = invitations.invite(svc, message_id, sender, opponent, rules)
    return IntentResult(out.outbox_ids, out.outcome, out.game_id, _bot_of(svc, out))


def _bot_of(svc: Services, out: gateway.Outcome) -> BotTurn | None:
    g = out.game
    if g is None or out.game_id is None or g.phase == "over" or g.to_move is None:
        return None
    meta = svc.store.meta(out.game_id)
    if keys.is_bot(meta.get(f"seat{g.to_move}", "")):
        return BotTurn(out.game_id, g.to_move, g.version)
    return None


_ = clock

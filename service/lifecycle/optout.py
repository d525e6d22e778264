"""``STOP`` and ``START``: after STOP nothing at all is sent to that address until START.

STOP marks the address it came from stopped, and the mailbox it delivers to (``x+tag@gmail.com``'s STOP stops
``x@gmail.com``, ``x.y+z@googlemail.com``, ``"x"@gmail.com``: :func:`service.games.players.mailbox_stopped`)
(:func:`may_send` is then False for it: the delivery path and every lifecycle message check it); START from any form
of the mailbox lifts the mailbox's mark. The carrier answers its own words (STOP, END, QUIT...) itself;
a word of the player's language (ARRET, STOPP...) and any stop word by email get one last message,
the ``stopped`` confirmation (:data:`FINAL`: sent although the address is stopped).

A player with linked addresses (``LINK``, :mod:`service.channels`) who still has one that did not send STOP
plays on: their messages go there, nothing is paused, no opponent is told. Once no address of theirs takes
messages (an unlinked player's STOP), STOP pauses each of their games, for ``REACH_PAUSE_MAX_DAYS`` at most (a pause
one player can start ends by itself: a player losing a game does not freeze it by sending STOP; after it, their
clock runs again and the opponent may CLAIM), and tells each opponent that the game is paused and for how long; START (from any of their addresses) lifts the mark, ends those pauses, tells each opponent
the game goes on, sends the ``started`` message, and restarts the reminder schedule of every turn.
"""

from __future__ import annotations

import math

from chat import render as chat_render

from .. import limits
from ..addresses import address_kind, is_bot
from ..channels import Destination
from ..context import Config
from ..games import outbox, status
from ..games.players import all_stopped, is_stopped, label_of, lang_of, name_of, unfinished_games
from ..games.result import Outcome
from ..games.seats import opponent_of, seat_of
from ..store import Links, Players, Reach, Store
from . import reminders, settings

FINAL = "stopped"  # the kind of the one message a stopped player still gets: the confirmation


def may_send(config: Config, store: Store, address: str, kind: str = "") -> bool:
    """Whether a message of ``kind`` may be sent to ``address`` now (not to the computer; to a stopped
    number, only the confirmation that it stopped)."""
    return not is_bot(address) and (kind == FINAL or not is_stopped(config, store, address))


def _pause_field(address: str) -> str:
    return f"pause:stop:{address}"


def _mark_mailbox(config: Config, store: Store, origin: str, mark: str) -> None:
    """STOP (``1``) or START (``0``) from ``origin`` marks the mailbox it delivers to as well (its folded form,
    :func:`service.limits.mailbox`), so that no other form of it (a plus tag, dots, ``googlemail.com``, quotes...)
    is written to after a STOP (issue 44 case 3)."""
    box = limits.mailbox_of(config, origin)
    if box != origin:
        store.set_player_life(box, {"stopped": mark})


def stop(config: Config, store: Store, players: Players, links: Links, reach: Reach, message_id: str, sender: str,
         now_ms: int | None = None, confirm: bool = False,
         origin: str = "") -> list[str]:
    """``STOP`` from ``origin`` (``sender``, the player's home, or an address linked to it): mark that address,
    and with ``confirm`` tell it (a stop word the carrier does not answer); if no address of the player's takes
    messages any more, pause their games and tell their opponents. Returns outbox ids to dispatch."""
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    origin = origin or sender
    store.set_player_life(origin, {"stopped": "1"})
    _mark_mailbox(config, store, origin, "1")
    if origin != sender:
        links.set_off(sender, origin, True)
    ids: list[str] = []
    if confirm and not is_bot(sender):
        e = outbox.entry(config, store, players, links, reach, sender, FINAL, even_if_stopped=True,
                         to=Destination.to(origin),
                         rendered=chat_render(FINAL, lang_of(config, players, sender), address_kind(origin)))
        ids += outbox.send_reply(store, sender, message_id, [e], FINAL).outbox_ids
    if not all_stopped(links, sender):  # another address of theirs takes their messages: the games go on there
        return ids
    days = float(settings.get(config, "REACH_PAUSE_MAX_DAYS"))
    until = now_ms + int(days * 86_400_000)
    for gid in unfinished_games(store, players, sender, ("active",)):
        store.add_game_life(gid, _pause_field(sender), f"{now_ms}-{until}")
        meta = store.meta(gid)
        seat = seat_of(meta, sender)
        if seat is None:  # unfinished_games lists only the games they sit in
            continue
        other = opponent_of(meta, seat)
        out = outbox.notify_game(config, store, players, links, reach, gid, f"stop:{message_id}", [
            (1 - seat, "opponent_stopped",
             {"opp": name_of(players, sender), "label": label_of(store, players, other, gid),
              "days": max(1, math.ceil(days))})])
        ids += out.outbox_ids
    for gid in unfinished_games(store, players, sender, ("invited",)):
        if store.meta(gid).seats[1] == sender:
            status.change(store, gid, f"stop:{message_id}", Outcome.DECLINED, [], {"status": "declined"})
    return ids


def start(config: Config, store: Store, players: Players, links: Links, reach: Reach, message_id: str, sender: str,
          now_ms: int | None = None, origin: str = "") -> list[str]:
    """``START`` from ``origin`` (``sender``, the player's home, or an address linked to it): lift its mark,
    welcome it back; unless another address of the player's took their messages meanwhile (their games went on),
    resume the games and tell the opponents."""
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    origin = origin or sender
    route = links.route(sender)
    went_on = bool(route.links) and bool(route.reachable())  # a linked player reachable all along: nothing paused
    store.set_player_life(origin, {"stopped": "0"})
    _mark_mailbox(config, store, origin, "0")
    if origin != sender:
        links.set_off(sender, origin, False)
    ids: list[str] = []
    for gid in [] if went_on else unfinished_games(store, players, sender, ("active",)):
        raw = store.game_life_field(gid, _pause_field(sender))
        if raw is not None:
            a = raw.partition("-")[0]
            store.set_game_life(gid, {_pause_field(sender): f"{a}-{now_ms}"})
        reminders.restart_turn(config, store, gid, now_ms)
        meta = store.meta(gid)
        seat = seat_of(meta, sender)
        if seat is None:
            continue
        other = opponent_of(meta, seat)
        out = outbox.notify_game(config, store, players, links, reach, gid, f"start:{message_id}", [
            (1 - seat, "opponent_back",
             {"opp": name_of(players, sender), "label": label_of(store, players, other, gid)})])
        ids += out.outbox_ids
    has_game = bool(unfinished_games(store, players, sender, ("active", "invited")))
    welcome = chat_render("started", lang_of(config, players, sender), address_kind(origin), has_game=has_game)
    e = outbox.entry(config, store, players, links, reach, sender, "started", rendered=welcome,
                     to=Destination.to(origin))
    if e is not None:
        ids += outbox.send_reply(store, sender, message_id, [e], "started").outbox_ids
    return ids

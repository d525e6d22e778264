"""Unreachable players: while the service cannot reach a player, their games wait for them.

When delivery receipts mark an address unreachable (:mod:`service.receipts`) and no other address of its player (their
home and the addresses linked to it, those that sent STOP aside) can take over (:func:`service.channels.reachable`),
each of the player's active games is paused for them (a ``pause:reach:<home>:<since ms>`` interval in the game's life
hash, open until they write, but for ``REACH_PAUSE_MAX_DAYS`` at most (7 by default: a player who marks our email as
spam, or whose mail bounces, does not freeze a game they are losing; then their clock runs again, the usual timeout
applies and the opponent may CLAIM): reminders wait and the timeout clock stops, for both players, as with STOP) and
each opponent is told once, saying how long the game waits at most, in their language (``opponent_unreachable``, written once per game and episode: its message id
names the player and when the address was marked). A player with another address that can be reached plays on: their
messages go there (``service.channels``' receipts step), each turn they owe is prompted there at once (as a reminder:
the prompt that failed may have been that turn's), and nothing waits.

Any message from a marked address ends those pauses, restarts the reminders of the turns the player owes, and
clears that address's mark (:func:`resume`; the inbound handler reads the mark in the message's own round trip).
"""

from __future__ import annotations

import math

from ..addresses import is_bot
from ..caches import GameCache
from ..channels import reachable
from ..context import Config
from ..games import outbox
from ..games.players import label_of, name_of, unfinished_games
from ..games.seats import opponent_of, seat_of
from ..store import PAUSE_REACH, Links, Players, Reach, Store
from . import reminders, settings


def pause_field(home: str, since_ms: int | str) -> str:
    """The game life field of the pause that began when the player ``home`` could no longer be reached (one per
    episode)."""
    return f"{PAUSE_REACH}{home}:{since_ms}"


def stop_clock(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
               address: str, since_ms: int) -> list[str]:
    """``address`` was marked unreachable at ``since_ms``: if its player can be reached at another address, prompt
    there the turns they owe (:func:`prompt_elsewhere`); else pause their active games from then and tell each
    opponent (once). Returns the outbox ids to dispatch. Idempotent."""
    home = links.home(address)
    if reachable(config, store, links, reach, home):
        return prompt_elsewhere(config, store, players, links, reach, games, home, since_ms)
    ids: list[str] = []
    days = float(settings.get(config, "REACH_PAUSE_MAX_DAYS"))
    until = since_ms + int(days * 86_400_000)  # at most: a spam complaint does not freeze a game (issue 44 case 5)
    for gid in unfinished_games(store, players, home, ("active",)):
        store.add_game_life(gid, pause_field(home, since_ms), f"{since_ms}-{until}")
        meta = store.meta(gid)
        seat = seat_of(meta, home)
        if seat is None:
            continue
        other = opponent_of(meta, seat)
        if is_bot(other):
            continue
        out = outbox.notify_game(config, store, players, links, reach, gid, f"reach:{home}:{since_ms}", [
            (1 - seat, "opponent_unreachable",
             {"opp": name_of(players, home), "label": label_of(store, players, other, gid),
              "days": max(1, math.ceil(days))})])
        ids += out.outbox_ids
    return ids


def prompt_elsewhere(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                     home: str, since_ms: int) -> list[str]:
    """Another address of the player ``home`` takes over from the one marked unreachable at ``since_ms``: each turn
    they owe is prompted there now, as a reminder (the prompt may be what did not arrive), once per game and episode.
    Returns the outbox ids to dispatch."""
    ids: list[str] = []
    for gid in unfinished_games(store, players, home, ("active",)):
        seat = seat_of(store.meta(gid), home)
        if seat is not None:
            ids += reminders.remind_now(config, store, players, links, reach, games, gid, seat,
                                        f"reach:{home}:{since_ms}:turn")
    return ids


def resume(config: Config, store: Store, players: Players, reach: Reach, home: str, origin: str = "",
           now_ms: int | None = None) -> None:
    """The player ``home`` wrote from ``origin`` (a marked address: its home, or one linked to it): end the pauses
    unreachability began, restart the reminders of their turns, clear that address's mark."""
    now_ms = store.clock.now_ms() if now_ms is None else now_ms
    prefix = pause_field(home, "")
    for gid in unfinished_games(store, players, home, ("active",)):
        ended = {}
        for field, value in store.game_life(gid).items():
            start, _, end = value.partition("-")
            if field.startswith(prefix) and int(end) > now_ms:
                ended[field] = f"{start}-{max(int(start), now_ms)}"
        if ended:
            store.set_game_life(gid, ended)
            reminders.restart_turn(config, store, gid, now_ms)
    reach.clear_unreachable(origin or home)

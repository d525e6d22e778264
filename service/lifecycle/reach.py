"""Unreachable players: while the service cannot reach a player, their games wait for them.

When delivery receipts mark a player's address unreachable (:mod:`service.receipts`) and none of their other
addresses can take over (:func:`service.channels.reachable`), each of their active games is paused for them (a
``pause:reach:<address>:<since ms>`` interval in the game's life hash, open until they write: reminders wait and the timeout
clock stops, for both players, as with STOP) and each opponent is told once, in their language
(``opponent_unreachable``, written once per game and episode: its message id names the address and when it was
marked). Any message from the player ends those pauses, restarts the reminders of the turns they owe, and clears the
mark (:func:`resume`).
"""

from __future__ import annotations

from ..channels import reachable
from ..context import Services
from ..games import outbox
from ..games.players import label_of, name_of, seat_of, unfinished_games
from ..store import keys
from . import reminders
from .optout import FOREVER_MS


def pause_field(address: str, since_ms: int | str) -> str:
    """The game life field of the pause that began when ``address`` was marked unreachable (one per episode)."""
    return f"pause:reach:{address}:{since_ms}"


def stop_clock(svc: Services, address: str, since_ms: int) -> list[str]:
    """``address`` was marked unreachable at ``since_ms``: unless the player can be reached elsewhere, pause their
    active games from then and tell each opponent (once). Returns the outbox ids to dispatch. Idempotent."""
    if reachable(svc, address):
        return []
    ids: list[str] = []
    for gid in unfinished_games(svc, address, ("active",)):
        svc.store.add_game_life(gid, pause_field(address, since_ms), f"{since_ms}-{FOREVER_MS}")
        meta = svc.store.meta(gid)
        seat = seat_of(meta, address)
        if seat is None:
            continue
        other = meta.get(f"seat{1 - seat}", "")
        if keys.is_bot(other):
            continue
        out = outbox.notify_game(svc, gid, f"reach:{address}:{since_ms}", [
            (1 - seat, "opponent_unreachable", {"opp": name_of(svc, address), "label": label_of(svc, other, gid)})])
        ids += out.outbox_ids
    return ids


def resume(svc: Services, address: str, now_ms: int | None = None) -> None:
    """The player wrote: end the pauses unreachability began, restart their turns' reminders, clear the mark."""
    now_ms = svc.store.clock.now_ms() if now_ms is None else now_ms
    prefix = pause_field(address, "")
    for gid in unfinished_games(svc, address, ("active",)):
        ended = {}
        for field, value in svc.store.game_life(gid).items():
            start, _, end = value.partition("-")
            if field.startswith(prefix) and int(end) > now_ms:
                ended[field] = f"{start}-{max(int(start), now_ms)}"
        if ended:
            svc.store.set_game_life(gid, ended)
            reminders.restart_turn(svc, gid, now_ms)
    svc.reach.clear_unreachable(address)

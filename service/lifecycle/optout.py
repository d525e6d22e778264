"""``STOP`` and ``START``: after STOP nothing at all is sent to that number until START.

STOP marks the player stopped (:func:`may_send` is then False for them: the delivery path and
every lifecycle message check it), pauses each of their games without end, and tells each
opponent that the game is paused. The carrier answers its own words (STOP, END, QUIT...) itself;
a word of the player's language (ARRET, STOPP...) and any stop word by email get one last message,
the ``stopped`` confirmation (:data:`FINAL`: sent although the player is stopped). START lifts the mark, ends those pauses, tells each opponent the game goes
on, sends the player the ``started`` message, and restarts the reminder schedule of every turn.
"""

from __future__ import annotations

from chat import render as chat_render

from ..addresses import address_kind
from ..context import Services
from ..games import outbox, status
from ..games.players import is_stopped, label_of, lang_of, name_of, seat_of, unfinished_games
from ..games.result import Outcome
from ..store import keys
from . import reminders

FOREVER_MS = 253_402_300_799_000  # 9999-12-31
FINAL = "stopped"  # the kind of the one message a stopped player still gets: the confirmation


def may_send(svc: Services, address: str, kind: str = "") -> bool:
    """Whether a message of ``kind`` may be sent to ``address`` now (not to the computer; to a stopped
    number, only the confirmation that it stopped)."""
    return not keys.is_bot(address) and (kind == FINAL or not is_stopped(svc, address))


def _pause_field(address: str) -> str:
    return f"pause:stop:{address}"


def stop(svc: Services, message_id: str, sender: str, now_ms: int | None = None, confirm: bool = False) -> list[str]:
    """``STOP``: mark the player, pause their games, tell their opponents, and with ``confirm`` tell the
    player (a stop word the carrier does not answer). Returns outbox ids to dispatch."""
    now_ms = svc.store.clock.now_ms() if now_ms is None else now_ms
    svc.store.set_player_life(sender, {"stopped": "1"})
    ids: list[str] = []
    if confirm and not keys.is_bot(sender):
        e = outbox.entry(svc, sender, FINAL, even_if_stopped=True,
                          rendered=chat_render(FINAL, lang_of(svc, sender), address_kind(sender)))
        ids += outbox.send_reply(svc, sender, message_id, [e], FINAL).outbox_ids
    for gid in unfinished_games(svc, sender, ("active",)):
        svc.store.add_game_life(gid, _pause_field(sender), f"{now_ms}-{FOREVER_MS}")
        meta = svc.store.meta(gid)
        seat = seat_of(meta, sender)
        if seat is None:  # unfinished_games lists only the games they sit in
            continue
        other = meta.get(f"seat{1 - seat}", "")
        out = outbox.notify_game(svc, gid, f"stop:{message_id}", [
            (1 - seat, "opponent_stopped", {"opp": name_of(svc, sender),
                                            "label": label_of(svc, other, gid)})])
        ids += out.outbox_ids
    for gid in unfinished_games(svc, sender, ("invited",)):
        if svc.store.meta(gid).get("seat1") == sender:
            status.change(svc, gid, f"stop:{message_id}", Outcome.DECLINED, [], {"status": "declined"})
    return ids


def start(svc: Services, message_id: str, sender: str, now_ms: int | None = None) -> list[str]:
    """``START``: lift the mark, resume the games, tell the opponents, welcome the player back."""
    now_ms = svc.store.clock.now_ms() if now_ms is None else now_ms
    svc.store.set_player_life(sender, {"stopped": "0"})
    ids: list[str] = []
    for gid in unfinished_games(svc, sender, ("active",)):
        raw = svc.store.game_life_field(gid, _pause_field(sender))
        if raw is not None:
            a = raw.partition("-")[0]
            svc.store.set_game_life(gid, {_pause_field(sender): f"{a}-{now_ms}"})
        reminders.restart_turn(svc, gid, now_ms)
        meta = svc.store.meta(gid)
        seat = seat_of(meta, sender)
        if seat is None:
            continue
        other = meta.get(f"seat{1 - seat}", "")
        out = outbox.notify_game(svc, gid, f"start:{message_id}", [
            (1 - seat, "opponent_back", {"opp": name_of(svc, sender), "label": label_of(svc, other, gid)})])
        ids += out.outbox_ids
    has_game = bool(unfinished_games(svc, sender, ("active", "invited")))
    welcome = chat_render("started", lang_of(svc, sender), address_kind(sender), has_game=has_game)
    e = outbox.entry(svc, sender, "started", rendered=welcome)
    if e is not None:
        ids += outbox.send_reply(svc, sender, message_id, [e], "started").outbox_ids
    return ids

"""What follows a change of a game: its new turn recorded and scheduled (reminders, timeout, or the computer's move).

* :func:`after_game_change`: records the new turn and schedules its reminders and timeout, or the
  computer's move; returns the :class:`BotTurn` the worker should queue (with ``BOT_DELAY`` as
  countdown), if any.
* :func:`after_move`: the same for a :class:`service.games.result.Result` of ``service.games.apply``
  (nothing read again: the append recorded the turn).
* :func:`after_handled` (after the inbound dispatcher): the same for the game the message changed,
  plus noting which game each player was last prompted about.

What they write (the new turn's reminders and timeout, the ended turn's items out, the notes of the last prompted
game) is gathered as write intents (:mod:`service.store.after_phase`): given the caller's ``writes`` list they are
added to it (the caller writes them with its own, in one round trip); else written at once, in one.
"""

from __future__ import annotations

from spades.game import Game

from ..caches import GameCache
from ..context import Config
from ..games.result import AfterMove, BotTurn, Outcome, Result, TurnState
from ..games.seats import computer_at
from ..records import GameMeta
from ..store import Batch, Store
from ..store.after_phase import Write
from . import reminders, routing


def after_game_change(config: Config, store: Store, game_id: str, game: Game | TurnState,
                      meta: GameMeta | None = None,
                      now_ms: int | None = None, life: GameMeta | None = None,
                      writes: list[Write] | None = None, restore: bool = False,
                      recorded: tuple[int, str, str] | None = None) -> BotTurn | None:
    """Record the game's new turn and schedule what it needs; the computer's turn if it is one.

    ``meta`` (``now_ms``, ``life``): as the caller read them just before, if it did. ``writes``: see
    :func:`reminders.on_turn` (only added to: the caller writes them).
    """
    reminders.on_turn(config, store, game_id, game, now_ms=now_ms, meta=meta, life=life, writes=writes,
                      restore=restore, recorded=recorded)
    if game.phase == "over" or not game.movers:
        return None
    if meta is None:
        meta = store.meta(game_id)
    for seat in game.movers:  # in a simultaneous draw (RULES D11) the computer may owe a move beside a person
        if meta.status == "active" and computer_at(meta, seat):
            return BotTurn(game_id, seat, game.version)
    return None


def after_applied(config: Config, store: Store, game_id: str, after: AfterMove,
                  writes: list[Write] | None = None) -> BotTurn | None:
    """:func:`after_game_change` for a move ``service.games.apply`` made (as it read and wrote the game)."""
    if after.meta.status not in ("active", "over"):
        return None
    return after_game_change(config, store, game_id, after.game, meta=after.meta, now_ms=after.now_ms, life=after.life,
                             writes=writes, recorded=after.recorded)


def after_move(config: Config, store: Store, out: Result, writes: list[Write] | None = None) -> BotTurn | None:
    """After a move of the service's (the computer, AUTO, a claim, a confirmed RESIGN): its turn scheduled
    (added to ``writes`` if given, else written at once); ``out.bot`` set to the computer's move to queue, if it is
    next."""
    if out.outcome == Outcome.APPLIED and out.after is not None and out.game_id is not None:
        mine: list[Write] = [] if writes is None else writes
        out.bot = after_applied(config, store, out.game_id, out.after, mine)
        if writes is None:
            store.write(mine)  # the new turn's items: one round trip
    return out.bot


def after_handled(config: Config, store: Store, games: GameCache, game_id: str | None, outbox_ids: list[str],
                  writes: list[Write] | None = None,
                  after: AfterMove | None = None, duplicate: bool = False) -> BotTurn | None:
    """After the inbound dispatcher: note the prompted games, and run :func:`after_game_change`.

    ``writes``: the caller's write intents (its last writes); the notes and the new turn's writes are added
    to them, and the caller writes them all in one round trip (before the computer's move, if any, is queued);
    without, they are written here. ``after``: what ``service.games.apply`` left when it applied
    a move (then nothing is read again). ``duplicate``: the message was handled before (a task delivered
    again, say): the turn's items are put back if they are missing (the worker handling it first may have
    died before writing them)."""
    if writes is None:
        mine: list[Write] = []
        turn = after_handled(config, store, games, game_id, outbox_ids, mine, after, duplicate)
        store.write(mine)
        return turn
    if game_id and after is not None:
        writes.extend(routing.prompted_notes((to, game_id) for to in after.renote))
        return after_applied(config, store, game_id, after, writes=writes)

    # one round trip: the recipients of the messages, the game's meta and state, the clock's offset
    batch = Batch(store.pipeline())
    with batch.part("routed") as p:
        routing.queue_note_outbox(store, p, outbox_ids)
    if game_id:
        store.clock.add_now_ms(batch)
        with batch.part("game") as p:
            read_game = games.read_queued(game_id, p, with_meta=True)  # the meta read with it
    got = batch.run()
    writes.extend(routing.note_outbox_from(store, got["routed"]))
    if not game_id:
        return None
    taken = read_game(got["game"])
    games.keep(game_id, taken)
    meta = taken.meta or GameMeta()
    if meta.status not in ("active", "over"):
        return None
    return after_game_change(config, store, game_id, taken.game, meta=meta, now_ms=got["now_ms"], life=meta,
                             # (its life fields)
                             writes=writes, restore=duplicate)

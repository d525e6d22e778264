"""The unit tier: games played through the engine over the in-memory game log (no Redis, no Celery), as the service's
writer plays them (:mod:`tests.unit.table`). What a player or the operator would notice: the game read back is the
game played, by any process, from its snapshot or its whole log; a writer that decided on a stale game is refused and
decides again, so both players' moves count once each; a message delivered again changes nothing and sends the same
messages again, not new ones."""

from __future__ import annotations

from service.store import game_owner
from service.store.memory import MemoryGameLog
from spades import bots
from spades.commands import DeclineDoubleNil, Keep
from spades.events import HouseRules, from_dict, to_dict
from spades.game import Game, decide, fold
from tests.unit.table import Writer, bot_choice, dealer, state


def played_to_the_end(writer: Writer, game_id: str) -> Game:
    """A whole game between two computer players, each move a message of its own."""
    assert writer.start(game_id, "new").ok
    choose = bot_choice((bots.get("basic", seed=1), bots.get("basic", seed=2)))
    moves = 0
    while writer.game(game_id).phase != "over":
        res = writer.move(game_id, f"m{moves}", choose)
        assert res.ok, (moves, res)
        moves += 1
    return writer.game(game_id)


def test_a_whole_game_reads_back_as_it_was_played() -> None:
    log = MemoryGameLog()
    played = played_to_the_end(Writer(log), "u1")
    assert played.phase == "over" and played.winner is not None and max(played.scores) >= 500
    stored = log.load("u1")
    assert state(fold(from_dict(s.event) for s in stored)) == state(played)  # the whole log folded
    assert state(Writer(log).game("u1")) == state(played)  # a process that never saw it: from the last snapshot
    assert log.version("u1") == len(stored) == played.version
    handled = [s.message_id for s in stored if s.message_id]
    assert handled == ["new", *(f"m{n}" for n in range(len(handled) - 1))]  # each message once, in order


def test_a_cold_read_starts_from_the_latest_hand_or_play_not_the_whole_log() -> None:
    log = MemoryGameLog()
    writer = Writer(log)
    assert writer.start("u2", "new", HouseRules(target=200)).ok  # a shorter game: read cold after every move
    choose = bot_choice((bots.get("basic", seed=3), bots.get("basic", seed=4)))
    snapshots: set[str] = set()
    moves = 0
    while writer.game("u2").phase != "over":
        assert writer.move("u2", f"m{moves}", choose).ok
        moves += 1
        cold = Writer(log)  # another process, at every point of the game
        assert state(cold.game("u2")) == state(writer.game("u2")), moves
        snapshots.add(log.state("u2").snapshot_sid)
    game = writer.game("u2")
    # one snapshot at each hand's start and one when its play began (the last hand's end: none)
    assert len(snapshots) == 2 * len(game.history)
    folded = Writer(log).cold_reads + cold.cold_reads
    assert folded and max(folded) < game.version / len(game.history)  # part of a hand, never the game's log


def test_a_stale_writer_is_refused_and_both_moves_count_once() -> None:
    log = MemoryGameLog()
    web, worker = Writer(log), Writer(log)  # two processes handling the two players' messages
    assert web.start("u3", "new").ok
    first = web.game("u3").movers[0]  # the first player passes on double nil
    other = 1 - first
    assert web.move("u3", "a0", lambda g: DeclineDoubleNil(first)).ok
    before = web.game("u3")
    assert set(before.movers) == {0, 1}  # the simultaneous draw: both may move now (RULES D11)
    decided_at: list[int] = []

    def second_player(game: Game) -> DeclineDoubleNil:
        decided_at.append(game.version)
        if len(decided_at) == 1:  # while the second player's move is decided, the first's is appended elsewhere
            assert web.move("u3", "a1", lambda g: Keep(first)).ok
        return DeclineDoubleNil(other)

    res = worker.move("u3", "b1", second_player)
    assert res.ok and len(decided_at) == 2 and decided_at[1] > decided_at[0]  # refused once, decided again
    game = worker.game("u3")
    assert (len(game.kept[first]), game.dn_decided[other]) == (1, True)  # a card kept, double nil passed: once each
    assert [s.message_id for s in log.load("u3") if s.message_id] == ["new", "a0", "a1", "b1"]
    # the stale decision itself, appended again: refused, and the game is as it was
    now = state(Writer(log).game("u3"))
    stale = fold(from_dict(s.event) for s in log.load("u3")[:decided_at[0]])
    events = decide(stale, DeclineDoubleNil(other), dealer("u3", decided_at[0]))
    late = log.append(game_owner("u3"), decided_at[0], [to_dict(e) for e in events], message_id="b2")
    assert (late.status, late.version) == ("conflict", game.version)
    assert state(Writer(log).game("u3")) == now


def test_a_message_delivered_again_changes_nothing_and_resends_the_same_messages() -> None:
    log = MemoryGameLog()
    first, second = Writer(log), Writer(log)
    assert first.start("u4", "new").ok
    choose = bot_choice((bots.get("basic", seed=5), bots.get("basic", seed=6)))
    for n in range(40):  # into the hand's play
        assert first.move("u4", f"m{n}", choose).ok
    handled = first.move("u4", "card", choose)
    after = state(first.game("u4"))
    again = first.move("u4", "card", choose)  # the same task run again by the same process
    assert (again.status, again.outbox_ids, again.version) == ("duplicate", handled.outbox_ids, handled.version)
    assert first.move("u4", "next", choose).ok  # the game moves on
    moved_on = state(first.game("u4"))
    late = second.move("u4", "card", choose)  # delivered again to another process, later
    assert (late.status, late.outbox_ids) == ("duplicate", handled.outbox_ids)
    assert state(Writer(log).game("u4")) == moved_on != after
    assert [s.message_id for s in log.load("u4")].count("card") == 1

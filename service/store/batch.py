"""Reads (and writes) queued on one pipeline under names: one round trip, and each name gets its own replies,
so no caller picks replies out by position.

    batch = Batch(store.pipeline())
    batch.add("meta", lambda p: store.queue_meta(p, game_id), text_hash)
    batch.add_read("game", lambda p: store.queue_state(p, game_id))
    got = batch.run()
    got["meta"], got["game"]

Several batches may share one pipeline (a caller's and a callee's, as a part of it: :meth:`Batch.add_read`): a
batch counts its parts from where the pipeline stood when it was made (:attr:`Batch.base`), and
:meth:`Batch.results` takes the replies from there on.

The store's own reads hand :meth:`Batch.add` and :meth:`Batch.add_read` their functions; code above the store
queues its part itself inside ``with batch.part(name):`` and reads the part's replies (a list) after the run: the
store never calls back up into its callers (``bench/trace_move.py``'s upward calls).

    with batch.part("game") as pipe:
        read_game = games.read_queued(game_id, pipe)
    got = batch.run()
    taken = read_game(got["game"])

A move's read is one such batch, built inside the store (``Store.read_move``, :mod:`.move_read`)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from redis.client import Pipeline

Finish = Callable[[list[Any]], Any]


class Batch:
    """Named parts of one pipeline (see the module docstring)."""

    def __init__(self, pipe: Pipeline) -> None:
        self.pipe = pipe
        self.base = len(pipe)  # the replies before this batch's are not its own
        self._parts: list[tuple[str, int, int, Finish]] = []

    def add(self, name: str, queue: Callable[[Pipeline], Any], finish: Callable[[Any], Any] | None = None,
            many: bool = False) -> None:
        """``queue(pipe)`` queues the part's commands; its result is ``finish`` of its one reply (the reply itself
        without ``finish``), or with ``many`` of the list of its replies (however many it queued)."""
        start = len(self.pipe) - self.base
        queue(self.pipe)
        end = len(self.pipe) - self.base
        if not many and end - start != 1:
            raise ValueError(f"{name}: {end - start} commands queued, one expected (many=True for several)")
        shape: Callable[[Any], Any] = finish or (lambda x: x)
        self._parts.append((name, start, end, (lambda replies: shape(replies)) if many else
                            (lambda replies: shape(replies[0]))))

    @contextmanager
    def part(self, name: str) -> Iterator[Pipeline]:
        """A part queued by the caller inside the ``with`` block (on the pipeline it yields): its result is the list
        of its replies, for the caller to read."""
        start = len(self.pipe) - self.base
        yield self.pipe
        self._parts.append((name, start, len(self.pipe) - self.base, list))

    def add_read(self, name: str, queue: Callable[[Pipeline], Finish]) -> None:
        """A part whose ``queue(pipe)`` returns how to read its replies (a store's ``queue_*`` read)."""
        start = len(self.pipe) - self.base
        finish = queue(self.pipe)
        self._parts.append((name, start, len(self.pipe) - self.base, finish))

    def results(self, replies: Sequence[Any]) -> dict[str, Any]:
        """Each part's result, from the batch's own ``replies`` (the pipeline's from :attr:`base` on)."""
        return {name: finish(list(replies[start:end])) for name, start, end, finish in self._parts}

    def run(self) -> dict[str, Any]:
        """Send the pipeline (one round trip) and give each part its result."""
        return self.results(self.pipe.execute()[self.base:])

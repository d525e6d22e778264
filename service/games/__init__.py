"""The only way to change a game, below everything that uses it (the inbound dispatcher, the lifecycle).

Modules:

* :mod:`.apply`: :func:`~service.games.apply.apply`, the one loop (read, decide, append with the expected
  version, retry on conflict); :mod:`.moves`: who moves (a player, or the service for a seat).
* :mod:`.start`: a new game's first events and messages; :mod:`.status`: its changes that are not moves
  (an invitation written, declined, expired).
* :mod:`.result`: :class:`~service.games.result.Result` and its :class:`~service.games.result.Outcome`.
* :mod:`.players`: who the players are, their one language rule, their game numbers.
* :mod:`.outbox`: building and rendering outbox entries, replies and game notices.
* :mod:`.turns`: the messages a change causes; :mod:`.summaries`: the end of a hand and of the game.

It imports ``service.store``, ``service.caches`` (the per-process game and seat caches), ``service.context``,
``chat`` and ``spades``; never ``service.lifecycle``, ``service.inbound`` nor ``service.after`` (the import-linter
contracts in ``pyproject.toml``, type-only imports included).
"""

"""The life of a slow game between moves (issue 5): invitations, routing between several games,
reminders, timeouts, opting out, hand summaries, and the computer opponent.

Modules:

* :mod:`.invitations`: ``NEW`` (a friend by SMS/email, or ``BOT``), ``YES`` / ``NO``, expiry.
* :mod:`.routing`: which game a reply is for (the last prompted, or ``#N``), game numbers, ``GAMES``.
* :mod:`.reminders`: nudges on a schedule, quiet hours, ``REMIND``, ``PAUSE``, ``TZ``.
* :mod:`.timeouts`: ``CLAIM`` after the timeout, ``AUTO`` moves when reminders run out.
* :mod:`.optout`: ``STOP`` / ``START`` and the rule that nothing is sent to a stopped number.
* :mod:`.summaries`: what both players learn at the end of each hand and of the game.
* :mod:`.hooks`: what follows a change of a game (its new turn scheduled), after each message handled too.
* :mod:`.commands`: the lifecycle's own words, dispatched to by :mod:`service.inbound`.

The due work (the ``{due:<k>}`` shards) is kept by :mod:`service.store.due`, scanned by the beat (:mod:`workers.beat`).

Redis keys (besides the service's, see :mod:`service.store`): ``{due:<k>}`` (zset shards of due work),
``{beat}:lock``, ``{g:<id>}:life`` (hash: the current turn and the game's pauses),
``{p:<address>}:life`` (hash: a player's settings and last prompted game),
``{p:<address>}:nums`` (hash: game number <-> game id).
"""

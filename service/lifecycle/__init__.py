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
``{beat}:lock``, and in a game's meta ``{g:<id>}:meta`` its life fields (the current turn, the game's pauses and
its page marks, :func:`service.store.keys.game_life`), and in a player's record ``{p:<address>}:player``: their settings and last prompted game (the life fields,
:func:`service.store.keys.player_life`) and their game numbers (``<n>`` <-> game id).
"""

"""Operator commands of the ``slowspades`` CLI (one module per group): see, check and repair games, the outbox and players.

``slowspades games list | show ID --as ADDRESS | events ID | verify ID``,
``slowspades outbox list | resend ID``, ``slowspades players show ADDRESS``, ``slowspades backup FILE`` and
``slowspades restore FILE`` (:mod:`.backup`); each takes
``--json`` (one JSON document on stdout) and ``--redis-url`` (default: ``SLOWSPADES_REDIS_URL``).
Exit status: 0 when fine, 1 when a check failed (``games verify``), 2 when something asked
for does not exist.
"""

from __future__ import annotations

from .games import games
from .outbox import outbox
from .players import players

__all__ = ["games", "outbox", "players"]

"""The lifecycle's settings: each is a ``SLOWSPADES_*`` environment variable, or a key of the app config.

:func:`get` reads the app config first (tests pass overrides there), then the
environment, then the default. ``SETTINGS`` has the same shape as
``service.config.SETTINGS`` so the README table can include it.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

# name -> (default, kind, description)
SETTINGS: dict[str, tuple[Any, str, str]] = {
    "INVITE_TTL": (259200, "int", "Seconds an invitation waits for YES or NO before it expires (default 3 days)."),
    "BOT_DELAY": (3.0, "float", "Seconds before the computer (NEW BOT) makes its move."),
    "REMIND_DELAYS": ("12,24,48", "str", "Hours from the start of a turn to the first reminder, then between "
                                         "reminders (the last interval repeats if REMIND_MAX is larger)."),
    "REMIND_MAX": (3, "int", "Reminders sent at most for one turn."),
    "QUIET_HOURS": ("22-8", "str", "Hours (start-end, the player's local time) when no reminder is sent."),
    "DEFAULT_TZ": ("UTC", "str", "Time zone of a player whose number names none (email players) until TZ."),
    "SAY_PER_HOUR": (20, "int", "Lines of talk (SAY) a player may send in an hour, all games together (0: no limit); "
                                "the first line past it is answered, the others dropped."),
    "PAUSE_MAX_DAYS": (14, "int", "Longest PAUSE, in days."),
    "TIMEOUT_DAYS": (7.0, "float", "Days without a move (pauses not counted) after which the waiting player "
                                   "may CLAIM the game."),
    "BEAT_EVERY": (60.0, "float", "Seconds between two scans of due reminders, bot moves and expiries."),
    "BEAT_LOCK_TTL": (55, "int", "Seconds the beat lock is held at most (only one beat acts at a time)."),
    "LINK_CODE_TTL": (900, "int", "Seconds a LINK code is valid (sent back from the address being linked)."),
    "LINK_CODE_TRIES": (5, "int", "Wrong codes sent back from an address before its LINK code is locked."),
    "LINK_CODES_PER_DAY": (5, "int", "LINK codes a player (their mailbox, plus tags and ignored dots folded, or "
                                     "number) may ask for in a day (each is a message sent)."),
    "LINK_CODES_PER_ADDRESS": (3, "int", "LINK codes one address (a mailbox, folded, or a number) may be sent in a "
                                         "day, whoever asks for them."),
    "REACH_PAUSE_MAX_DAYS": (7.0, "float", "Days at most a player's games wait for them once our messages cannot "
                                           "reach them (a bounce, a spam complaint, a dead number); then their "
                                           "clock runs again and the timeout applies."),
}


def _convert(raw: Any, kind: str) -> Any:
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    return str(raw)


def get(config: Mapping[str, Any] | None, name: str) -> Any:
    """The value of setting ``name`` (without prefix) from ``config``, the environment, or its default."""
    default, kind, _doc = SETTINGS[name]
    if config is not None and config.get(name) not in (None, ""):
        return _convert(config[name], kind)
    raw = os.environ.get("SLOWSPADES_" + name)
    if raw:
        return _convert(raw, kind)
    return default


def remind_delays_s(config: Mapping[str, Any] | None) -> list[float]:
    """The reminder delays in seconds: the first from the turn's start, the others between reminders."""
    hours = [float(h) for h in str(get(config, "REMIND_DELAYS")).replace(" ", "").split(",") if h]
    return [h * 3600.0 for h in hours] or [12 * 3600.0]


def quiet_hours(config: Mapping[str, Any] | None) -> tuple[int, int]:
    """(start hour, end hour) of the quiet hours; equal hours mean no quiet hours."""
    start, _, end = str(get(config, "QUIET_HOURS")).partition("-")
    return int(start) % 24, int(end or start) % 24

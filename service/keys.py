"""Redis key names, all of them (the layout is described in :mod:`service.store`): an owner's keys (a game
``g:<id>`` or a player ``p:<address>``, :func:`owner_keys`), inbound records and their claims, the outbox's
indexes, the lifecycle's due work and beat lock, the life hashes, game numbers and reply tokens. Every
per-game key shares the game's hash tag, every per-player key the player's."""

from __future__ import annotations

import hashlib

DIRTY = "outbox:dirty"  # zset: owners (g:<id> / p:<addr>) that may hold queued outbox entries
PENDING_IN = "in:pending"  # zset: inbound messages recorded but not yet handled (<addr> <msg id>), by ms
LOCAL_OUTBOX = "outbox:local"  # stream: messages "sent" by the local outbox (no provider configured)
DUE = "ss:due"
BEAT_LOCK = "ss:beat:lock"
BOT_PREFIX = "bot:"
NAMES = "ss:names"  # hash: a chosen name, folded (:func:`name_field`) -> the address of the player who chose it


def game_life(game_id: str) -> str:
    """Hash: ``v``/``seat``/``since`` of the current turn, ``pause:<id>`` = ``start-end`` ms intervals."""
    return "{g:" + game_id + "}:life"


def game_snapshot(game_id: str) -> str:
    """Hash: ``sid`` (the stream id of the last event it covers), ``s`` (the folded state, zlib of its
    ``spades.snapshot`` JSON, its format and version inside), written with the append that starts a hand or
    its play."""
    return owner_snapshot(game_owner(game_id))


def owner_snapshot(owner: str) -> str:
    """:func:`game_snapshot` by owner (``g:<id>``; a player owner's is never written, only named in its slot)."""
    return "{" + owner + "}:snap"


def game_head(game_id: str) -> str:
    """String: a game in play's events up to its snapshot, compressed (the archive's format), moved out of
    ``:ev``; the meta's ``head`` counts them."""
    return "{g:" + game_id + "}:head"


def player_life(address: str) -> str:
    """Hash: ``tz``, ``remind`` (0/1), ``auto`` (0/1), ``stopped`` (0/1), ``last`` (last prompted game id)."""
    return "{p:" + address + "}:life"


def player_nums(address: str) -> str:
    """Hash: ``<n>`` -> game id and ``g:<game id>`` -> n (the player's game numbers)."""
    return "{p:" + address + "}:nums"


def is_bot(address: str) -> bool:
    return address.startswith(BOT_PREFIX)


def game_owner(game_id: str) -> str:
    return f"g:{game_id}"


def player_owner(address: str) -> str:
    return f"p:{address}"


def inbound_keys(address: str, message_id: str, window_s: int, now_s: int) -> list[str]:
    """The record of a message from ``address``, and its claims' sets of this window and the one before."""
    tag = "{" + player_owner(address) + "}"
    n = now_s // window_s
    return [f"{tag}:in:{message_id}", f"{tag}:seen:{n}", f"{tag}:seen:{n - 1}"]


def pending_member(address: str, message_id: str) -> str:
    """The member of ``in:pending`` for a message (an address has no space)."""
    return f"{address} {message_id}"


def owner_keys(owner: str) -> dict[str, str]:
    """The keys of one owner (``g:<id>`` or ``p:<address>``), all under one hash tag."""
    tag = "{" + owner + "}"
    meta = f"{tag}:meta" if owner.startswith("g:") else f"{tag}:player"
    return {"ev": f"{tag}:ev", "meta": meta, "consumed": f"{tag}:consumed", "archive": f"{tag}:archive",
            "outbox": f"{tag}:outbox", "outq": f"{tag}:outq", "games": f"{tag}:games", "life": f"{tag}:life"}


def message_digest(message_id: str) -> int:
    """A message id as a signed 64-bit integer (so a set of them is an intset: 8 bytes each)."""
    return int.from_bytes(hashlib.blake2b(message_id.encode(), digest_size=8).digest(), "big", signed=True)


def split_outbox_id(outbox_id: str) -> tuple[str, str]:
    owner, _, n = outbox_id.rpartition("#")
    if not owner or not n.isdigit():
        raise ValueError(f"not an outbox id: {outbox_id!r}")
    return owner, n


def reply_token(token: str) -> str:
    """String: ``<game id> <address>`` for a per-game email reply address ``play+<token>@<domain>``."""
    return f"rtok:{token}"


def number_field(game_id: str) -> str:
    """The field of a player's game numbers (:func:`player_nums`) holding the number of ``game_id``."""
    return f"g:{game_id}"


def limit_keys(address: str, minute: int, day: str = "") -> dict[str, str]:
    """The keys of the abuse limits (``service.limits``): ``rate`` (``{p:<addr>}:rate:<minute>``, messages
    of ``address`` in that minute), ``invites`` (``{p:<addr>}:inv:<day>``, message ids of the day's
    invitations), ``sms_day`` (``sms:day:<day>``, outgoing SMS of the day) and ``capped``
    (``sms:capped:<day>``, set once the day's SMS cap is reached)."""
    tag = "{" + player_owner(address) + "}"
    return {"rate": f"{tag}:rate:{minute}", "invites": f"{tag}:inv:{day}", "sms_day": f"sms:day:{day}",
            "capped": f"sms:capped:{day}"}


def name_field(name: str) -> str:
    """The field of :data:`NAMES` for a chosen name: case and spacing folded (``ana`` and ``ANA`` are one name)."""
    return " ".join(name.split()).casefold()

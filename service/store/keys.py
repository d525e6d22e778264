"""Redis key names, all of them (the layout is described in :mod:`service.store`): an owner's keys (a game
``g:<id>`` or a player ``p:<address>``, :func:`owner_keys`), inbound records and their claims, the outbox's
indexes, the lifecycle's due work and beat lock, the life hashes, game numbers and reply tokens. Every
per-game key shares the game's hash tag, every per-player key the player's.

No key names two owners' data at once: what used to be one global key (the due work, the outbox's dirty
owners, the pending inbound messages, the local outbox's index, the chosen names) is split into
:data:`SHARDS` keys, each with a hash tag of its own (``{due:3}``), and an item goes to the shard
:func:`shard` of its owner; readers scan every shard (:func:`shards`). The few single keys left (the beat
lock, the clock's offset, a day's SMS counter) carry their own hash tag too, so on a Redis Cluster every
script and every key a command names lies in one slot."""

from __future__ import annotations

import hashlib
import zlib

SHARDS = 16  # the number of shards of each formerly global key (fixed: changing it strands the old shards' data)
BEAT_LOCK = "{beat}:lock"
CLOCK_OFFSET = "{clock}:offset"  # string: seconds added to real time (service.store.clock)
WHATSAPP_PREFIX = "whatsapp:"  # a WhatsApp address (service.addresses.WHATSAPP_PREFIX)
WHATSAPP_CHANNEL = "whatsapp"  # the channel of a WhatsApp message's inbound record (service.addresses.WHATSAPP)


def shard(name: str) -> int:
    """The shard (0 .. SHARDS-1) of an owner, a game id, an address or a name: stable across processes."""
    return zlib.crc32(name.encode()) % SHARDS


def shards(kind: str) -> list[str]:
    """Every shard key of ``kind`` (``due``, ``dirty``, ``inpend``, ``local``, ``names``), for the readers."""
    return ["{" + kind + ":" + str(n) + "}" for n in range(SHARDS)]


def due_key(game_id: str) -> str:
    """Zset: the lifecycle's due work of the games of one shard (``service.store.due``), by due ms."""
    return "{due:" + str(shard(game_id)) + "}"


def dirty_key(owner: str) -> str:
    """Zset: owners (``g:<id>`` / ``p:<addr>``) of one shard that may hold queued outbox entries."""
    return "{dirty:" + str(shard(owner)) + "}"


def pending_key(address: str) -> str:
    """Zset: inbound messages of one shard's senders recorded but not yet handled (``<addr> <msg id>``), by ms."""
    return "{inpend:" + str(shard(address)) + "}"


def local_index_key(owner: str) -> str:
    """Zset: owners of one shard whose local outbox stream (``owner_keys(owner)["local"]``) has messages."""
    return "{local:" + str(shard(owner)) + "}"


def names_key(field: str) -> str:
    """Hash: chosen names of one shard, folded (:func:`name_field`) -> the address of the player who chose it."""
    return "{names:" + str(shard(field)) + "}"


def game_life(game_id: str) -> str:
    """The game's meta (``{g:<id>}:meta``, :func:`owner_keys`' ``meta``), which also holds its life fields: ``v``/``seat``/
    ``since`` of the current turn (and each seat's: ``v0``/``since0``, ``v1``/``since1``), ``pause:<id>`` = ``start-end`` ms
    intervals, ``page0``/``page1`` = the ms until which that seat counts as on its game page
    (:mod:`service.store.presence`). One hash, so a move reads and writes its turn with the meta's own commands (until
    issue 21, ``{g:<id>}:life`` was a hash of its own: ``slowspades migrate-keys`` merges it)."""
    return owner_keys(game_owner(game_id))["meta"]


def game_snapshot(game_id: str) -> str:
    """Hash: ``sid`` (the stream id of the last event it covers), ``s`` (the folded state, zlib of its
    ``spades.snapshot`` JSON, its format and version inside), written with the append that starts a hand or
    its play."""
    return owner_snapshot(game_owner(game_id))


def owner_snapshot(owner: str) -> str:
    """:func:`game_snapshot` by owner (``g:<id>``; a player owner's is never written, only named in its slot)."""
    return "{" + owner + "}:snap"


def owner_plans(owner: str) -> str:
    """Stream: a game's plan changes (RULES D12: given, changed, cleared, an entry played or dropped and why), each
    ``seat``, ``what`` and the plan after it, for a dispute; shown to no player (``g:<id>``)."""
    return "{" + owner + "}:plans"


def game_talk(game_id: str) -> str:
    """Stream: the game's talk (``SAY``, :mod:`service.lifecycle.talk`), each line ``seat``, ``text`` (as relayed, trimmed),
    oldest first; shown to both seats, erased with the seat's player (``slowspades players forget``)."""
    return "{" + game_owner(game_id) + "}:talk"


def talk_count(address: str, hour: int) -> str:
    """String: the lines ``address`` said in ``hour`` (hours since the epoch), for the talk's rate limit."""
    return "{" + player_owner(address) + "}:say:" + str(hour)


def game_head(game_id: str) -> str:
    """String: a game in play's events up to its snapshot, compressed (the archive's format), moved out of
    ``:ev``; the meta's ``head`` counts them."""
    return "{g:" + game_id + "}:head"


def player_life(address: str) -> str:
    """The player's record (``{p:<address>}:player``, :func:`owner_keys`' ``meta``), which also holds their life
    fields: ``tz``, ``remind`` (0/1), ``auto`` (0/1), ``stopped`` (0/1), ``last`` (last prompted game id); the
    linked channels (``service.store.links``): on a home, ``links`` (its linked addresses, space-separated, in
    link order), ``off`` (those of them that sent STOP) and ``via`` (the kind prompts go to first); on a linked
    address, ``home`` (the address it acts for); ``unreach``/``unreach_ms`` (the address is unreachable: the
    provider's code, since when; :mod:`.reach`). One hash with the record and the game numbers
    (:func:`player_nums`), so a move reads a player with one command (until issue 21, ``{p:<address>}:life`` and
    ``{p:<address>}:nums`` were hashes of their own: ``slowspades migrate-keys`` merges them)."""
    return "{p:" + address + "}:player"


def whatsapp_window(address: str) -> str:
    """String: when the last message of a WhatsApp address came in, ms of the service's clock (its 24-hour window,
    :mod:`service.store.window`)."""
    return "{p:" + address + "}:wa"


def whatsapp_contents(account: str) -> str:
    """Hash: the Content resources made for WhatsApp's buttons by Twilio account ``account`` (its SID): shape
    (``quick-reply.3``, ``list-picker.10``) -> ContentSid (:mod:`service.whatsapp_buttons`)."""
    return "{wa}:content:" + account


def link_code(address: str) -> str:
    """Hash: the pending ``LINK`` code sent to ``address`` (``home``: who asked, ``code``, ``tries``: wrong codes
    sent back so far), expiring with the code. In ``address``'s slot, with its life hash (one script checks the
    code and writes ``home``)."""
    return "{p:" + address + "}:linkcode"


def push_subscription(address: str) -> str:
    """Hash: the Web Push subscription of a push address (``push:<id>``, :mod:`service.webpush`): ``endpoint``,
    ``p256dh``, ``auth`` (the browser's keys, RFC 8291), ``home`` (the player it notifies). In the address's slot."""
    return "{p:" + address + "}:push"


PAUSE_REACH = "pause:reach:"  # a game's life field ``pause:reach:<home address>:<ms>`` (service.lifecycle.reach)

RECORD_FIELDS = frozenset({"kind", "lang", "created", "name", "people", "rtok", "outseq"})  # the record's own


def is_number_field(name: str) -> bool:
    """Whether a field of a player's record is one of their game numbers (:func:`player_nums`)."""
    return name.isdigit() or name.startswith("g:")


def is_life_field(name: str) -> bool:
    """Whether a field of a player's record is one of their life fields (:func:`player_life`): neither the
    record's own (:data:`RECORD_FIELDS`) nor a game number."""
    return name not in RECORD_FIELDS and not is_number_field(name)


def player_nums(address: str) -> str:
    """The player's game numbers: ``<n>`` -> game id and ``g:<game id>`` -> n, fields of their record (the same key as
    :func:`player_life`; a record's other fields are neither digits nor ``g:``)."""
    return player_life(address)


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
    """The keys of one owner (``g:<id>`` or ``p:<address>``), all under one hash tag; ``local`` is the
    owner's part of the local outbox (a stream of the messages "sent" without a provider)."""
    tag = "{" + owner + "}"
    meta = f"{tag}:meta" if owner.startswith("g:") else f"{tag}:player"
    return {"ev": f"{tag}:ev", "meta": meta, "consumed": f"{tag}:consumed", "archive": f"{tag}:archive",
            "outbox": f"{tag}:outbox", "outq": f"{tag}:outq", "games": f"{tag}:games", "local": f"{tag}:local"}


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


def web_token(token: str) -> str:
    """String: ``<game id> <seat>`` for a seat's private game page ``/g/<token>`` (issue 14, "Beyond")."""
    return f"wtok:{token}"


def invite_link(token: str) -> str:
    """Hash: an invitation by link (``NEW`` alone, ``service.lifecycle.invite_links``): ``from`` (the inviter),
    ``rules`` (JSON), ``expires`` (ms), ``game`` (the game it became, once taken); it expires with the link."""
    return f"ilink:{token}"


def invite_link_of(message_id: str) -> str:
    """String: the token of the link the ``NEW`` message ``message_id`` made (a retried message makes no second)."""
    return f"ilinkm:{hashlib.sha256(message_id.encode()).hexdigest()[:24]}"


def number_field(game_id: str) -> str:
    """The field of a player's game numbers (:func:`player_nums`) holding the number of ``game_id``."""
    return f"g:{game_id}"


def limit_keys(address: str, minute: int, day: str = "") -> dict[str, str]:
    """The keys of the abuse limits (``service.limits``): ``rate`` (``{p:<addr>}:rate:<minute>``, messages
    of ``address`` in that minute), ``invites`` (``{p:<addr>}:inv:<day>``, message ids of the day's
    invitations), ``sms_day`` (``{sms:<day>}:n``, outgoing SMS of the day), ``spend_day``
    (``{sms:<day>}:spend``, what the day's SMS and WhatsApp messages cost, in millionths of the price table's currency) and ``capped``
    (``{sms:<day>}:capped``, set once the day's cap is reached; one slot with the counters)."""
    tag = "{" + player_owner(address) + "}"
    return {"rate": f"{tag}:rate:{minute}", "invites": f"{tag}:inv:{day}", "sms_day": "{sms:" + day + "}:n",
            "spend_day": "{sms:" + day + "}:spend", "capped": "{sms:" + day + "}:capped"}


def name_field(name: str) -> str:
    """The field of :func:`names_key` for a chosen name: case and spacing folded (``ana`` and ``ANA`` are one name)."""
    return " ".join(name.split()).casefold()


def simulator_secret(name: str) -> str:
    """The simulator's shared local webhook secret ``name`` (``twilio``, ``mailgun``): local runs only."""
    return f"simulator:secret:{name}"


def mailgun_token(token: str) -> str:
    """A Mailgun webhook token seen (the replay guard of ``/email/inbound``)."""
    return f"mgtok:{token}"


PAGE_SECRET = "{page}:secret"  # string: the random key that signs the game pages' forms (service.store.presence)


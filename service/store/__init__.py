"""Everything kept in Redis, and the only package that talks to it.

One module per thing stored, each with its key names (built in :mod:`.keys`), its Lua scripts and the
Redis commands on its keys:

=================== =================================================================================
:mod:`.game_log`    a game's events, meta and the append (one Lua script: events, outbox entries, meta,
                    consumed message, turn, snapshot); :class:`Store`, the facade the service holds
:mod:`.snapshot`    a game in play: its snapshot and compressed head
:mod:`.recorder`    the game log's recorder protocol (append expecting a version, read after a position,
                    version) and its records; :mod:`.memory`: the recorder in process memory (the unit tier)
:mod:`.archive`     a finished game: its compressed archive, its outbox compacted
:mod:`.outbox`      outbox entries: claim, settle, status, the local outbox
:mod:`.inbox`       inbound messages: the record, the claim of a message id, the pending index
:mod:`.after_phase` the after-phase's writes as typed intents, executed in one round trip; the local claim
:mod:`.life`        a game's life fields (turns, pauses, page marks: in its meta); a player's (and game numbers: in their record)
:mod:`.players`     player records, chosen names, reply and page tokens
:mod:`.links`       linked channels: who an address acts for, a home's addresses and VIA, LINK codes
:mod:`.due`         the lifecycle's due work and the beat lock
:mod:`.limits`      the counters of the abuse limits and the daily SMS cap
:mod:`.clock`       the shared clock's offset
:mod:`.presence`    who is on their game page now (quiets the game's messages to them); the pages' signing key
:mod:`.replica`     WAIT on a Redis with replicas; the cluster's shard routing
:mod:`.reads`       reads queued on a caller's pipeline
:mod:`.move_read`   the read of a move in one call: the message, the sender's home, the game, its players
:mod:`.batch`       named parts of one pipeline: one round trip, each part's replies by name
:mod:`.operator`    the operator's reads and requeue
:mod:`.personal`    every key of a player's, dumped (``players export``)
:mod:`.forget`      a player erased: their keys and indexes, their seats renamed, the texts kept rewritten
:mod:`.migrate`     the key layout's migrations
:mod:`.client`      the connection (one Redis or a Redis Cluster), its errors and pipeline type
:mod:`.broker`      Celery's Redis broker transport (kombu's, made to survive a Redis restart)
:mod:`.base`,       shared helpers: stream and log packing, scripts, the clock in ms
:mod:`.codec`
=================== =================================================================================

Nothing outside this package imports ``redis`` (an import-linter contract in ``pyproject.toml``).
"""

from __future__ import annotations

from .batch import Batch
from .client import TRANSIENT_ERRORS, UNREACHABLE, Client, Pipeline, connect, is_cluster
from .game_log import (
    APPEND_LUA,
    CLAIM_LUA,
    SETTLE_LUA,
    STATUS_LUA,
    AppendResult,
    ReplicaLagError,
    Store,
    StoredEvent,
    game_owner,
    new_claim_token,
    now_ms,
    owner_keys,
    player_owner,
    split_outbox_id,
)
from .invite_links import InviteLinks
from .keys import PAUSE_REACH
from .links import Links
from .move_read import MoveRecords
from .players import Players
from .push import PushSubscriptions
from .reach import Reach
from .talk import Talk

__all__ = ["APPEND_LUA", "CLAIM_LUA", "PAUSE_REACH", "SETTLE_LUA", "STATUS_LUA", "TRANSIENT_ERRORS", "UNREACHABLE", "AppendResult",
           "Batch", "Client", "InviteLinks", "Links", "MoveRecords", "Pipeline", "Players", "PushSubscriptions", "Reach",
           "ReplicaLagError", "Store", "StoredEvent", "Talk", "connect", "game_owner", "is_cluster",
           "new_claim_token", "now_ms", "owner_keys", "player_owner", "split_outbox_id"]

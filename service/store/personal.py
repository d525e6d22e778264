"""What Redis holds about one player, read whole: every key under their hash tag (``{p:<address>}``) dumped by its
type, for ``slowspades players export`` (the right of access); and any key, for a search of the whole keyspace."""

from __future__ import annotations

from typing import Any

from .base import Client, scan_keys
from .codec import text
from .keys import player_owner

_GLOB = str.maketrans({c: "\\" + c for c in "*?[]\\"})


def readable(v: Any) -> Any:
    """A reply as text where it is UTF-8, else as hex."""
    if isinstance(v, bytes):
        try:
            return v.decode()
        except UnicodeDecodeError:
            return v.hex()
    return v


def dump_key(r: Client, key: Any) -> tuple[str, Any]:
    """(the key's type, its whole value as JSON-ready data)."""
    kind = text(r.type(key))
    if kind == "string":
        value: Any = readable(r.get(key))
    elif kind == "hash":
        value = {readable(k): readable(v) for k, v in r.hgetall(key).items()}
    elif kind == "list":
        value = [readable(v) for v in r.lrange(key, 0, -1)]
    elif kind == "set":
        value = sorted(str(readable(v)) for v in r.smembers(key))
    elif kind == "zset":
        value = [[readable(pair[0]), pair[1]] for pair in r.zrange(key, 0, -1, withscores=True)]
    elif kind == "stream":
        value = [[readable(i), {readable(k): readable(v) for k, v in (f or {}).items()}] for i, f in r.xrange(key) or []]
    else:
        value = None
    return kind, value


def player_keys(r: Client, address: str) -> dict[str, dict[str, Any]]:
    """Every key of ``address``'s own (its hash tag), each ``{"type", "value"}``."""
    tag = "{" + player_owner(address) + "}"
    out = {}
    for key in scan_keys(r, tag.translate(_GLOB) + "*"):
        kind, value = dump_key(r, key)
        out[text(key)] = {"type": kind, "value": value}
    return dict(sorted(out.items()))

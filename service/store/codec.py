"""Redis replies as text: the service's client answers bytes (``decode_responses=False``)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def text(v: Any) -> str:
    """A reply (bytes or str or a number) as ``str``."""
    return v.decode() if isinstance(v, bytes) else str(v)


def text_hash(raw: Mapping[Any, Any]) -> dict[str, str]:
    """An ``HGETALL`` reply as a ``dict`` of ``str`` (:func:`text` written out: a move decodes about 100 fields)."""
    return {(a.decode() if isinstance(a, bytes) else str(a)): (b.decode() if isinstance(b, bytes) else str(b))
            for a, b in raw.items()}


def text_hashes(raws: Iterable[Mapping[Any, Any]]) -> list[dict[str, str]]:
    """:func:`text_hash` of each of several ``HGETALL`` replies, in one call."""
    return [text_hash(raw) for raw in raws]


def text_entries(entries: Any) -> list[tuple[str, dict[str, str]]]:
    """A stream's entries (an ``XRANGE`` reply from redis-py, fields as a dict, or from a script, fields as a
    flat list) as (id, fields) in ``str``, all in one call."""
    return [(text(sid), text_hash(fields if isinstance(fields, dict) else dict(zip(fields[::2], fields[1::2]))))
            for sid, fields in entries]

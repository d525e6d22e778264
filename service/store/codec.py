"""Redis replies as text: the service's client answers bytes (``decode_responses=False``)."""

from __future__ import annotations

from typing import Any, Mapping


def text(v: Any) -> str:
    """A reply (bytes or str or a number) as ``str``."""
    return v.decode() if isinstance(v, bytes) else str(v)


def text_hash(raw: Mapping[Any, Any]) -> dict[str, str]:
    """An ``HGETALL`` reply as a ``dict`` of ``str`` (:func:`text` written out: a move decodes about 100 fields)."""
    return {(a.decode() if isinstance(a, bytes) else str(a)): (b.decode() if isinstance(b, bytes) else str(b))
            for a, b in raw.items()}

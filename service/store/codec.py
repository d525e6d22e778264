"""Redis replies as text: the service's client answers bytes (``decode_responses=False``)."""

from __future__ import annotations

from typing import Any, Mapping


def text(v: Any) -> str:
    """A reply (bytes or str or a number) as ``str``."""
    return v.decode() if isinstance(v, bytes) else str(v)


def text_hash(raw: Mapping[Any, Any]) -> dict[str, str]:
    """An ``HGETALL`` reply as a ``dict`` of ``str``."""
    return {text(a): text(b) for a, b in raw.items()}

"""The store's two backends as a module parameter: ``pytestmark = BOTH`` runs every test of the module against
the single Redis and against the Redis Cluster (the ``backend`` fixture of ``tests/conftest.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from service.store.base import scan_keys

BOTH = pytest.mark.parametrize("backend", ["single", "cluster"], indirect=True)


def keys_of(client: Any, pattern: str) -> list[bytes]:
    """``KEYS pattern`` on one Redis or every primary of a cluster (whose KEYS asks one node only)."""
    return list(scan_keys(client, pattern))

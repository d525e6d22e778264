"""A golden file compared with a test's text: ``tests/chat/golden/<lang>/<name>.txt`` (``UPDATE_GOLDEN=1`` writes it;
review the diff). A missing golden fails: a check written when missing could never fail."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def check_golden(lang: str, name: str, text: str) -> None:
    """``text`` is the golden file's content (written only with ``UPDATE_GOLDEN=1``: a missing one fails)."""
    path = GOLDEN / lang / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") != "1":
        assert path.exists(), f"golden {path} is missing (UPDATE_GOLDEN=1 writes it; review it before committing)"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"golden {path} differs (UPDATE_GOLDEN=1 to regenerate)"

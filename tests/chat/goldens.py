"""A golden file compared with a test's text: ``tests/chat/golden/<lang>/<name>.txt`` (``UPDATE_GOLDEN=1`` rewrites it;
review the diff)."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def check_golden(lang: str, name: str, text: str) -> None:
    """``text`` is the golden file's content (written when it is missing or ``UPDATE_GOLDEN=1``)."""
    path = GOLDEN / lang / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"golden {path} differs (UPDATE_GOLDEN=1 to regenerate)"

"""The docs name only what the code has: every source path the README and ``docs/*.md`` name exists, every
``SLOWSPADES_*`` setting they name is read by the code, and every setting the code reads is in
``docs/settings.md``. Reads files only (no Redis, no processes)."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

from service.config import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE_DIRS = ("service", "spades", "chat", "workers", "bench", "tests")
SHELL_FILES = [ROOT / "Procfile", ROOT / ".ci" / "run", *sorted((ROOT / "scripts").iterdir())]

# a source path such as ``service/store_due.py``, ``service/store_*.py`` or ``tests/safety/test_spool.py``
# (not a tail of a longer path: ``tests/service/x.py`` is not ``service/x.py``)
SOURCE_PATH = re.compile(r"(?<![\w/.*-])((?:" + "|".join(CODE_DIRS) + r")/[\w/*.-]*?\.py)\b")
SETTING = re.compile(r"\bSLOWSPADES_[A-Z0-9_]*[A-Z0-9]\b")
SHELL_READ = re.compile(r"\$\{?(SLOWSPADES_\w+)|[\"'](SLOWSPADES_\w+)[\"']")


def _doc_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@lru_cache(maxsize=1)
def settings_read_by_code() -> frozenset[str]:
    """The configuration table's settings, and every ``SLOWSPADES_*`` name the code reads by its full name:
    a string constant that is exactly such a name in a Python file (``os.environ.get("SLOWSPADES_X")``),
    or a variable read in the ``Procfile``, ``.ci/run`` and ``scripts/`` (``${SLOWSPADES_X:-2}``). This file
    is left out: its own examples are no reads."""
    names = {"SLOWSPADES_" + name for name in SETTINGS}
    for folder in CODE_DIRS:
        for py in (ROOT / folder).rglob("*.py"):
            source = py.read_text(encoding="utf-8")
            if py == Path(__file__).resolve() or "SLOWSPADES_" not in source:
                continue
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and SETTING.fullmatch(node.value):
                    names.add(node.value)
    for shell in SHELL_FILES:
        if shell.is_file():
            for match in SHELL_READ.finditer(shell.read_text(encoding="utf-8")):
                names.add(match.group(1) or match.group(2))
    return frozenset(names)


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_source_path_a_doc_names_exists(doc: Path) -> None:
    missing = sorted({p for p in SOURCE_PATH.findall(doc.read_text(encoding="utf-8")) if not list(ROOT.glob(p))})
    assert not missing, f"{_doc_id(doc)} names files that do not exist: {missing}"


def test_every_setting_the_docs_name_is_read_by_the_code() -> None:
    known = settings_read_by_code()
    unknown = {f"{_doc_id(doc)}: {name}" for doc in DOCS
               for name in SETTING.findall(doc.read_text(encoding="utf-8")) if name not in known}
    assert not unknown, f"settings the code never reads: {sorted(unknown)}"


def test_every_configured_setting_is_in_the_settings_page() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    absent = sorted(f"SLOWSPADES_{name}" for name in SETTINGS if f"`SLOWSPADES_{name}`" not in page)
    assert not absent, f"docs/settings.md does not list: {absent} (its table is service.config.markdown_table())"


def test_the_checks_see_what_they_check() -> None:
    """The patterns find what they are for (so a doc full of stale names could not pass for want of a match)."""
    sample = "`service/store_due.py`, `tests/service/x.py`, `spades/nothere.py:f`, SLOWSPADES_BIND, SLOWSPADES_*"
    assert SOURCE_PATH.findall(sample) == ["service/store_due.py", "tests/service/x.py", "spades/nothere.py"]
    assert SETTING.findall(sample) == ["SLOWSPADES_BIND"]
    known = settings_read_by_code()
    assert {"SLOWSPADES_REDIS_URL", "SLOWSPADES_WEB_WORKERS", "SLOWSPADES_ALIVE_FILE"} <= known
    assert "SLOWSPADES_NO_SUCH_SETTING" not in known

"""The docs name only what the code has: every source path the README and ``docs/*.md`` name exists, every
dotted name (``service.store_due.scan``) is a module and a name defined or imported in it, every
``SLOWSPADES_*`` setting they name is read by the code, every setting the code reads is in
``docs/settings.md``, and every relative link leads to a file (and a heading) that is there. Reads files only
(no Redis, no processes)."""

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
# a dotted name of the project's packages: ``service.keys.SHARDS``, ``spades.autoplay`` (not ``spades.example.com``)
DOTTED = re.compile(r"(?<![\w./@=-])((?:service|spades|chat|workers)(?:\.\w+)+)")
HOSTNAME_ENDS = {"com", "org", "net", "localhost"}
SETTING = re.compile(r"\bSLOWSPADES_[A-Z0-9_]*[A-Z0-9]\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
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


@lru_cache(maxsize=None)
def defined_names(module: Path) -> frozenset[str]:
    """The names a module defines (functions, classes and their methods, assignments) or imports."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(out)


def dotted_name_problem(name: str) -> str | None:
    """Why ``name`` (``package.module.attr...``) is not in the code, or None: its longest prefix that is a module
    must define the next part (what follows that part, a method or a field, is not checked)."""
    parts = name.split(".")
    if parts[-1] in HOSTNAME_ENDS:
        return None
    for i in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:i])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if module.is_file():
            rest = parts[i:]
            if rest and rest[0] not in defined_names(module):
                return f"{name}: no {rest[0]} in {module.relative_to(ROOT)}"
            return None
    return f"{name}: no such module"


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_dotted_name_a_doc_names_is_in_the_code(doc: Path) -> None:
    problems = sorted({p for n in DOTTED.findall(doc.read_text(encoding="utf-8")) if (p := dotted_name_problem(n))})
    assert not problems, f"{_doc_id(doc)} names what the code does not have: {problems}"


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_source_path_a_doc_names_exists(doc: Path) -> None:
    missing = sorted({p for p in SOURCE_PATH.findall(doc.read_text(encoding="utf-8")) if not list(ROOT.glob(p))})
    assert not missing, f"{_doc_id(doc)} names files that do not exist: {missing}"


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)  # no comment is a heading
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in HEADING.findall(text)}


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_relative_link_of_a_doc_leads_somewhere(doc: Path) -> None:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # http://, https://, mailto:
            continue
        path, _, anchor = target.partition("#")
        page = (doc.parent / path).resolve() if path else doc
        if not page.exists() or anchor and anchor not in anchors(page):
            broken.append(target)
    assert not broken, f"{_doc_id(doc)} links to what is not there: {broken}"


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
    assert DOTTED.findall("`service.keys.SHARDS`, play@spades.example.com, `spades.nope`") == [
        "service.keys.SHARDS", "spades.nope"]
    assert "redis-appendfsync" in anchors(ROOT / "docs" / "staying-up.md")  # "## Redis appendfsync"
    assert dotted_name_problem("service.store.keys.SHARDS") is None
    assert dotted_name_problem("service.store.keys.NO_SUCH_NAME") == "service.store.keys.NO_SUCH_NAME: no NO_SUCH_NAME in service/store/keys.py"
    assert dotted_name_problem("service.no_such_module") == "service.no_such_module: no no_such_module in service/__init__.py"
    known = settings_read_by_code()
    assert {"SLOWSPADES_REDIS_URL", "SLOWSPADES_WEB_WORKERS", "SLOWSPADES_ALIVE_FILE"} <= known
    assert "SLOWSPADES_NO_SUCH_SETTING" not in known


def test_the_readme_stays_a_front_page() -> None:
    """What it is, the two commands, a played example, links: the rest lives in docs/ (issue 20)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move the detail into docs/"
    assert "scripts/run-local" in "\n".join(lines[:15]) and "scripts/test" in "\n".join(lines[:15])


_MARKER = re.compile(r"^(<{7}|={7}|>{7}|\|{7})( |$)", re.M)


def test_no_doc_or_source_keeps_a_merge_conflict_marker() -> None:
    """A merge left half-done (``<<<<<<< HEAD`` ... ``>>>>>>> branch``) reads as nonsense: none is kept anywhere."""
    root = Path(__file__).resolve().parent.parent
    kept = [str(p.relative_to(root)) for pattern in ("docs/**/*.md", "*.md", "**/*.py", "templates/**/*.j2",
                                                     "chat/locale/**/*.po")
            for p in root.glob(pattern) if ".venv" not in p.parts and _MARKER.search(p.read_text(encoding="utf-8"))]
    assert not kept, kept

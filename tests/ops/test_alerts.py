"""The alert rules and the dashboard (``ops/``): ``promtool check rules`` and ``promtool test rules`` pass, every
rule has a case that shows it firing, and every metric they name is one the service exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from service import metrics

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "ops"
RULES, CASES, DASHBOARD = OPS / "alerts.yml", OPS / "alerts_test.yml", OPS / "grafana-dashboard.json"
NAME = re.compile(r"\bslowspades_[a-z_]+\b")


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("promtool")
    if exe is None:
        pytest.fail("promtool not found: apt-get install prometheus (scripts/_setup.sh installs it)")
    return subprocess.run([exe, *args], cwd=OPS, capture_output=True, text=True, timeout=120)


def test_the_rules_are_valid() -> None:
    done = promtool("check", "rules", RULES.name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_the_rules_pass_their_unit_tests() -> None:
    done = promtool("test", "rules", CASES.name)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_rule_has_a_case_where_it_fires() -> None:
    rules = re.findall(r"^\s*- alert: (\w+)$", RULES.read_text(), re.M)
    assert len(rules) >= 10
    cases = CASES.read_text()
    firing = set(re.findall(r"alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels", cases))
    assert set(rules) <= firing, sorted(set(rules) - firing)


def exported(app: Any) -> set[str]:
    """Every sample name /metrics can show: each family's, with its type's suffixes."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
    names = set()
    for family in metrics.registry(app.extensions["slowspades_state"]).collect():
        names.update(family.name + s for s in suffixes.get(family.type, ("",)))
    return names


def test_the_rules_and_the_dashboard_name_only_exported_metrics(app, svc) -> None:  # type: ignore[no-untyped-def]
    names = exported(app)
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert len(exprs) >= 15
    used = set(NAME.findall(RULES.read_text())) | {n for e in exprs for n in NAME.findall(e)}
    assert used - names == set()
    # and the dashboard shows every family the service exports
    shown = {re.sub(r"_(total|bucket|count|sum)$", "", n) for e in exprs for n in NAME.findall(e)}
    families = {re.sub(r"_(total|bucket|count|sum)$", "", n) for n in names if n.startswith("slowspades_")}
    assert families - shown == set()

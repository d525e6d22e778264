"""``GET /rules``: the rules this service plays by, linked from the ``RULES`` reply."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

ROOT = Path(__file__).resolve().parents[2]
bp = Blueprint("rules", __name__)


@lru_cache(maxsize=1)
def _page() -> str:
    env = Environment(loader=FileSystemLoader(ROOT / "templates"), autoescape=select_autoescape(["j2", "html"]))
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    return env.get_template("web/rules.html.j2").render(rules=rules)


@bp.get("/rules")
def rules() -> Response:
    return Response(_page(), mimetype="text/html")

"""The site's front door (issue 45 case 10): ``GET /`` sends a visitor to the rules page in their browser's language
(what slowspades is and how to start), and ``GET /favicon.ico`` is the site's icon (a spade), which every browser asks
for on every page."""

from __future__ import annotations

from flask import Blueprint, Response, redirect, send_from_directory
from flask.typing import ResponseReturnValue

from .game import ASSETS

bp = Blueprint("home", __name__)


@bp.get("/")
def home() -> ResponseReturnValue:
    return redirect("/rules", code=302)


@bp.get("/favicon.ico")
def favicon() -> Response:
    return send_from_directory(ASSETS, "favicon.ico", mimetype="image/x-icon", max_age=86400)

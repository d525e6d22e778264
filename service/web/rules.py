"""``GET /rules/<lang>``: the rules page in the player's language, linked from the ``RULES`` reply.

The page is ``templates/web/rules.html.j2`` rendered with the conversation layer's catalogues
(``chat.render.environment``), so it speaks the player's language: ``/rules/en``, ``/rules/fr``,
``/rules/nb``, ``/rules/id``, ``/rules/el``. ``/rules`` picks the browser's language. Language
codes are read in any case (``/rules/EL``; ``/RULES/EL`` too, as links sent before the Greek
capitals fix were written).
"""

from __future__ import annotations

from functools import lru_cache

from flask import Blueprint, Response, abort, redirect, request
from flask.typing import ResponseReturnValue

from chat.commands import rules_page_context
from chat.languages import LANGUAGES
from chat.render import environment

bp = Blueprint("rules", __name__)
#: Each language's name in itself, as the page's language links show it.
NAMES = {"en": "English", "fr": "Français", "nb": "Norsk bokmål", "id": "Bahasa Indonesia", "el": "Ελληνικά"}
TARGET = 500  # RULES.md section 1 (a game may set another target; the page states the default)


@lru_cache(maxsize=None)
def page(lang: str) -> str:
    """The rules page of ``lang`` (one of :data:`chat.languages.LANGUAGES`), as HTML."""
    names = [(code, NAMES[code]) for code in LANGUAGES]
    return environment(lang).get_template("web/rules.html.j2").render(lang=lang, target=TARGET, languages=names,
                                                                      **rules_page_context(lang))


@bp.get("/rules")
@bp.get("/RULES")
def rules_default() -> ResponseReturnValue:
    lang = request.accept_languages.best_match(LANGUAGES, default="en") or "en"
    return redirect(f"/rules/{lang}", code=302)


@bp.get("/rules/<lang>")
@bp.get("/RULES/<lang>")
def rules(lang: str) -> Response:
    code = lang.lower()
    if code not in LANGUAGES:
        abort(404)
    return Response(page(code), mimetype="text/html")

"""WhatsApp's Content templates: which approved template a message outside the 24-hour window goes as, and its
variables.

Meta lets free-form WhatsApp messages go to a user only within 24 hours of the user's last message
(:mod:`service.store.window`); outside that window a business may only send a template approved beforehand
(``ContentSid``, with ``ContentVariables``). ``SLOWSPADES_WHATSAPP_TEMPLATES`` lists them by kind of message
and language: ``turn.en=HX...,reminder.en=HX...,invite.el=HX...``. The kinds, as the callers of
:func:`service.channels.destination` name them:

* ``turn``: a your-turn prompt (the game's message to a player who is to move: ``service.games.turns``, the
  prompt owed once a player left their game page);
* ``reminder``: a reminder of a move owed;
* ``invite``: an invitation to a game.

Every template gets one variable, ``{{1}}``: the message itself, as the free-form WhatsApp message would have
said it (one line, at most :data:`VARIABLE_MAX` characters: cut at a space, with an ellipsis, beyond). Nothing
else goes outside the window as a template (``service.channels``).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from chat.languages import LANGUAGES

TEMPLATE_KINDS = ("turn", "reminder", "invite")
#: ``{{1}}`` at most this long: Meta takes a template's body up to 1,024 characters, its own words included
VARIABLE_MAX = 900


class BadTemplates(ValueError):
    """``SLOWSPADES_WHATSAPP_TEMPLATES`` that does not read as ``kind.lang=ContentSid,...``."""


def templates(cfg: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """``WHATSAPP_TEMPLATES`` as ``{(kind, lang): ContentSid}`` (a mapping given by a test is taken as it is:
    ``{"turn": {"en": "HX..."}}``). Raises :class:`BadTemplates` for a kind or language it does not know."""
    raw = cfg.get("WHATSAPP_TEMPLATES") or ""
    out: dict[tuple[str, str], str] = {}
    if isinstance(raw, Mapping):
        pairs = [(f"{kind}.{lang}", sid) for kind, by_lang in raw.items() for lang, sid in dict(by_lang).items()]
    else:
        pairs = [tuple(part.split("=", 1)) if "=" in part else (part, "")  # type: ignore[misc]
                 for part in (p.strip() for p in str(raw).split(",")) if part]
    for key, sid in pairs:
        kind, _, lang = str(key).strip().partition(".")
        if kind not in TEMPLATE_KINDS or lang not in LANGUAGES or not str(sid).strip():
            raise BadTemplates(f"SLOWSPADES_WHATSAPP_TEMPLATES: {key}={sid} (kind.lang=ContentSid; kinds "
                               f"{', '.join(TEMPLATE_KINDS)}; languages {', '.join(LANGUAGES)})")
        out[(kind, lang)] = str(sid).strip()
    return out


def template_sid(cfg: Mapping[str, Any], kind: str, lang: str) -> str | None:
    """The ContentSid configured for ``kind`` in ``lang``, or None."""
    return templates(cfg).get((kind, lang))


def variables(text: str) -> str:
    """``ContentVariables`` (JSON) of a message: ``{"1": text}``, cut to :data:`VARIABLE_MAX` at a space."""
    line = " ".join(text.split())
    if len(line) > VARIABLE_MAX:
        cut = line.rfind(" ", 0, VARIABLE_MAX)
        line = line[:cut if cut > 0 else VARIABLE_MAX - 1].rstrip() + "…"
    return json.dumps({"1": line}, ensure_ascii=False)

"""Rendering: the Jinja2 environment over ``templates/``, gettext catalogues (Babel), and the finishing passes.

``render(name, lang, channel, **context)`` renders ``templates/sms/<name>.txt.j2``
(channels ``sms`` and ``whatsapp``) or ``templates/email/<name>.txt.j2`` plus ``<name>.html.j2``
(channel ``email``; the text template's first line is the subject). Templates
translate with ``_()`` (gettext, new style: ``_("%(name)s led %(card)s.", name=..., card=...)``)
against ``chat/locale/<lang>/LC_MESSAGES/messages.mo``.

An SMS is one line: whitespace collapses to single spaces; Greek is written in
GSM-7 capitals (:func:`chat.gsm.greek_caps`); then :func:`chat.gsm.to_gsm7`
guarantees the text never leaves GSM-7 (a player's name in another script
becomes ``?``).

A WhatsApp or Telegram message is the same line in full Unicode (:func:`finish_whatsapp`): no GSM-7 folding, Greek in its
own lower case with its accents. It is one message however long, up to Twilio's body limit
(:data:`WHATSAPP_BODY_MAX`); :func:`whatsapp_parts` splits a longer one at spaces (:attr:`Rendered.parts`).

Catalogues: extract with ``pybabel extract -F chat/babel.cfg -o chat/locale/messages.pot .``,
update with ``pybabel update -i chat/locale/messages.pot -d chat/locale``, compile with
``pybabel compile -d chat/locale`` (or ``python -m chat.render compile``). A missing or stale
``.mo`` is compiled in memory from its ``.po``.
"""

from __future__ import annotations

import io
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import FunctionType
from typing import Any, Mapping, MutableMapping

import jinja2
import jinja2.runtime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from markupsafe import Markup

from .gsm import greek_caps, segments, to_gsm7
from .languages import LANGUAGES, supported
from .names import is_forgotten

ROOT = Path(__file__).resolve().parent.parent
#: ``chat/templates/`` in an installed wheel (``setup.py`` copies the top-level ``templates/`` there), else the
#: checkout's ``templates/`` (the only copy in the repository)
_PACKAGED = Path(__file__).resolve().parent / "templates"
TEMPLATES_DIR = _PACKAGED if _PACKAGED.is_dir() else ROOT / "templates"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
SMS, WHATSAPP, EMAIL, TELEGRAM, PUSH = "sms", "whatsapp", "email", "telegram", "push"
CHANNELS = (SMS, WHATSAPP, EMAIL, TELEGRAM, PUSH)
#: Channels written with the SMS templates (``templates/sms/``), one line each (a push: the notification's text)
TEXT_CHANNELS = (SMS, WHATSAPP, TELEGRAM, PUSH)
#: Channels written in full Unicode, as the catalogue writes them (no GSM-7 folding)
UNICODE_CHANNELS = (WHATSAPP, TELEGRAM, PUSH)
#: The longest body Twilio takes in one message (characters); WhatsApp gets one message per reply up to it
WHATSAPP_BODY_MAX = 1600
#: The longest text the Telegram Bot API's ``sendMessage`` takes (characters)
TELEGRAM_TEXT_MAX = 4096
_URL = re.compile(r"(https?://[^\s]+|[^\s@(]+@[^\s@]+\.[a-z]+)")  # links and email addresses keep their case


@dataclass(frozen=True, slots=True)
class Rendered:
    """One outbound message. ``text``: the SMS or WhatsApp text, or the email's plain text body; ``subject``
    and ``html`` for email only. ``replies``: the replies the message offers (literal texts a player
    may send, each parsing to one legal command); empty when it offers none. ``channel``: what it was
    rendered for. ``ask``: the question those replies answer (:func:`chat.questions.question_key`), when they
    answer one of a game's questions (a Telegram button carries it, so a tap on an old one is refused). ``lang``: the
    language it was rendered in (a WhatsApp list's own words are written in it: :func:`chat.taps.list_words`)."""

    text: str
    subject: str | None = None
    html: str | None = None
    replies: tuple[str, ...] = ()
    channel: str = SMS
    ask: str = ""
    lang: str = ""

    @property
    def segments(self) -> int:
        """SMS segments this text costs (see :func:`chat.gsm.segments`)."""
        return segments(self.text)

    @property
    def parts(self) -> tuple[str, ...]:
        """The provider messages this text goes out as: one, but for a WhatsApp text beyond Twilio's body limit
        (:func:`whatsapp_parts`). An SMS is one message however many segments (the carrier joins them)."""
        if self.channel == TELEGRAM:
            return whatsapp_parts(self.text, TELEGRAM_TEXT_MAX)
        return whatsapp_parts(self.text) if self.channel == WHATSAPP else (self.text,)


def _po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"


def compile_catalogues() -> list[Path]:
    """Write ``messages.mo`` next to every ``messages.po``; returns the files written."""
    written = []
    for lang in LANGUAGES:
        po = _po_path(lang)
        if not po.exists():
            continue
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang if lang != "nb" else "nb_NO")
        mo = po.with_suffix(".mo")
        with mo.open("wb") as f:
            write_mo(f, catalog)
        written.append(mo)
    return written


@lru_cache(maxsize=None)
def translations(lang: str) -> NullTranslations:
    """The gettext translations of ``lang`` (English: the msgids themselves)."""
    lang = supported(lang)
    po = _po_path(lang)
    mo = po.with_suffix(".mo")
    if not po.exists():
        return NullTranslations()
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as f:
            return Translations(f, domain="messages")
    with po.open("rb") as f:
        catalog = read_po(f)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain="messages")


def gettext(lang: str, message: str, **values: Any) -> str:
    """``message`` translated into ``lang`` (and %-formatted with ``values``), as templates see it."""
    text = translations(lang).ugettext(message)
    return text % values if values else text


#: Escaped: every template but the plain-text ones. Jinja's ``select_autoescape(["html"])`` matches a name
#: ending in ``.html`` only, not ``page.html.j2`` (issue 22 case 1): what a player typed (a name, an address)
#: must never become markup, so HTML is the default and text templates are named as the exception.
TEXT_SUFFIXES = (".txt", ".txt.j2")


def autoescape(template_name: str | None) -> bool:
    """Whether a template escapes what it prints: yes unless it is a text template (``.txt.j2``); strings too."""
    return not (template_name or "").endswith(TEXT_SUFFIXES)


def _direct_gettext(trans: NullTranslations) -> dict[str, Any]:
    """The i18n extension's new-style ``gettext``, ``ngettext`` and ``_``, the same texts in fewer calls: each calls
    the catalogue itself (not through ``Context.call``) and ``_`` is ``gettext`` (not an alias resolving it anew).
    A template's ``_()`` and ``ngettext()`` are most of its calls."""
    ugettext, ungettext = trans.ugettext, trans.ungettext

    @jinja2.pass_context
    def gettext(context: jinja2.runtime.Context, string: str, **variables: Any) -> str:
        text = ugettext(string)
        if context.eval_ctx.autoescape:
            text = Markup(text)
        return text % variables  # always a format string, as jinja2.ext's

    @jinja2.pass_context
    def ngettext(context: jinja2.runtime.Context, singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        text = ungettext(singular, plural, num)
        if context.eval_ctx.autoescape:
            text = Markup(text)
        return text % variables

    return {"gettext": gettext, "ngettext": ngettext, "_": gettext}


def _text_gettext(trans: NullTranslations) -> dict[str, Any]:
    """:func:`_direct_gettext` for the SMS environment, which renders only text templates (``.txt.j2``: never
    escaped, and no template turns escaping on): plain functions, not handed the context, which Jinja then
    neither passes nor derives anew in a loop."""
    ugettext, ungettext = trans.ugettext, trans.ungettext

    def gettext(string: str, **variables: Any) -> str:
        return ugettext(string) % variables  # always a format string, as jinja2.ext's

    def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        return ungettext(singular, plural, num) % variables

    return {"gettext": gettext, "ngettext": ngettext, "_": gettext}


class _Context(jinja2.runtime.Context):
    """Jinja's template context, calling a macro or a plain function at once: Jinja's ``call`` first asks the callable
    (and its ``__call__``) whether it wants the context, the environment or the evaluation context handed to it,
    which neither ever does. Everything else (a filter or function that takes one) goes Jinja's way."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # the names of Jinja's own
        kind = type(__obj)
        if kind is not jinja2.runtime.Macro and (kind is not FunctionType or hasattr(__obj, "jinja_pass_arg")):
            return super().call(__obj, *args, **kwargs)
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return __self.environment.undefined("value was undefined because a callable raised a"
                                                " StopIteration exception")


#: What ``dict`` has as attributes (its methods): Jinja's ``x.name`` finds these before an item named so.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja's environment, ``x.name`` on a plain ``dict`` (a template's context is dicts) looked up as its item at
    once: Jinja tries the attribute first, which on a ``dict`` raises and catches an ``AttributeError`` for every
    item it reads. The same value: a ``dict`` has no attributes but its methods, which still come first."""

    context_class = _Context

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain ``dict`` of the environment's (all set before any template loads, and
        never changed after: :func:`environment`) and its own, not Jinja's ``ChainMap`` over the two: every render
        copies them into its context, and an import checks them key by key, which a ``ChainMap`` does slowly."""
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass  # undefined, as Jinja says it
        return super().getattr(obj, attribute)


@lru_cache(maxsize=None)
def environment(lang: str, sms: bool = False) -> jinja2.Environment:
    """The Jinja2 environment of one language (templates are shared, gettext is per language).

    SMS templates are rendered without ``trim_blocks`` (every line break becomes a space once the
    text is collapsed to one line); email templates with it (their layout is line by line).
    """
    env = _Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        extensions=["jinja2.ext.i18n", "jinja2.ext.do"],
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=not sms,
        lstrip_blocks=not sms,
        keep_trailing_newline=False,
        auto_reload=False,  # templates do not change under a running process: no stat per render
        cache_size=-1,  # every template kept in a plain dict (a few dozen): a render and its imports look up three
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]  # i18n adds it
    env.globals.update((_text_gettext if sms else _direct_gettext)(translations(lang)))
    env.globals["lang"] = lang
    env.filters["signed"] = lambda n: f"{int(n):+d}"
    return env


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    # "dave@.." (an address's short form, chat.names) ending a sentence gives no third dot
    for a, b in ((" .", "."), (" ,", ","), ("( ", "("), (" )", ")"), ("@...", "@..")):
        line = line.replace(a, b)
    return line


def finish_sms(text: str, lang: str) -> str:
    """The SMS finishing pass: one line, Greek in GSM-7 capitals, GSM-7 only."""
    line = _one_line(text)
    if lang == "el":  # capitals, but not in a link (the path of https://.../rules/el is case-sensitive) or an address
        line = "".join(part if _URL.fullmatch(part) else greek_caps(part) for part in _URL.split(line))
    return to_gsm7(line)


def unforget(context: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """``context`` with a forgotten player's name (``opp``, and ``opp`` of each of ``games``: :data:`FORGOTTEN`)
    as ``lang`` says it: "a forgotten player"."""
    out = dict(context)
    if isinstance(out.get("opp"), str) and is_forgotten(out["opp"]):
        out["opp"] = gettext(lang, "a forgotten player")
    if isinstance(out.get("games"), list):
        out["games"] = [dict(g, opp=gettext(lang, "a forgotten player"))
                        if isinstance(g, dict) and is_forgotten(str(g.get("opp") or "")) else g for g in out["games"]]
    return out


def finish_whatsapp(text: str) -> str:
    """The WhatsApp finishing pass: one line, as the catalogue writes it (full Unicode, Greek in lower case with
    its accents; nothing folded to GSM-7)."""
    return _one_line(text)


def finish_text(text: str, lang: str, channel: str) -> str:
    """The finishing pass of ``channel`` (``sms``: :func:`finish_sms`; ``whatsapp`` and ``telegram``:
    :func:`finish_whatsapp`)."""
    return finish_whatsapp(text) if channel in UNICODE_CHANNELS else finish_sms(text, lang)


def whatsapp_parts(text: str, limit: int = WHATSAPP_BODY_MAX) -> tuple[str, ...]:
    """``text`` as messages of at most ``limit`` characters: itself when it fits, else cut at the last space
    before each limit (a word longer than the limit is cut where it must be)."""
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit + 1)
        if cut <= 0:
            cut = limit
        parts.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest or not parts:
        parts.append(rest)
    return tuple(parts)


def render(name: str, lang: str, channel: str, replies: tuple[str, ...] = (), family: str = "",
           **context: Any) -> Rendered:
    """Render situation ``name`` in ``lang`` for ``channel`` (``"sms"``, ``"whatsapp"``, ``"telegram"`` or
    ``"email"``).

    ``context`` holds the template's variables (see each template's header comment);
    ``replies`` is carried through to :attr:`Rendered.replies`. ``family`` names a folder of
    ``templates/`` holding its own ``sms/`` and ``email/`` (the lifecycle's: ``"lifecycle"``).
    Raises ``jinja2.TemplateNotFound`` for an unknown name and ``jinja2.UndefinedError``
    for a missing variable.
    """
    lang = supported(lang)
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}: {', '.join(CHANNELS)}")
    ctx = {"channel": channel, **unforget(context, lang)}
    if isinstance(ctx.get("label"), str) and ctx["label"].strip():  # "#2" before a sentence: "#2 Your page...", never
        ctx["label"] = ctx["label"].strip() + " "                  # "#2Your page..." (issue 45 case 11)
    root = f"{family}/" if family else ""
    text = environment(lang, sms=True).get_template(f"{root}sms/{name}.txt.j2").render(ctx)
    if channel in TEXT_CHANNELS:
        return Rendered(finish_text(text, lang, channel), replies=tuple(replies), channel=channel, lang=lang)
    env = environment(lang)
    # the email says what the SMS says (same sentences, not shouted in capitals), laid out for email
    ctx["message"] = _one_line(text)
    body = env.get_template(f"{root}email/{name}.txt.j2").render(ctx).strip("\n")
    subject, _, rest = body.partition("\n")
    ctx["body"] = rest.strip("\n")
    ctx["subject"] = " ".join(subject.split())
    html = env.get_template(f"{root}email/{name}.html.j2").render(ctx)
    return Rendered(rest.strip("\n") + "\n", subject=" ".join(subject.split()), html=html, replies=tuple(replies),
                    channel=channel, lang=lang)


if __name__ == "__main__":  # python -m chat.render compile
    if sys.argv[1:] == ["compile"]:
        for path in compile_catalogues():
            print(path)
    else:
        print("usage: python -m chat.render compile", file=sys.stderr)
        sys.exit(2)

"""What a player may send, in one list: the rules page's "What to send" is built from it, and the tests check the
parser's kinds (:data:`chat.intent.ENGINE_KINDS`, :data:`chat.intent.META_KINDS`), the HELP reply and the house rules
(:class:`spades.events.HouseRules`) against it, so that none drifts from the others (issue 23 case 6).

Each command is written with the parser's own word for it in the player's language (:func:`word`: the first word of
the language's list, else the English one), and an example of what follows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .command_words import WORDS
from .render import gettext


def _(text: str) -> str:
    """A heading's msgid, marked for extraction (``pybabel extract -k _``); the page translates it."""
    return text


@dataclass(frozen=True)
class Command:
    """One thing to send: the parser's intent ``kind``, the example ``arg`` after the word, and whether HELP names it."""

    kind: str
    arg: str = ""
    help: bool = False


#: The groups of the rules page (a msgid heading each), with their commands, in order.
GROUPS: tuple[tuple[str, tuple[Command, ...]], ...] = (
    (_("Moves:"), (Command("double_nil"), Command("draw"), Command("keep"), Command("discard"),
                Command("exchange", " 2C 7D"), Command("bid", " 4"), Command("play", " QH"), Command("resign", help=True))),
    (_("Answers given ahead (your plan, hidden from your opponent):"), (
        Command("plan", " IF H 4H S AS D LOW C WIN"), Command("plan", " ALWAYS D LOW"), Command("plan", " LEAD AS KS"),
        Command("plan", " BID 0-3 5 4+ 3"), Command("plan"), Command("plan", " OFF"))),
    (_("Your games:"), (Command("hand", help=True), Command("score", help=True), Command("web", help=True),
                     Command("games", help=True), Command("claim"), Command("pause", " 3"),
                     Command("last"), Command("stats"))),
    (_("Talk:"), (Command("say", " nice play!"), Command("mute"), Command("unmute"))),
    (_("New games:"), (Command("new", " +4791234567", help=True), Command("new", " ana@example.com"),
                       Command("new", " BOT", help=True), Command("yes"), Command("no"), Command("rematch"))),
    (_("You:"), (Command("name", " Ana"), Command("lang", " FR", help=True), Command("autoplay", " OFF"),
              Command("auto", " ON"), Command("dn_setting", " OFF"), Command("remind", " OFF"),
              Command("tz", " Europe/Oslo"), Command("link", " ana@example.com"), Command("link", " 482913"),
              Command("via", " EMAIL"), Command("unlink"))),
    (_("Texts:"), (Command("help"), Command("rules", help=True), Command("stop"), Command("start"))),
)
COMMANDS: tuple[Command, ...] = tuple(c for _title, group in GROUPS for c in group)
#: The word of the kinds that have none of their own in the parser's lists (a phrase, or a carrier's word).
_FIXED = {"dn_setting": "DN", "stop": "STOP", "start": "START", "link": "LINK", "bid": "", "play": ""}
#: the ON and OFF of a language whose messages say their own (``MINN AV``), else the English ones
_ON_OFF = {"nb": ("PÅ", "AV")}
#: the TZ example of each language, the zone its TZ error messages name
_TZ = {"fr": "Europe/Paris", "id": "Asia/Jakarta", "el": "Europe/Athens"}
#: The house rules NEW takes (RULES.md section 10, :class:`spades.events.HouseRules`): field -> the word, in order.
HOUSE_RULES: tuple[tuple[str, str], ...] = (("failed_nil_bags", "BAGS"), ("floor", "FLOOR"), ("target", "TO"),
                                            ("simultaneous_draw", "ALT"))


def word(kind: str, lang: str) -> str:
    """The word the parser reads for ``kind`` in ``lang`` (its own first, else the English one)."""
    if kind in _FIXED:
        return _FIXED[kind]
    own = WORDS.get(lang, {}).get(kind) or WORDS["en"].get(kind) or (kind.upper(),)  # (HELP: a carrier word)
    return own[0]


def written(command: Command, lang: str) -> str:
    """``command`` as a player writes it in ``lang``: ``LANGUE FR``, ``SPILL QH``, ``NY +4791234567`` (the example
    number of the language's catalogue), ``MINN AV`` (the language's ON and OFF), ``FUSEAU Europe/Paris``."""
    arg = command.arg
    on, off = _ON_OFF.get(lang, ("ON", "OFF"))
    if arg in (" ON", " OFF"):
        arg = " " + (on if arg == " ON" else off)
    elif command.kind == "tz":
        arg = " " + _TZ.get(lang, arg.strip())
    if command.kind == "new" and arg.startswith(" +"):
        found = re.search(r"\+\d+", gettext(lang, "%(new)s +4791234567"))
        arg = " " + found.group(0) if found else arg
    return (word(command.kind, lang) + arg).strip()


def rules_page_context(lang: str) -> dict[str, object]:
    """What the rules page (``templates/web/rules.html.j2``) shows of this list: ``commands``, [(heading msgid,
    [each command as written in ``lang``])], and ``autoplay_off``."""
    return {"commands": [(title, [written(c, lang) for c in group]) for title, group in GROUPS],
            "autoplay_off": written(Command("autoplay", " OFF"), lang)}

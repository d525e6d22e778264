"""From what a player texted to an :class:`Intent`: an engine command waiting for its seat, or a meta command.

:func:`parse` is pure and knows nothing of the game: ``QH`` is a ``play``
intent whether or not the player holds the queen of hearts, and ``4`` is a
``bid`` in every phase; the engine decides legality, and
:meth:`Intent.command` adapts the few replies whose meaning depends on the
phase (a single card during the exchange, ``0`` or ``NONE`` meaning swap
nothing).

Tolerant of case, accents, extra spaces and punctuation, ``10`` or ``T``, suit
symbols (``♥Q``, ``Q♥️``), Greek look-alike capitals, and the words of the
player's language besides English. An optional ``#N`` prefix names one of the
player's games. The carrier keywords (STOP, UNSUBSCRIBE, END, QUIT, STOPALL,
REVOKE, OPTOUT, CANCEL; START; HELP) mean only what carriers make them mean,
whatever follows them.

This module tokenises a message (its ``#N`` prefix, emoji) and reads its words in order; the words themselves
are in :mod:`chat.command_words` (each language's command words), :mod:`chat.card_words` (cards, suits,
numbers), :mod:`chat.address_words` (NEW, LINK, VIA) and :mod:`chat.plan_words` (a plan's syntax); the
:class:`chat.intent.Intent` it returns is in :mod:`chat.intent`.
"""

from __future__ import annotations

import re
import unicodedata

from spades.plans import Plan

from .address_words import VIA, link_intent, new_intent, one_address
from .card_words import CARDISH, NUMBER, read_cards, read_count
from .command_words import (
    EASIER,
    EASY,
    HARD,
    HARDER,
    HELP_WORDS,
    OPT_IN_WORDS,
    OPT_OUT,
    TABLES,
    match_phrase,
    read_flag,
)
from .intent import Intent, Say
from .languages import LANGUAGES, normalize_language, supported
from .names import check_name
from .normalize import normalize
from .plan_words import RANGE, plan_intent

MAX_LENGTH = 1600  # ten segments; anything longer is not a reply to a prompt
_PREFIX = re.compile(r"^\s*#\s*(\d{1,6})(?!\d)[\s:.,;)\-]*")
#: An emoji meaning yes or agreed, as a whole message (``OK`` is a yes already); other emoji are left out.
_YES_EMOJI = frozenset("\U0001F44D\U0001F44C\u2705\U0001F197\u2714")
_SKIN_TONES = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))


def _emoji(token: str) -> bool:
    """Whether ``token`` is only pictures (emoji, skin tones, joiners): no letter, digit or suit."""
    return all(unicodedata.category(ch) in ("So", "Sk", "Cn") or ch in _SKIN_TONES for ch in token)


def _without_emoji(tokens: list[str]) -> tuple[list[str], bool]:
    """The tokens with the emoji left out (``K 👍``: ``K``), and whether a yes emoji (``👍``, ``👌``) was among them."""
    words, yes = [], False
    for token in tokens:
        if token.isascii():  # no picture in it
            words.append(token)
            continue
        pictures = "".join(ch for ch in token if _emoji(ch))
        yes = yes or any(ch in _YES_EMOJI for ch in pictures)
        rest = "".join(ch for ch in token if not _emoji(ch))
        if rest:
            words.append(rest)
    return words, yes


def parse(text: str | None, lang: str = "en") -> Intent:
    """What ``text`` (a message from a player whose language is ``lang``) asks for. Never raises.

    A message in another language's words (``garde`` in an English game) is an ``unknown`` intent with the reason
    ``other_lang`` and that language's code as ``arg`` (the reply suggests ``LANG FR``), never that language's command.
    """
    return _parse(text, supported(lang), hint=True)


def _parse(text: str | None, lang: str, hint: bool) -> Intent:
    """:func:`parse` in ``lang``; ``hint``: try the other languages' words when nothing else is understood."""
    raw = text or ""
    say = Say(raw)
    if not raw.strip():
        return say("unknown", reason="empty")
    game = None
    m = _PREFIX.match(raw)
    if m:
        game = int(m.group(1))
        raw = raw[m.end():]
    say = Say(say.text, game)  # the message as received, prefix and all
    norm = normalize(raw[:MAX_LENGTH + 1])
    tokens, yes_emoji = _without_emoji(norm.split())
    if tokens:
        first = tokens[0]
        two = " ".join(tokens[:2])
        if first in OPT_OUT or two in OPT_OUT:
            return say("stop", carrier=True)
        if first in OPT_IN_WORDS:
            return say("start", carrier=True)
        if first in HELP_WORDS:
            return say("help", carrier=True)
    if len(raw) > MAX_LENGTH and not (tokens and match_phrase(tokens, TABLES[lang])[0] == "say"):
        return say("unknown", reason="too_long")  # (a long SAY is trimmed by the service, saying so)
    if not tokens:
        if game is not None and not raw.strip():
            return say("hand")
        if yes_emoji:  # a thumbs up on its own: OK
            return say("yes")
        return say("unknown", reason="not_understood")
    table = TABLES[lang]
    kind, rest = match_phrase(tokens, table)

    if kind in ("stop", "start", "help"):
        return say(kind, carrier=False)
    if kind == "none" and not rest:
        return say("exchange", cards=())
    if kind in ("keep", "discard", "draw", "hand", "score", "rules", "resign", "yes", "no", "games", "claim",
                "rematch", "web", "last", "stats") and not rest:
        return say(kind)
    if kind == "rematch" and len(rest) <= 2 and " ".join(rest) in EASIER | HARDER:
        return say("rematch", arg="easier" if " ".join(rest) in EASIER else "harder")
    if kind == "rematch" and len(rest) == 1 and rest[0] in EASY | HARD:  # REVANCHE FACILE: one level toward it
        return say("rematch", arg="easier" if rest[0] in EASY else "harder")
    if kind == "plan":
        flag = read_flag(rest, lang)
        if not rest:
            return say("plan")
        if flag is False and len(rest) == 1:
            return say("plan", flag=False)
        return plan_intent(rest, lang, say)
    if kind in ("if", "always", "lead"):
        return plan_intent(tokens, lang, say)
    if kind == "bid" and rest and RANGE.match(rest[0]) and not NUMBER.match(rest[0]):
        return plan_intent(tokens, lang, say)  # BID 0-3 5 4+ 3: a bid by the opponent's (a plan)
    if kind == "double_nil" and len(rest) <= 2 and rest and table.get(rest[-1]) == "high" \
            and (len(rest) == 1 or table.get(rest[0]) == "exchange"):
        return say("double_nil", plan=Plan(0, swap_high=3))  # DN HIGH, DN SWAP HIGH: the exchange given with it
    if kind == "double_nil":
        flag = read_flag(rest, lang)
        if rest and flag is not None and len(rest) == 1:
            return say("dn_setting", flag=flag)
        if not rest:
            return say("double_nil")
    if kind == "draw" and rest:
        flag = read_flag(rest, lang)
        if flag is not None and len(rest) == 1:  # DRAW ON = always draw = do not ask DN
            return say("dn_setting", flag=not flag)
    if kind == "nil" and not rest:
        return say("bid", number=0)
    if kind == "bid":
        if len(rest) == 1 and table.get(rest[0]) == "nil":
            return say("bid", number=0)
        count = read_count(rest, lang) if rest else None
        if count is not None:  # BID 4, BID FOUR, BID 4 TRICKS
            return say("bid", number=count)
        if not rest:
            return say("unknown", reason="missing_arg", arg="bid")
    if kind == "exchange":
        if rest == ["0"] or not rest or (len(rest) <= 2 and table.get(" ".join(rest)) == "none"):
            return say("exchange", cards=())
        cards = read_cards(rest, lang)
        if cards is not None:
            return say("exchange", cards=tuple(cards))
    if kind == "play" and rest:
        cards = read_cards(rest, lang)
        if cards is not None and len(cards) == 1:
            return say("play", card=cards[0])
    if kind == "lang":
        if not rest:
            return say("unknown", reason="missing_arg", arg="lang")
        code = normalize_language(" ".join(rest))
        if code is None:
            return say("unknown", reason="bad_lang", arg=" ".join(rest)[:20])
        return say("lang", arg=code)
    if kind in ("remind", "auto", "autoplay"):
        flag = read_flag(rest, lang)
        if flag is None or len(rest) != 1:
            return say("unknown", reason="missing_arg", arg=kind)
        return say(kind, flag=flag)
    if kind == "vacation":  # VACATION 7: not a command (docs/commands.md), the reply names PAUSE 7
        days = rest[0] if len(rest) == 1 and rest[0].isdigit() and 0 < int(rest[0]) <= 365 else ""
        return say("unknown", reason="vacation", arg=days)
    if kind == "resume" and not rest:  # RESUME: the pause ends now (PAUSE 0)
        return say("pause", number=0)
    if kind == "pause":
        if not rest:
            return say("pause", number=None)
        if len(rest) == 1 and rest[0].isdigit() and int(rest[0]) <= 365:
            return say("pause", number=int(rest[0]))
        return say("unknown", reason="bad_number", arg="pause")
    if kind == "tz":
        words = raw.split()
        if len(words) < 2:
            return say("unknown", reason="missing_arg", arg="tz")
        return say("tz", arg=words[-1][:40])
    if kind == "new":
        words = raw.split()[1:]
        return new_intent(words, lang, say)
    if kind == "name":
        chosen = " ".join(raw.split()[len(tokens) - len(rest):])
        if not rest:
            return say("unknown", reason="missing_arg", arg="name")
        name = check_name(chosen)
        if name is None:
            return say("unknown", reason="bad_name", arg=chosen[:20])
        return say("name", arg=name)
    if kind == "say":  # SAY <text>: the text as typed (on one line), for the opponent (service.lifecycle.talk)
        line = " ".join(raw.split()[len(tokens) - len(rest):])
        if not line:
            return say("unknown", reason="missing_arg", arg="say")
        return say("say", arg=line)
    if kind in ("mute", "unmute") and not rest:
        return say(kind)
    if kind == "greeting":
        return say("unknown", reason="greeting")
    if kind in ("link", "unlink"):
        return link_intent(kind, raw.split()[1:], say)  # (LINK and UNLINK are one word)
    if kind == "web" and rest and one_address(raw.split()[1:]):  # LIEN moi@example.fr: the page's word, read as
        return link_intent("link", raw.split()[1:], say)          # LINK's (issue 45 case 12)
    if kind == "via":
        if len(rest) == 1 and rest[0] in VIA:
            return say("via", arg=VIA[rest[0]])
        address = one_address(raw.split()[1:])  # VIA ana@example.com: that address of the player's first
        return say("via", arg=address) if address else say("unknown", reason="missing_arg", arg="via")

    # no command word: a bare number (a bid), cards, or nothing we know
    if len(tokens) == 1 and NUMBER.match(tokens[0]):
        n = int(tokens[0])
        if n < 0 or n > 99:
            return say("unknown", reason="bad_number", arg=tokens[0])
        return say("bid", number=n)
    count = read_count(tokens, lang) if kind is None else None
    if count is not None and count <= 99:  # "four", "4 tricks"
        return say("bid", number=count)
    if kind is None or kind in ("keep", "discard", "play"):  # "♦️2" reads D 2; "K D" the king of diamonds
        cards = read_cards(tokens, lang)
        if cards is not None:
            if len(cards) == 1:
                return say("play", card=cards[0])
            return say("exchange", cards=tuple(cards))
        if len(tokens) == 1 and CARDISH.match(tokens[0]):
            return say("unknown", reason="bad_card", arg=tokens[0])
    if hint:  # another language's words: say which, rather than act on them (issue 23 case 10)
        for other in LANGUAGES:
            if other in (lang, "en") or read_count(tokens, other) is not None:
                continue  # a number word of another language ("to", "en", "lima") is too often a word of this one
            alt = _parse(raw, other, hint=False)
            if not alt.is_unknown and alt.kind not in ("stop", "start", "help"):
                return say("unknown", reason="other_lang", arg=other.upper())
    return say("unknown", reason="not_understood")

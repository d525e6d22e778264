"""What a tapped button is answered (on Telegram the small note shown over the chat, ``answerCallbackQuery``; on
WhatsApp a message): the answer played, or why nothing was: the question was answered already (a stale button), or
the answer is not allowed now. And the few words of a WhatsApp list of answers (:func:`list_words`)."""

from __future__ import annotations

from .render import gettext


def _(text: str) -> str:
    """A msgid, marked for extraction (``pybabel extract -k _``); :func:`tap_answer` translates it."""
    return text


STALE = _("That question was already answered: nothing was played.")
REFUSED = _("Not played: that answer is not allowed now.")
#: a WhatsApp list's button, which opens the list (WhatsApp shows at most 20 characters)
CHOOSE = _("Choose")
#: the last item of a WhatsApp list of more than ten answers: it sends the rest (at most 24 characters)
MORE = _("More…")
#: the text above the list of the rest
OTHERS = _("The other answers:")
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def button_label(reply: str) -> str:
    """What a button shows: a card with its suit's sign (``QH``: ``Q♥``), anything else as typed."""
    if 2 <= len(reply) <= 3 and reply[-1] in SUITS and reply[:-1] in {*"23456789TJQKA", "10"}:
        return reply[:-1] + SUITS[reply[-1]]
    return reply


def tap_answer(lang: str, outcome: str, reply: str) -> str:
    """The answer to a tap in ``lang``: ``stale`` and ``illegal`` say why nothing was played; ``applied`` and
    ``planned`` show the answer taken (``✓ Q♥``), and so does ``duplicate`` (the same tap handled again: it was taken);
    anything else nothing (its message says it)."""
    if outcome == "stale":
        return gettext(lang, STALE)
    if outcome == "illegal":
        return gettext(lang, REFUSED)
    return f"✓ {button_label(reply)}" if outcome in ("applied", "planned", "duplicate") and reply else ""


def list_words(lang: str) -> tuple[str, str, str]:
    """A WhatsApp list's own words in ``lang``: its button, the item that sends the rest, the text above the rest."""
    return gettext(lang, CHOOSE), gettext(lang, MORE), gettext(lang, OTHERS)

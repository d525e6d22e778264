"""The seam between the service and the conversation layer (``chat/``, issue 4): thin on purpose.

Everything a player sends is read by :func:`parse_text` (``chat.parse``), and everything the
service sends about a game or a command is rendered by ``chat`` (``message_for``, ``prompt``,
``explain_error``, ``render``) through the functions below, so the handler never builds text
itself. :func:`command_text` is the inverse of the parser for moves (tests and the load
benchmark use it to produce what a player would type).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import chat
from chat import Intent, Rendered
from chat import ahead as ahead_text
from chat import messages as chat_messages
from chat.names import display_name
from spades.cards import cards_text
from spades.commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Forfeit, Keep, Play
from spades.errors import RuleError
from spades.game import PlayerView
from spades.plans import Plan, PlanError

__all__ = ["Intent", "Rendered", "parse_text", "turn_message", "resend", "error_message", "render_message",
           "command_text", "named", "move_news", "DoubleNilAnswered"]


def parse_text(text: str, lang: str = "en", channel: str = "sms") -> Intent:
    """What a player's message asks for (``chat.parse``). An email whose whole body is not understood
    is read again from its first line (a reply with a signature or a quote the mail parser left in)."""
    said = chat.parse(text or "", lang)
    if said.is_unknown and channel == "email":
        first = next((line for line in (text or "").splitlines() if line.strip()), "")
        if first.strip() != (text or "").strip():
            again = chat.parse(first, lang)
            if not again.is_unknown:
                return again
    return said


def turn_message(view: PlayerView, lang: str, channel: str, events: Sequence[dict[str, Any]],
                 opponent: str, label: str = "", level: str | None = None,
                 h2h: Mapping[str, int] | None = None) -> Rendered | None:
    """``chat.message_for``: the prompt if the player is to move, news worth a message, else None (``level``:
    the computer's, when it is the opponent: the game's first message names it; ``h2h``: the head-to-head record,
    which the game's first message and its end tell)."""
    return chat.message_for(view, lang, channel, events, opponent, label, level, h2h)


def move_news(view: PlayerView, lang: str, channel: str, events: Sequence[dict[str, Any]], opponent: str,
              label: str = "") -> Rendered | None:
    """The answer to a move after which the player waits, when that move showed them cards (issue 14 case 3):
    the cards their exchange brought, the card their KEEP discarded (RULES D2: they see it), then where the
    game stands (``move_news``, the ``waiting`` message after it); None when ``events`` (the player's own
    redacted events of the move) showed them nothing."""
    received: list[str] = []
    discarded = None
    for e in events:
        if e.get("seat") != view.seat:
            continue
        if e.get("type") == "cards_exchanged":
            received = list(e.get("received") or [])
        elif e.get("type") == "draw_decided" and e.get("kept_first"):
            discarded = e.get("discarded")
    if not received and discarded is None:
        return None
    ctx = chat_messages.context(view, events, opponent, label, channel)
    return chat.render("move_news", lang, channel, received=received, discarded=discarded, **ctx)


def resend(view: PlayerView, lang: str, channel: str, opponent: str, label: str = "") -> Rendered:
    """``HAND`` (and reminders): the prompt again from the view alone."""
    return chat.prompt(view, lang, channel, events=None, opponent_name=opponent, game_label=label)


class DoubleNilAnswered(RuleError):
    """``DRAW`` once the player answered this hand's double nil question (the engine's ``double_nil_not_allowed``
    is about declaring it): the question was answered, so what may be sent now follows (issue 14 case 5)."""

    code = "double_nil_answered"


class NothingToConfirm(RuleError):
    """``YES`` with no invitation and no ``RESIGN`` waiting, in a game that asks the player something: what it
    asks follows (issue 45 case 8: "yes" in the draw answered about invitations only)."""

    code = "nothing_to_confirm"


def error_message(error: Any, view: PlayerView | None, lang: str, channel: str, opponent: str = "",
                  label: str = "") -> Rendered:
    """``chat.explain_error``: why a message was refused, and what may be sent now (a plan the parser did not
    understand: why, and an example of one, ``chat.ahead``)."""
    if isinstance(error, Intent) and error.reason == "bad_plan":
        return named_plan(None, error.arg or "", lang, channel, opponent, label)
    return chat.explain_error(error, view, lang, channel, opponent, label)


def plan_message(plan: Plan | None, error: PlanError | None, lang: str, channel: str, opponent: str,
                 label: str = "") -> Rendered:
    """``chat.ahead.plan_message``: the plan (RULES D12) as it now stands, or why it was not changed."""
    return named_plan(plan, error, lang, channel, opponent, label)


def named_plan(plan: Plan | None, error: PlanError | str | None, lang: str, channel: str, opponent: str,
               label: str) -> Rendered:
    return ahead_text.plan_message(plan, error, lang, channel, display_name(opponent, channel), label)


def named(context: dict[str, Any], channel: str) -> dict[str, Any]:
    """``context`` with the opponents (``opp``, and ``opp`` of each of ``games``) as ``channel`` shows them
    (``chat.names.display_name``: a chosen name as it is, an address in an SMS as ``+30..5678``, never cut)."""
    out = dict(context)
    if isinstance(out.get("opp"), str):
        out["opp"] = display_name(out["opp"], channel)
    if isinstance(out.get("games"), list):
        out["games"] = [dict(g, opp=display_name(g["opp"], channel)) if isinstance(g, dict) and "opp" in g else g
                        for g in out["games"]]
    return out


def render_message(name: str, lang: str = "en", channel: str = "sms", **context: Any) -> Rendered:
    """Any other message (``chat.render``), opponents :func:`named`; ``status`` (``view``, ``opponent``,
    ``label``) is the prompt again."""
    if name == "status":
        return resend(context["view"], lang, channel, context.get("opponent", ""), context.get("label", ""))
    return chat.render(name, lang, channel, **named(context, channel))


def command_text(command: Command) -> str:
    """What a player types for ``command`` (each parses back to it with :func:`parse_text`)."""
    if isinstance(command, DeclareDoubleNil):
        return "DN"
    if isinstance(command, DeclineDoubleNil):
        return "DRAW"
    if isinstance(command, Keep):
        return "KEEP"
    if isinstance(command, Discard):
        return "DISCARD"
    if isinstance(command, Exchange):
        return "SWAP " + (cards_text(command.cards) if command.cards else "NONE")
    if isinstance(command, Bid):
        return f"BID {command.tricks}"
    if isinstance(command, Play):
        return command.card.code
    if isinstance(command, Forfeit):
        return "RESIGN"
    raise TypeError(command)

"""The seam between the service and the conversation layer (``chat/``, issue 4).

Two functions are all the handler uses: :func:`parse_text` (what a player sent ->
an :class:`Intent`) and :func:`render_message` (a message name + context -> a
:class:`Rendered` text/subject/html). Until ``chat`` lands they are implemented
here, minimally, in English; switching is replacing the bodies of those two
functions with calls to ``chat.parse`` / ``chat.render`` (and mapping chat's
intent onto :class:`Intent` if it differs).

:func:`command_text` is the inverse of the parser for moves (tests and the load
benchmark use it to produce what a player would type).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from spades.cards import Card, CardSyntaxError, cards_text, parse_card
from spades.commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Forfeit, Keep, Play

# intent kinds
NEW, ACCEPT, HELP, STATUS, RESIGN, MOVE, UNKNOWN = "new", "accept", "help", "status", "resign", "move", "unknown"


@dataclass(frozen=True)
class Intent:
    """What a message asks for. ``kind`` is one of the constants above.

    For ``move``: ``move`` names the command (``double_nil``, ``draw``, ``keep``,
    ``discard``, ``exchange``, ``bid``, ``play``) with ``cards`` / ``number``.
    For ``new``: ``address`` (the opponent as typed) and ``number`` (an optional target score).
    """

    kind: str
    move: str = ""
    cards: tuple[Card, ...] = ()
    number: int | None = None
    address: str = ""
    text: str = ""
    error: str = ""


@dataclass(frozen=True)
class Rendered:
    """One outbound message: the text (SMS body or email plain text), and for email a subject and HTML."""

    text: str
    subject: str = ""
    html: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_WORDS = {
    "dn": "double_nil", "double": "double_nil", "doublenil": "double_nil", "blind": "double_nil",
    "draw": "draw", "see": "draw", "nodn": "draw",
    "keep": "keep", "k": "keep", "take": "keep",
    "discard": "discard", "d": "discard", "toss": "discard",
}


_CHAT_ENGINE = {"double_nil", "draw", "keep", "discard", "exchange", "bid", "play"}
_CHAT_MAP = {"resign": RESIGN, "yes": ACCEPT, "help": HELP, "rules": HELP, "hand": STATUS, "score": STATUS}
OTHER = "other"  # a word of the conversation layer the handler does not act on (lifecycle: STOP, GAMES...)


def parse_text(text: str, lang: str = "en") -> Intent:
    """Turn a message into an intent: ``chat.parse`` (issue 4), else the minimal grammar below."""
    try:
        import chat
    except ImportError:  # pragma: no cover - the conversation layer is not installed
        return _parse_local(text, lang)
    said = chat.parse(text, lang)
    raw = (text or "").strip()
    if said.kind in _CHAT_ENGINE:
        cards = tuple(said.cards) or ((said.card,) if said.card is not None else ())
        return Intent(MOVE, move=said.kind, cards=cards, number=said.number, text=raw)
    if said.kind == "new":
        target = said.rules.target if said.rules is not None else None
        return Intent(NEW, address=said.arg or "", number=target, text=raw)
    if said.kind in _CHAT_MAP:
        return Intent(_CHAT_MAP[said.kind], text=raw)
    if said.kind == "unknown":
        local = _parse_local(text, lang)  # e.g. a reply with a signature the mail parser left in
        if local.kind != UNKNOWN or said.reason not in ("bad_card", "bad_number", "missing_arg"):
            return local
        return Intent(UNKNOWN, text=raw, error=said.reason or "")
    return Intent(OTHER, move=said.kind, text=raw)


def _parse_local(text: str, lang: str = "en") -> Intent:
    """The service's own minimal English grammar (used when ``chat`` does not understand)."""
    raw = (text or "").strip()
    words = raw.split()
    if not words:
        return Intent(UNKNOWN, text=raw)
    head = words[0].lower().strip(".!")
    rest = words[1:]
    if head in ("new", "invite", "challenge") and rest:
        number = None
        if len(rest) >= 3 and rest[-2].lower() == "to" and rest[-1].isdigit():
            number = int(rest[-1])
            rest = rest[:-2]
        return Intent(NEW, address=" ".join(rest), number=number, text=raw)
    if head in ("yes", "accept", "ok", "y") and not rest:
        return Intent(ACCEPT, text=raw)
    if head in ("help", "?", "rules", "commands"):
        return Intent(HELP, text=raw)
    if head in ("status", "hand", "score", "show"):
        return Intent(STATUS, text=raw)
    if head in ("resign", "quit", "forfeit"):
        return Intent(RESIGN, text=raw)
    joined = "".join(w.lower() for w in words)
    if joined in ("doublenil", "dn", "blindnil") or (head in _WORDS and not rest):
        return Intent(MOVE, move=_WORDS.get(joined, _WORDS.get(head, "")), text=raw)
    if head == "nil" and not rest:
        return Intent(MOVE, move="bid", number=0, text=raw)
    if head == "bid" and len(rest) == 1:
        arg = rest[0].lower()
        if arg == "nil":
            return Intent(MOVE, move="bid", number=0, text=raw)
        if arg.isdigit():
            return Intent(MOVE, move="bid", number=int(arg), text=raw)
    if head.isdigit() and not rest:
        return Intent(MOVE, move="bid", number=int(head), text=raw)
    if head in ("exchange", "swap", "throw"):
        if not rest or [w.lower() for w in rest] in (["none"], ["nothing"], ["0"]):
            return Intent(MOVE, move="exchange", cards=(), text=raw)
        try:
            return Intent(MOVE, move="exchange", cards=tuple(parse_card(w) for w in rest), text=raw)
        except CardSyntaxError as exc:
            return Intent(UNKNOWN, text=raw, error=f"not a card: {exc.text}")
    card_words = rest if head in ("play", "p") else words
    if card_words:
        try:
            return Intent(MOVE, move="play", cards=(parse_card("".join(card_words)),), text=raw)
        except CardSyntaxError:
            pass
    return Intent(UNKNOWN, text=raw)


def to_command(intent: Intent, seat: int, phase: str | None = None) -> Command:
    """The engine command of a ``move`` / ``resign`` intent for ``seat`` (``phase``: the game's phase;
    during the exchange a lone card or a bare 0 means an exchange)."""
    if intent.kind == RESIGN:
        return Forfeit(seat, "resigned")
    m = intent.move
    if phase == "exchange" and m == "play":
        return Exchange(seat, tuple(intent.cards))
    if phase == "exchange" and m == "bid" and not intent.number:
        return Exchange(seat, ())
    if m == "double_nil":
        return DeclareDoubleNil(seat)
    if m == "draw":
        return DeclineDoubleNil(seat)
    if m == "keep":
        return Keep(seat)
    if m == "discard":
        return Discard(seat)
    if m == "exchange":
        return Exchange(seat, tuple(intent.cards))
    if m == "bid":
        return Bid(seat, int(intent.number or 0))
    if m == "play":
        return Play(seat, intent.cards[0])
    raise ValueError(f"not a move: {intent!r}")


def command_text(command: Command) -> str:
    """What a player types for ``command`` (the inverse of :func:`parse_text` for moves)."""
    if isinstance(command, DeclareDoubleNil):
        return "DN"
    if isinstance(command, DeclineDoubleNil):
        return "DRAW"
    if isinstance(command, Keep):
        return "KEEP"
    if isinstance(command, Discard):
        return "DISCARD"
    if isinstance(command, Exchange):
        return "EXCHANGE " + (cards_text(command.cards) if command.cards else "NONE")
    if isinstance(command, Bid):
        return f"BID {command.tricks}"
    if isinstance(command, Play):
        return f"PLAY {command.card.code}"
    if isinstance(command, Forfeit):
        return "RESIGN"
    raise TypeError(command)


# ---------------------------------------------------------------------------------------
# rendering
def _describe(event: dict[str, Any], seat: int) -> str | None:
    """One line about an event, as the player at ``seat`` may know it (``event`` is redacted)."""
    t = event["type"]
    who = "You" if event.get("seat") == seat else "Opponent"
    if t == "game_started":
        return "New game! " + ("You are" if event["first_player"] == seat else "Opponent is") + " first to draw."
    if t == "hand_started":
        return f"Hand {event['hand']} begins."
    if t == "double_nil_declared":
        return f"{who} bid DOUBLE NIL."
    if t == "draw_decided" and event.get("seat") == seat:
        return f"You kept {event['kept']}, discarded {event['discarded']}."
    if t == "cards_exchanged":
        n = len(event["thrown"]) if "thrown" in event else event.get("count", 0)
        return f"{who} exchanged {n} card(s)."
    if t == "bid_made":
        return f"{who} bid {event['tricks'] if event['tricks'] else 'NIL'}."
    if t == "card_played" and event.get("seat") != seat:
        return f"Opponent played {event['card']}."
    if t == "trick_won":
        return ("You" if event["seat"] == seat else "Opponent") + " won the trick."
    if t == "hand_scored":
        mine, theirs = event["scores"][seat], event["scores"][1 - seat]
        return f"Hand {event['hand']} scored: you {mine['hand_total']:+d} ({mine['game_total']}), " \
               f"opponent {theirs['hand_total']:+d} ({theirs['game_total']})."
    if t == "game_ended":
        won = event["winner"] == seat
        s = event["scores"]
        why = {"resigned": " by resignation", "timeout": " on time"}.get(event["reason"], "")
        return f"GAME OVER: you {'WON' if won else 'lost'}{why}, {s[seat]} to {s[1 - seat]}."
    return None


def _prompt(v: Any) -> str:
    """What the player must do now, from their ``spades.game.PlayerView``."""
    hand = " ".join(c.code for c in v.hand)
    if v.phase == "over":
        return ""
    if not v.my_turn:
        return "Waiting for your opponent."
    if v.phase == "draw":
        if v.double_nil_offer:
            return f"Hand {v.hand_no}: bid DOUBLE NIL before seeing a card? Reply DN, or DRAW."
        return f"Card: {v.offered.code}. KEEP or DISCARD? Hand: {hand or '-'}"
    if v.phase == "exchange":
        return f"Hand: {hand}. EXCHANGE up to 3 cards (e.g. EXCHANGE 2C 3D) or EXCHANGE NONE."
    if v.phase == "bid":
        opp = v.bids[v.opponent]
        said = f" Opponent bid {opp if opp else 'NIL'}." if opp is not None else ""
        return f"Hand: {hand}.{said} BID 0-13 (0 = nil)."
    trick = " ".join(c.code for _s, c in v.trick)
    led = f"Trick: {trick}. " if trick else "Your lead. "
    return f"{led}Hand: {hand}. PLAY a card."


def render_message(name: str, lang: str = "en", channel: str = "sms", **ctx: Any) -> Rendered:
    """The message ``name`` for a player (minimal English; ``chat.render`` replaces it).

    Names and their context: ``update`` (view, events, game_id), ``illegal`` (error, view),
    ``not_understood`` (text, error), ``invite`` (inviter, game_id, target), ``invite_sent``
    (opponent), ``bad_address`` (text), ``no_game``, ``no_invite``, ``welcome``, ``help``,
    ``already_started``, ``game_over``, ``status`` (view).
    """
    game_id = ctx.get("game_id", "")
    if name in ("update", "status"):
        v = ctx["view"]
        lines = [d for d in (_describe(e, v.seat) for e in ctx.get("events", ())) if d]
        if v.phase != "over":
            lines.append(f"Score: you {v.scores[v.seat]}, opponent {v.scores[v.opponent]}."
                         if name == "status" or any(e["type"] == "hand_scored" for e in ctx.get("events", ()))
                         else "")
            lines.append(_prompt(v))
        text = " ".join(s for s in lines if s)
        subject = "Your move" if v.my_turn else ("Game over" if v.phase == "over" else "Game update")
    elif name == "illegal":
        v = ctx["view"]
        text = f"Not allowed: {ctx['error']}. {_prompt(v)}"
        subject = "Not allowed"
    elif name == "not_understood":
        extra = f" ({ctx['error']})" if ctx.get("error") else ""
        text = f"Sorry, I did not understand \"{ctx.get('text', '')[:40]}\"{extra}. Reply HELP for the commands."
        subject = "Not understood"
    elif name == "invite":
        target = ctx.get("target") or 500
        text = (f"{ctx['inviter']} invites you to a game of two-player Spades (to {target}). "
                f"Reply YES to play.")
        subject = "You are invited to a game of Spades"
    elif name == "invite_sent":
        text = f"Invitation sent to {ctx['opponent']}. I will tell you when they accept."
        subject = "Invitation sent"
    elif name == "bad_address":
        text = f"\"{ctx.get('text', '')[:40]}\" is not a phone number or email address. Try NEW +15551234567."
        subject = "Unknown address"
    elif name == "no_game":
        text = "You have no game going. Text NEW followed by a friend's number or email to start one."
        subject = "No game"
    elif name == "no_invite":
        text = "There is no invitation waiting for you. Text NEW followed by a friend's number or email."
        subject = "No invitation"
    elif name == "welcome":
        text = "Welcome to Slow Spades! Text NEW followed by a friend's phone number or email to invite them."
        subject = "Welcome to Slow Spades"
    elif name == "already_started":
        text = "That game has already started."
        subject = "Already started"
    elif name == "game_over":
        text = "That game is over. Text NEW followed by a friend's number or email to start another."
        subject = "Game over"
    elif name == "help":
        text = ("Commands: NEW <number or email>, YES, DN or DRAW, KEEP or DISCARD, EXCHANGE <cards> or "
                "EXCHANGE NONE, BID <0-13>, PLAY <card> (e.g. PLAY QH), STATUS, RESIGN.")
        subject = "Help"
    else:
        raise KeyError(f"no message named {name!r}")
    if game_id:
        subject = f"Spades {game_id}: {subject}"
    html_body = "" if channel == "sms" else f"<html><body><p>{html.escape(text)}</p></body></html>"
    return Rendered(text=text, subject=subject, html=html_body)


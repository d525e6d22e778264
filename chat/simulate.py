"""Play whole games through the conversation layer, as the service does: parse -> engine -> render.

Used by the conversation and secrecy tests and by ``bench/segments.py``; it is also the
reference for the service's message flow:

1. after every decided command, for each seat, :func:`chat.message_for` with the redacted
   events since the last message *sent* to that seat (a seat that gets no message keeps
   its cursor, so the news reaches it in its next prompt);
2. a player whose standing setting is "no DN question" (``DN OFF``) is answered ``DRAW``
   at once by the service and gets the card prompt instead of the offer;
3. a refused reply gets :func:`chat.explain_error` and nothing else happens;
4. in a simultaneous draw (RULES D11) both players may owe a move: a player who still owes the
   move they were prompted for gets nothing new when the opponent moves (their news waits for
   their next message), each reply is answered at once with that player's next prompt, and a
   player who finishes drawing first is told the game waits for the opponent (the ``waiting``
   prompt). Which of the two replies next is drawn from the game's random generator;
5. with ``autoplay[seat]`` a player's forced cards are played for them, and with ``finish`` a
   hand whose end is decided is played out at the start of a trick (``spades.autoplay``), both
   right after the move that led to them; the player learns of it in their next message;
6. with ``merge_summary`` (a simultaneous draw only) the end-of-hand summary of the next hand's
   second player is not sent on its own: it opens their double nil question, which comes as
   soon as the first player has made their double nil choice (D11). The first player gets the
   summary with their own question at once, as before; the end of the game is always sent.

The defaults (alternating draw, no autoplay) are the service's behaviour before issue 11;
``bench/pace.py`` compares them with the new ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Sequence

from spades.autoplay import autoplay as autoplay_events
from spades.commands import DeclineDoubleNil
from spades.dealer import Dealer
from spades.errors import RuleError
from spades.events import Event, HouseRules, redact
from spades.game import Game, PlayerView, decide, fold, new_game, view

from .messages import explain_error, message_for, prompt
from .parse import parse
from .render import Rendered

Chooser = Callable[[PlayerView, Rendered, random.Random], str]


@dataclass
class Sent:
    """One message the simulated service sent."""

    seat: int
    kind: str  # "turn" (message_for) or "error"
    rendered: Rendered
    view: PlayerView
    hand_no: int
    reply: str | None = None  # what the player answered to it, if it was their turn


@dataclass(frozen=True)
class Reply:
    """One message a simulated player sent: ``after`` messages of the service had been sent before it."""

    seat: int
    text: str
    after: int


@dataclass
class Transcript:
    messages: list[Sent] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)  # what the players sent, in order with ``messages``
    events: list[Event] = field(default_factory=list)
    game: Game | None = None
    hands: int = 0


def random_chooser(view: PlayerView, msg: Rendered, rng: random.Random) -> str:
    """A random offered reply; double nil only now and then, as a person would."""
    replies = list(msg.replies)
    if "DN" in replies and rng.random() > 0.05:
        replies.remove("DN")
    return rng.choice(replies)


def play_game(seed: int, langs: Sequence[str] = ("en", "en"), names: Sequence[str] = ("Ann", "Bob"),
              channel: str = "sms", chooser: Chooser = random_chooser, max_hands: int | None = None,
              ask_dn: Sequence[bool] = (True, True), error_rate: float = 0.0,
              bad_replies: Sequence[str] = ("ZZ", "11H", "BID 14", "K", "AS", "SWAP 2C 3C 4C 5C"),
              labels: Sequence[str] = ("", ""), simultaneous_draw: bool = False,
              autoplay: Sequence[bool] = (False, False), finish: bool = False,
              merge_summary: bool = False) -> Transcript:
    """Play one game (or its first ``max_hands`` hands) between two simulated players."""
    rng = random.Random(seed)
    dealer = Dealer(seed=seed)
    log: list[Event] = list(new_game(f"g{seed}", HouseRules(simultaneous_draw=simultaneous_draw), dealer=dealer))
    game = fold(log)
    cursor = [0, 0]
    out = Transcript(events=log)
    last_turn: list[Sent | None] = [None, None]

    def deliver(actor: int | None = None, movers_before: tuple[int, ...] = ()) -> None:
        for seat in (0, 1):
            v = view(game, seat)
            if v.double_nil_offer and not ask_dn[seat]:
                continue  # the service answers DRAW for this player before saying anything
            if seat != actor and seat in movers_before and v.my_turn:
                continue  # still owes the move they were prompted for: nothing new to ask
            if (merge_summary and simultaneous_draw and v.phase == "draw" and not v.my_turn
                    and seat != v.first_player and v.decisions == (0, 0)):
                continue  # the summary waits for this player's double nil question, moments away
            news = [d for d in (redact(e, seat) for e in log[cursor[seat]:]) if d is not None]
            msg = message_for(v, langs[seat], channel, news, names[1 - seat], labels[seat])
            if msg is None and simultaneous_draw and seat == actor and v.phase == "draw" and v.movers:
                msg = prompt(v, langs[seat], channel, news, names[1 - seat], labels[seat])  # waits for the other
            if msg is not None:
                sent = Sent(seat, "turn", msg, v, game.hand_no)
                out.messages.append(sent)
                cursor[seat] = len(log)
                last_turn[seat] = sent

    def apply(events: list[Event]) -> None:
        log.extend(events)
        for e in events:
            game.apply(e)
        log.extend(autoplay_events(game, dealer, autoplay, finish))

    deliver()
    while game.phase != "over":
        if max_hands is not None and game.hand_no > max_hands:
            break
        movers = game.movers
        seat = movers[0] if len(movers) == 1 else movers[rng.randrange(len(movers))]
        v = view(game, seat)
        if v.double_nil_offer and not ask_dn[seat]:
            apply(decide(game, DeclineDoubleNil(seat), dealer))
            deliver(seat, movers)
            continue
        last = last_turn[seat]
        if last is None or not last.view.my_turn:
            raise RuntimeError(f"seat {seat} may move but was not prompted")
        prompt_msg = last
        if error_rate and rng.random() < error_rate:
            text = rng.choice(list(bad_replies))
        else:
            text = chooser(v, prompt_msg.rendered, rng)
        prompt_msg.reply = text
        out.replies.append(Reply(seat, text, len(out.messages)))
        intent = parse(text, langs[seat])
        try:
            if intent.is_unknown:
                raise LookupError
            cmd = intent.command(seat, game.phase)
            assert cmd is not None
            events = decide(game, cmd, dealer)
        except LookupError:
            err = explain_error(intent, v, langs[seat], channel, names[1 - seat], labels[seat])
            out.messages.append(Sent(seat, "error", err, v, game.hand_no))
            last_turn[seat] = Sent(seat, "turn", err, v, game.hand_no)
            continue
        except RuleError as exc:
            err = explain_error(exc, v, langs[seat], channel, names[1 - seat], labels[seat])
            out.messages.append(Sent(seat, "error", err, v, game.hand_no))
            last_turn[seat] = Sent(seat, "turn", err, v, game.hand_no)
            continue
        apply(events)
        deliver(seat, movers)
    out.game = game
    out.hands = game.hand_no if game.phase != "over" else len(game.history)
    return out

"""The messages a change of a game causes, for both seats (``chat.simulate`` is the reference).

After each decided command: the hand / game summary (:mod:`.summaries`) when a hand or the game ended,
then ``chat.message_for`` with the redacted events since the last message sent to that seat (cursor
``seen<seat>`` in the game's meta: the game version of that message), news the summary already told
left out. A seat that gets nothing keeps its cursor, so news accumulate. A player who said ``DN OFF``
gets the service's own ``DRAW`` when offered double nil.

Composed from data: :func:`turn_messages` takes what the move read (:class:`~service.games.known.Known`: the meta,
the players' records with their routes, game numbers and settings, the stored events since the seats' cursors, the
clock, and what :func:`service.games.compose_read.read_for_compose` read before for the rare cases) and calls no
gateway; nothing here imports the store.
"""

from __future__ import annotations

from typing import Any

from spades import bots
from spades.commands import Command, DeclineDoubleNil
from spades.events import Event, redact_all
from spades.game import Game, decide, fold, view

from .. import conversation_port as port
from ..addresses import is_bot
from ..channels import WINDOW_CLOSED
from ..context import Config, DealerFactory
from ..records import GameMeta
from . import levels, summaries
from .compose_entry import entry, outbound, recipient
from .known import Known
from .players import PlayerInfo, info_of

_HAND_ENDS = ("hand_scored", "game_ended")
BOT_STRATEGY = "basic"  # the draw decisions of a computer's seat from before the levels (service.games.levels)


def auto_draws(config: Config, dealer: DealerFactory, game_id: str, meta: GameMeta, game: Game,
               infos: dict[str, PlayerInfo]) -> list[Event]:
    """The draw moves the service makes (``game`` is folded on): ``DN OFF``, the service answers DRAW for a
    player offered double nil; in a simultaneous draw (RULES D11) the computer makes all its draw decisions
    at once, once it has made its double nil choice (that one is its own turn)."""
    out: list[Event] = []
    while game.phase == "draw":
        command: Command | None = None
        for seat in game.movers:
            address = meta.seats[seat]
            if is_bot(address):
                if game.rules.simultaneous_draw and game.dn_decided[seat]:
                    command = bots.get(levels.drawer(address, BOT_STRATEGY)).choose(view(game, seat))
            elif view(game, seat).double_nil_offer and not info_of(infos, address, config).flag("dn", True):
                command = DeclineDoubleNil(seat)
            if command is not None:
                break
        if command is None:
            break
        new = decide(game, command, dealer(game_id, game.version))
        fold(new, game)
        out += new
    return out


def turn_messages(known: Known, dealer: DealerFactory, game: Game, events: list[Event], updates: dict[str, str],
                  everyone: bool = False, actor: int | None = None, movers_before: tuple[int, ...] = (),
                  quiet: frozenset[int] = frozenset(),
                  notes: dict[int, list[dict[str, Any]]] | None = None) -> tuple[list[Event], list[dict[str, Any]]]:
    """The events to append (``events`` plus the service's own DRAWs) and the messages they cause.

    ``known``: what the move read (:class:`~service.games.known.Known`, of ``known.game_id``; its meta, its players'
    infos with their labels, the stored events before ``events`` from the sendable seats' cursors).
    ``game`` is the state after ``events`` (folded on further here); ``updates`` receives the
    meta fields to write with the append (the cursors ``seen<seat>``, email threading).
    ``everyone``: a game that just started (the waiting player is told too).
    ``actor``: the seat whose command ``events`` are; ``movers_before``: who could move before it. ``notes``: news of
    a seat's own that is no event (a plan entry dropped, :mod:`.ahead`), told in its message with the events. In a
    simultaneous draw (RULES D11) a player who still owes the move they were prompted for gets nothing
    when the other moves (the news waits for their next message), and the actor who finished drawing
    first is told they wait for the opponent.
    """
    config, game_id, meta, infos = known.config, known.game_id, known.meta, known.infos
    events = list(events) + auto_draws(config, dealer, game_id, meta, game, infos)
    before = game.version - len(events)
    # the end of a hand: the summary (bids, tricks, points, bags, who draws next) by email; by SMS the
    # turn message tells it in one message with the last trick and the next question (issue 14 case 9)
    outbox = summaries.entries(known, game_id, meta, events, updates, hands_by_sms=False, quiet=quiet,
                               lives={a: i.life for a, i in infos.items()})
    summarised = {recipient(e) for e in outbox}

    by_seat = [info_of(infos, meta.seats[seat], config) for seat in (0, 1)]

    # not the computer, nor a number that sent STOP, nor a player on the game's page (their news waits)
    sendable = sendable_seats(by_seat, quiet)
    sinces = cursors(meta, sendable, before)
    closed: list[int] = []  # the WhatsApp seats whose window is closed, with no template and no other address
    first = min(sinces.values(), default=before)
    stored = known.stored_since(first, before)  # read with the move (or before composing)
    for seat in sendable:
        me = by_seat[seat]
        address = me.address
        news = redact_all(stored[sinces[seat] - first:] + events, seat) + (notes or {}).get(seat, [])
        if address in summarised:  # the summary told the hand's result: the prompt does not repeat it
            ends = [i for i, d in enumerate(news) if d.get("type") in _HAND_ENDS]
            news = news[ends[-1] + 1:] if ends else news
        shown = view(game, seat)
        if seat != actor and seat in movers_before and shown.my_turn and address not in summarised:
            continue  # still owes the move they were prompted for (RULES D11): the news waits
        lang = me.lang
        # the home, a linked address, or where they wrote from; a prompt ("turn") may go as a WhatsApp template
        to = known.destination(address, "turn" if shown.my_turn and shown.phase != "over" else "update", lang,
                               me.life)
        if to.held == WINDOW_CLOSED and to.template is None:  # WhatsApp would refuse it (issue 45 case 5): not
            closed.append(seat)  # written to fail; their cursor stays, so their next answer tells what they missed
            continue
        channel = to.channel
        opp = by_seat[1 - seat].name
        label = me.labels[game_id]
        level = levels.level_of(by_seat[1 - seat].address)  # the computer's, when it is the opponent
        opening = everyone or any(d.get("type") == "game_started" for d in news)
        h2h = known.head_to_head(address, by_seat[1 - seat].address, game_id, shown.winner, seat) \
            if shown.phase == "over" or opening else None  # the record between them (issue 46): start and end only
        rendered = port.turn_message(shown, lang, channel, news, opp, label, level, h2h)
        kind = "game_summary" if shown.phase == "over" else "update"  # an SMS player's end of the game (issue 23)
        if rendered is None and seat == actor and shown.phase == "draw" and shown.movers and game.rules.simultaneous_draw:
            rendered = (port.move_news(shown, lang, channel, redact_all(events, seat), opp, label)  # done drawing:
                        or port.resend(shown, lang, channel, opp, label))  # the last discard told, then it waits
        computer_next = by_seat[1 - seat].computer and shown.movers == (1 - seat,) and shown.phase != "over"
        if rendered is None and not everyone and computer_next:
            continue  # the computer answers within seconds, with this news and the next question (issue 23 case 12)
        if rendered is None and not everyone:  # the mover now waits: what their move showed them (issue 14 case 3)
            mine = redact_all(events, seat)
            rendered = port.move_news(shown, lang, channel, mine, opp, label)
            kind = "news"  # not a prompt: the game a reply without #N goes to stays the one last prompted
        if rendered is None and everyone:
            rendered = port.render_message("game_started", lang, channel, label=(label + " ").lstrip(), opp=opp,
                                           first="me" if game.first_player == seat else "opp",
                                           target=game.rules.target, level=level, h2h=h2h)
        if rendered is not None:
            outbox.append(outbound(config, known, to.address, rendered, game_id=game_id, seat=seat, meta=meta,
                                   meta_updates=updates, kind=kind, home=address, to=to))
        if rendered is not None or address in summarised:
            updates[f"seen{seat}"] = str(game.version)
            if meta.of_seat("wclosed", seat):
                updates[f"wclosed{seat}"] = ""
    for seat in closed:  # the opponent is told why nothing moves, once a closed window
        other = by_seat[1 - seat]
        if 1 - seat in sendable and not meta.of_seat("wclosed", seat):
            label = other.labels.get(game_id, "")
            notice = entry(config, known, other.address, "opponent_whatsapp_closed",
                           game_id=game_id, seat=1 - seat, meta=meta,
                           meta_updates=updates, opp=by_seat[seat].name, label=(label + " ").lstrip())
            if notice is not None:
                outbox.append(notice)
                updates[f"wclosed{seat}"] = "1"
    return events, outbox


def sendable_seats(by_seat: list[PlayerInfo], quiet: frozenset[int]) -> list[int]:
    """The seats a move's news may be sent to: not the computer, nor a player whose every address sent STOP, nor a
    player on the game's page (their news waits)."""
    return [seat for seat in (0, 1) if by_seat[seat].may_send and seat not in quiet]


def cursors(meta: GameMeta, sendable: list[int], before: int) -> dict[int, int]:
    """The version each sendable seat was last told up to (``seen<seat>``; at most ``before``)."""
    return {seat: min(int(meta.get(f"seen{seat}", before)), before) for seat in sendable}

"""The messages a change of a game causes, for both seats (``chat.simulate`` is the reference).

After each decided command: the hand / game summary (:mod:`.summaries`) when a hand or the game ended,
then ``chat.message_for`` with the redacted events since the last message sent to that seat (cursor
``seen<seat>`` in the game's meta: the game version of that message), news the summary already told
left out. A seat that gets nothing keeps its cursor, so news accumulate. A player who said ``DN OFF``
gets the service's own ``DRAW`` when offered double nil.
"""

from __future__ import annotations

from typing import Any

from spades import bots
from spades.commands import Command, DeclineDoubleNil
from spades.events import Event, from_dicts, redact_all
from spades.game import Game, decide, fold, view

from .. import conversation_port as port
from ..addresses import is_bot
from ..channels import WINDOW_CLOSED, destination
from ..context import Config, DealerFactory
from ..records import GameMeta
from ..store import Links, Players, Reach, Store
from . import levels, summaries
from .outbox import entry, outbound, recipient
from .players import PlayerInfo, info_of, players_info, resolve_labels
from .record import head_to_head_now
from .seats import seats

_HAND_ENDS = ("hand_scored", "game_ended")
BOT_STRATEGY = "basic"  # the draw decisions of a computer's seat from before the levels (service.games.levels)


def stored_since(store: Store, game_id: str, since: int, before: int, recent: tuple[Event, ...] = ()) -> list[Event]:
    """The stored events of versions ``since`` .. ``before - 1`` (the newest of the stream); ``recent``: the
    newest events up to ``before`` if the caller has them (``Taken.recent``), read only if they fall short."""
    if before <= since:
        return []
    if before - since <= len(recent):
        return list(recent[len(recent) - (before - since):])
    return from_dicts(store.newest_events(game_id, before - since))


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


def turn_messages(config: Config, store: Store, players: Players, links: Links, reach: Reach, dealer: DealerFactory,
                  game_id: str, meta: GameMeta, game: Game, events: list[Event],
                  updates: dict[str, str], everyone: bool = False, infos: dict[str, PlayerInfo] | None = None,
                  recent: tuple[Event, ...] = (), actor: int | None = None,
                  movers_before: tuple[int, ...] = (),
                  quiet: frozenset[int] = frozenset(),
                  notes: dict[int, list[dict[str, Any]]] | None = None) -> tuple[list[Event], list[dict[str, Any]]]:
    """The events to append (``events`` plus the service's own DRAWs) and the messages they cause.

    ``game`` is the state after ``events`` (folded on further here); ``updates`` receives the
    meta fields to write with the append (the cursors ``seen<seat>``, email threading).
    ``everyone``: a game that just started (the waiting player is told too). ``infos``: the
    seats' :class:`PlayerInfo` if the caller read them already (else read here, in one round trip).
    ``recent``: the newest stored events before ``events``, if the caller has them.
    ``actor``: the seat whose command ``events`` are; ``movers_before``: who could move before it. ``notes``: news of
    a seat's own that is no event (a plan entry dropped, :mod:`.ahead`), told in its message with the events. In a
    simultaneous draw (RULES D11) a player who still owes the move they were prompted for gets nothing
    when the other moves (the news waits for their next message), and the actor who finished drawing
    first is told they wait for the opponent.
    """
    if infos is None:
        infos = players_info(config, store, seats(meta))
    events = list(events) + auto_draws(config, dealer, game_id, meta, game, infos)
    before = game.version - len(events)
    # the end of a hand: the summary (bids, tricks, points, bags, who draws next) by email; by SMS the
    # turn message tells it in one message with the last trick and the next question (issue 14 case 9)
    outbox = summaries.entries(config, store, players, links, reach, game_id, meta, events, updates,
                               hands_by_sms=False, quiet=quiet,
                               lives={a: i.life for a, i in infos.items()})
    summarised = {recipient(e) for e in outbox}

    by_seat = [info_of(infos, meta.seats[seat], config) for seat in (0, 1)]

    # not the computer, nor a number that sent STOP, nor a player on the game's page (their news waits)
    sendable = [seat for seat in (0, 1) if by_seat[seat].may_send and seat not in quiet]
    resolve_labels(store, [by_seat[seat] for seat in sendable], game_id)
    sinces = {seat: min(int(meta.get(f"seen{seat}", before)), before) for seat in sendable}
    closed: list[int] = []  # the WhatsApp seats whose window is closed, with no template and no other address
    first = min(sinces.values(), default=before)
    stored = stored_since(store, game_id, first, before, recent)  # one read for both seats
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
        to = destination(config, store, links, reach, address,
                         "turn" if shown.my_turn and shown.phase != "over" else "update", lang,
                         life=me.life)
        if to.held == WINDOW_CLOSED and to.template is None:  # WhatsApp would refuse it (issue 45 case 5): not
            closed.append(seat)  # written to fail; their cursor stays, so their next answer tells what they missed
            continue
        channel = to.channel
        opp = by_seat[1 - seat].name
        label = me.labels[game_id]
        level = levels.level_of(by_seat[1 - seat].address)  # the computer's, when it is the opponent
        opening = everyone or any(d.get("type") == "game_started" for d in news)
        h2h = head_to_head_now(store, players, address, by_seat[1 - seat].address, game_id, shown.winner, seat) \
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
            outbox.append(outbound(config, store, players, to.address, rendered, game_id=game_id, seat=seat, meta=meta,
                                   meta_updates=updates, kind=kind, home=address, to=to))
        if rendered is not None or address in summarised:
            updates[f"seen{seat}"] = str(game.version)
            if meta.of_seat("wclosed", seat):
                updates[f"wclosed{seat}"] = ""
    for seat in closed:  # the opponent is told why nothing moves, once a closed window
        other = by_seat[1 - seat]
        if 1 - seat in sendable and not meta.of_seat("wclosed", seat):
            label = other.labels.get(game_id, "")
            notice = entry(config, store, players, links, reach, other.address, "opponent_whatsapp_closed",
                           game_id=game_id, seat=1 - seat, meta=meta,
                           meta_updates=updates, opp=by_seat[seat].name, label=(label + " ").lstrip())
            if notice is not None:
                outbox.append(notice)
                updates[f"wclosed{seat}"] = "1"
    return events, outbox

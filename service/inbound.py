"""An inbound message -> an intent -> its handler, through :data:`TABLE` (intent kind -> handler).

:func:`handle_inbound` reads the message with ``chat.parse`` (through :mod:`service.conversation_port`)
and dispatches it: the lifecycle's words (``NEW YES NO GAMES REMIND AUTO TZ PAUSE CLAIM REMATCH RESIGN
STOP START``, :mod:`service.lifecycle.commands`; ``LINK UNLINK VIA``, :mod:`service.lifecycle.linking`), the words that change no game (``HELP RULES WEB LANG
DN ON/OFF``) and, for every other kind (moves, ``HAND``, ``SCORE``, what was not understood), the game
the message is for (an email's reply address, ``#N``, else the game last prompted:
:mod:`service.lifecycle.routing`), where a move goes to ``service.games`` (:func:`~service.games.moves.player_move`).

The message, whether it was handled already, the player's record and (when this process saw the player
in a game before, likely the one the message is for) that game as a move needs it, are read in one
call to the store (:func:`~service.games.message_read.read_message`; one round trip in the common case). A handler answers with a :class:`~service.games.result.Result`; a handler may also answer
None (not its case: ``LANG`` without a language), and the message goes to its game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from chat import Intent
from chat.languages import LANGUAGES
from chat.last import last_tricks
from chat.messages import context as chat_context
from chat.names import same_name
from chat.render import Rendered
from spades.events import HouseRules, from_dict, redact
from spades.game import Game, view

from . import channels, email_identity
from . import conversation_port as port
from .addresses import OWN, address_kind, page_expired, page_url
from .caches import GameCache, SeatCache
from .context import Config, DealerFactory
from .games import outbox
from .games.apply import MoveRead
from .games.compose_read import stored_since
from .games.message_read import read_message
from .games.moves import player_move
from .games.players import default_lang, is_stopped, lang_of_record, name_of, unfinished_games
from .games.players import label_of as game_label
from .games.result import Outcome, Result
from .games.seats import opponent_of, seat_of
from .lifecycle import buttons, commands, invitations, linking, reminders, routing, stats, talk, telegram_start
from .lifecycle import reach as unreachable
from .lifecycle.commands import Message
from .lifecycle.invite_links import take as take_invite_link
from .records import PlayerRecord
from .store import InviteLinks, Links, Players, Reach, Store, player_owner
from .telegram import Tap
from .whatsapp_buttons import MORE


@dataclass(frozen=True)
class Inbound(Message):
    """A :class:`Message` with what the dispatcher read with it: the sender's language and channel, their
    life hash, the game read with the message (if any), and whether the caller sends a move's messages itself."""

    lang: str = "en"
    channel: str = "sms"
    life: dict[str, str] | None = None
    pre: MoveRead | None = None
    send_now: str = ""
    first: bool = False  # the number had no record: its first message to the service
    own_address: bool = False  # sent to a reply address issued to the sender (a game's, or their own)
    page_ask: str | None = None  # a move made on the sender's game page: the question it answers (chat.page)


Handler = Callable[..., Result | None]  # in TABLE: a function of the dependencies it names and ``m``
#: :data:`TABLE` with each handler's dependencies bound (:mod:`service.bootstrap`): the message -> its result
Handlers = Mapping[str, Callable[[Inbound], Result | None]]


# -- the words that change no game -----------------------------------------------------------------------
def _reply(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound, name: str,
           outcome: Outcome | str | None = None,
           game_id: str | None = None, lang: str | None = None, **context: Any) -> Result:
    """A reply rendered by ``chat`` (template ``name``) to the sender's own message."""
    rendered = port.render_message(name, lang or m.lang, m.channel, **context)
    return outbox.reply_rendered(config, store, players, links, reach, m.sender, m.message_id, rendered, name, outcome,
                                 game_id)


def _help(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result:
    return _reply(config, store, players, links, reach, m, "help")


def _lang(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result | None:
    if not m.said.arg:
        return None
    players.set_lang(m.sender, m.said.arg)
    return _reply(config, store, players, links, reach, m, "lang_set", lang=m.said.arg)


def _autoplay_setting(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result:
    """``AUTOPLAY ON/OFF``: whether the player's forced cards are played for them (on by default, issue 11)."""
    reminders.set_flag(store, m.sender, "autoplay", bool(m.said.flag))
    return _reply(config, store, players, links, reach, m, "autoplay_setting", Outcome.SETTING, value=bool(m.said.flag))


def _reads_as_an_opponent(store: Store, players: Players, sender: str, chosen: str) -> bool:
    """Whether ``chosen`` reads as the name of someone the sender plays (``AnA.`` or ``4na`` against ``Ana``)."""
    for gid in unfinished_games(store, players, sender):
        meta = store.meta(gid)
        seat = seat_of(meta, sender)
        if seat is not None and same_name(chosen, name_of(players, opponent_of(meta, seat))):
            return True
    return False


def _name(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result:
    """``NAME Ana`` (``chat`` checked it: no address, no number, not the computer): the name the opponents
    see, unless another player holds it (in any case) or it reads as the name of one of the sender's
    opponents (:func:`chat.names.same_name`)."""
    chosen = m.said.arg or ""
    taken = _reads_as_an_opponent(store, players, m.sender, chosen) or not players.claim_name(m.sender, chosen)
    out = _reply(config, store, players, links, reach, m, "name_set",
                 Outcome.NAME_TAKEN if taken else Outcome.NAME_SET, chosen=chosen, taken=taken)
    if not taken:  # a friend invited by a masked number learns who it is (issue 23 case 13)
        out.outbox_ids = out.outbox_ids + invitations.tell_name(config, store, players, links,
                                                                reach, m.message_id, m.sender, chosen)
    return out


def _dn_setting(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result:
    reminders.set_flag(store, m.sender, "dn", bool(m.said.flag))
    return _reply(config, store, players, links, reach, m, "setting", setting="dn", value=bool(m.said.flag))


def _target(store: Store, players: Players, m: Inbound, statuses: tuple[str, ...] = ("active",)) -> routing.Target:
    if m.token_game:
        return routing.Target(m.token_game, "token")
    last = (m.life or {}).get("last", "")
    last_meta = m.pre.meta if m.pre is not None and m.pre.game_id == last else None
    return routing.resolve(store, players, m.sender, m.said.game, statuses=statuses, last=last, last_meta=last_meta)


def _rules(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result:
    gid = _target(store, players, m).game_id
    rules = invitations.rules_of(store.meta(gid)) if gid else HouseRules()
    url = config.get("RULES_URL") or f"{config['PUBLIC_BASE_URL']}/rules"
    return _reply(config, store, players, links, reach, m, "rules", url=url, target=rules.target)


def _web(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Inbound) -> Result | None:
    """``WEB``: the link of the sender's private page of the game the message is for (issue 14, "Beyond");
    without a game, what any word answers then (:func:`_in_game`)."""
    target = _target(store, players, m, statuses=("active", "over"))
    if target.game_id is None:
        return None
    meta = target.meta if target.meta is not None else store.meta(target.game_id)
    seat = seat_of(meta, m.sender)
    if seat is None:
        return None
    now = store.clock.now_ms()
    if page_expired(meta, seat, now, float(config.get("PAGE_TTL_DAYS") or 30)):  # renewed (issue 22 case 5)
        token = players.renew_web_token(target.game_id, seat, now)
    else:
        token = meta.of_seat("web", seat) or players.ensure_web_token(target.game_id, seat)
    opp = name_of(players, opponent_of(meta, seat))
    return _reply(config, store, players, links, reach, m, "web", Outcome.WEB,
                  game_id=target.game_id, url=page_url(config["PUBLIC_BASE_URL"], token),
                  opp=opp, label=game_label(store, players, m.sender, target.game_id))


# -- the game the message is for ------------------------------------------------------------------------
#: A command about the player or a new game, refused for what it holds (``NAME 12``, ``AUTO`` with no ON or OFF,
#: ``NEW 12``): the answer is about no game, so it carries no game's label (issue 23 case 9).
_NO_GAME_ARGS = frozenset({"name", "lang", "tz", "remind", "auto", "autoplay", "new", "via"})


def _about_no_game(said: Intent) -> bool:
    return said.is_unknown and (said.reason in ("bad_name", "bad_lang", "bad_address", "bad_link")
                                or (said.reason == "missing_arg" and (said.arg or "").lower() in _NO_GAME_ARGS))


def _in_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
             seats: SeatCache, dealer: DealerFactory, m: Inbound) -> Result:
    """Moves, ``HAND``, ``SCORE`` and what was not understood, in the game the message is for."""
    said = m.said
    target = _target(store, players, m)
    if target.game_id is None and said.kind in ("hand", "score", "last"):  # no game in play: the one that ended (issue 23)
        target = _target(store, players, m, statuses=("over",))
    gid = None if _about_no_game(said) else target.game_id
    if gid is None:
        if m.first and not _about_no_game(said):  # a new number that sent no command: what this is and how to start
            # (issue 14 case 4); NEW 12 from a new number is a command, answered as such (issue 23 case 8)
            return _reply(config, store, players, links, reach, m, "welcome", Outcome.NO_GAME)
        if said.is_unknown:
            rendered = port.error_message(said, None, m.lang, m.channel)
            return outbox.reply_rendered(config, store, players, links, reach, m.sender,
                                         m.message_id, rendered, "error", Outcome.NOT_UNDERSTOOD)
        if said.game is not None:
            out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                               "no_such_game", number=said.game)
            return Result(out.outbox_ids, Outcome.NO_GAME)
        return _reply(config, store, players, links, reach, m, "help", Outcome.NO_GAME)
    meta = target.meta if target.meta is not None else store.meta(gid)
    seats.note(gid, meta)  # a game this process had not seen: the move's read then takes its players' records too
    seat = seat_of(meta, m.sender)
    if seat is None:
        return Result([], Outcome.IGNORED, gid)  # a stranger: nothing changes, nothing is said
    if said.kind == "last" and meta.status in ("active", "over"):  # LAST: the trick before (chat.last)
        events = [redact(from_dict(se.event), seat) for se in store.load(gid)]
        return _reply(config, store, players, links, reach, m, "last", game_id=gid,
                      opp=name_of(players, opponent_of(meta, seat)),
                      label=game_label(store, players, m.sender, gid), **last_tricks(events, seat))
    if said.is_unknown or said.kind in ("hand", "score") or meta.status not in ("active", "over"):
        game = games.load(gid)
        v = view(game, seat) if game.version else None
        opp = name_of(players, opponent_of(meta, seat))
        label = game_label(store, players, m.sender, gid)
        if said.is_unknown or v is None:
            rendered = port.error_message(said, v, m.lang, m.channel, opp, label)
            return outbox.reply_rendered(config, store, players, links, reach, m.sender,
                                         m.message_id, rendered, "error", Outcome.NOT_UNDERSTOOD, gid)
        if said.kind == "score":
            return _reply(config, store, players, links, reach, m, "score", game_id=gid,
                          **chat_context(v, None, opp, label, m.channel))
        return outbox.reply_rendered(config, store, players, links, reach, m.sender, m.message_id,
                                     _where_it_stands(store, m, gid, meta, game, seat, opp,
                                                      label), "status", game_id=gid)
    if not email_identity.move_allowed(m.channel, m.token_game):  # an email move only to its own reply address
        return outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                            "email_move_needs_reply_address", Outcome.REFUSED,
                            game_id=gid)
    pre = m.pre if m.pre is not None and m.pre.game_id == gid else None
    return player_move(config, store, players, links, reach, games, seats, dealer, m.message_id, m.sender, gid, said,
                       pre=pre, send_now=m.send_now,
                       page_ask=m.page_ask)


TABLE: dict[str, Handler] = {
    "stop": commands.stop,
    "start": commands.start,
    "new": commands.new,
    "yes": commands.yes,
    "no": commands.no,
    "rematch": commands.rematch,
    "resign": commands.ask_resign,
    "games": commands.games,
    "remind": commands.flag,
    "auto": commands.flag,
    "tz": commands.tz,
    "pause": commands.pause,
    "claim": commands.claim,
    "help": _help,
    "lang": _lang,
    "name": _name,
    "dn_setting": _dn_setting,
    "autoplay": _autoplay_setting,
    "rules": _rules,
    "web": _web,
    "link": linking.link,
    "unlink": linking.unlink,
    "via": linking.via,
    "say": talk.say,
    "mute": talk.mute,
    "unmute": talk.unmute,
    "stats": stats.stats,
}


def dispatch(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
             seats: SeatCache, dealer: DealerFactory, handlers: Handlers, m: Inbound) -> Result:
    """The handler of ``m.said.kind`` (:data:`TABLE`), else (or when it answers None) the game's."""
    if not email_identity.command_allowed(m.channel, m.said.kind, m.own_address):
        return outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                            "email_command_needs_reply_address", Outcome.REFUSED,
                            word=m.said.kind)
    handler = handlers.get(m.said.kind)
    out = handler(m) if handler is not None else None
    return out if out is not None else _in_game(config, store, players, links, reach, games, seats, dealer, m)


# -- reading the message -----------------------------------------------------------------------------------
def handle_inbound(config: Config, store: Store, players: Players, links: Links, reach: Reach,
                   invite_links: InviteLinks, games: GameCache, seats: SeatCache, dealer: DealerFactory,
                   handlers: Handlers, message_id: str, sender: str, send_now: str = "") -> Result:
    """Handle a recorded inbound message of ``sender`` once; see the module docstring.

    ``sender`` acts for its home when it is linked to one (``LINK``, :mod:`service.store.links`): the home is read
    in the same round trip as the message (with the home this process saw it act for last as the guess whose
    record and game are read with it; a wrong guess costs one more round trip), and the message is handled as
    the home's, its replies going back to ``sender`` (:func:`service.channels.replying`).

    ``send_now``: the claim token of the caller's delivery attempt when it sends a move's messages itself
    right after (the local outbox; empty otherwise): they are
    written claimed with that token (``Store.append(claimed=token)``) and handed back in ``Result.after.claimed``."""
    read = read_message(config, store, games, seats, message_id, sender)
    if read.msg is None:  # handled already (its claim is left: a task delivered again, say), or unknown
        return Result([], Outcome.DUPLICATE if store.inbound(sender, message_id) else Outcome.MISSING)
    record = read.record or PlayerRecord(read.actor)
    with channels.replying(read.actor, sender):
        if read.unreachable:  # a message from an address receipts marked unreachable: it is reached again
            unreachable.resume(config, store, players, reach, read.actor, sender)
        return _handle(config, store, players, links, reach, invite_links, games,
                       seats, dealer, handlers, message_id, read.actor, sender, read.msg, read.done,
                       record, dict(record), read.game,
                       send_now)


def _handle(config: Config, store: Store, players: Players, links: Links, reach: Reach, invite_links: InviteLinks,
            games: GameCache, seats: SeatCache, dealer: DealerFactory, handlers: Handlers, message_id: str,
            sender: str, origin: str, msg: dict[str, str],
            done_ids: list[str] | None, record: Mapping[str, str], life: dict[str, str], pre: MoveRead | None,
            send_now: str) -> Result:
    """The message of ``origin`` handled as the player ``sender``'s (their home: ``origin`` itself unless linked)."""
    if done_ids is not None:
        owner = player_owner(sender)
        done = Result([f"{owner}#{n}" for n in done_ids], Outcome.DUPLICATE)
        if "tap" in msg:  # a retry of a tap handled before: its answer too (written once), if it was not yet
            return buttons.answered(config, store, players, message_id, sender, origin, msg,
                                    (Tap.of(msg["tap"]) or Tap("", "")).reply,
                                    done)
        return done
    first = "kind" not in record
    if first or "lang" not in record:  # (a Telegram user's app language, when slowspades speaks it: no number to go by)
        hint = msg.get("lang", "")
        record = players.ensure(sender, hint if hint in LANGUAGES and config.get("LANG", "en") == "en"
                                else default_lang(config, sender))
    lang = lang_of_record(config, sender, record)
    channel = address_kind(origin)

    token_game: str | None = None
    found = players.reply_token(msg["token"]) if msg.get("token") else None
    if msg.get("token") and (found is None or found[1] not in (sender, origin)):
        return Result([], Outcome.IGNORED)
    if found is not None and found[0] != OWN:  # a game's reply address (not the player's own)
        meta = store.meta(found[0])
        seat = seat_of(meta, sender)
        if seat is None or meta.of_seat("tok", seat) != msg["token"]:
            return Result([], Outcome.IGNORED)
        token_game = found[0]
    page_ask: str | None = None
    if msg.get("page"):  # a move made on the sender's game page (service.web.game): its game, the question it answers
        token_game = _page_game(store, players, msg["page"], sender)
        if token_game is None:
            return Result([], Outcome.IGNORED)
        page_ask = msg.get("ask", "")

    if msg.get("flood"):  # the first message over the flood limit: only the notice, by the player's channel
        return outbox.reply(config, store, players, links, reach, sender, message_id,
                            "limit_flood", Outcome.LIMIT_FLOOD, limit=int(msg["flood"]))
    if msg.get("start"):  # an invitation's link opened on Telegram: this chat linked to the invited address
        return (take_invite_link(config, store, players, links, reach, invite_links, games, dealer, message_id, sender,
                                 msg["start"])  # NEW alone's link: the chat invited
                or telegram_start.take(config, store, players, links, reach, seats, message_id,
                                       sender, origin, msg["start"]))
    tap = Tap.of(msg["tap"]) if "tap" in msg else None
    if "tap" in msg:  # a tapped button (Telegram, WhatsApp): the question it answers, else stale (lifecycle.buttons)
        if tap is None:
            return buttons.answered(config, store, players, message_id, sender, origin, msg, "",
                                    Result([], Outcome.IGNORED))
        if tap.tag:
            asked = buttons.question_of(store, players, games, sender, tap.tag)
            if asked is None:
                return buttons.answered(config, store, players, message_id, sender, origin, msg, tap.reply,
                                        Result([], Outcome.STALE))
            token_game, page_ask = asked
        if tap.reply.startswith(MORE):  # WhatsApp's "More…": the rest of the answers; nothing is played
            return buttons.rest(config, store, players, message_id, sender, origin, msg, tap, token_game)
    body = tap.reply if tap is not None else msg.get("body", "")
    if msg.get("hello") and is_stopped(config, store,
                                       origin):  # Telegram's /start from a chat that blocked the bot (STOP)
        body = "START"
    said: Intent = port.parse_text(body, lang, channel)
    out = dispatch(config, store, players, links, reach, games, seats, dealer, handlers,
                   Inbound(message_id, sender, said, token_game, origin=origin, lang=lang, channel=channel, life=life,
                           pre=pre, send_now=send_now, first=first, own_address=bool(msg.get("token")),
                           page_ask=page_ask))
    return buttons.answered(config, store, players, message_id, sender, origin, msg, tap.reply,
                            out) if tap is not None else out


def _where_it_stands(store: Store, m: Inbound, gid: str, meta: Mapping[str, str], game: Game, seat: int, opp: str,
                     label: str) -> Rendered:
    """``HAND``'s answer: the question again, with what the player was not told since their last message (a prompt
    WhatsApp would not take while their window was closed, issue 45 case 5: the opponent's bid with it), which
    moves their cursor."""
    v = view(game, seat)
    since = int(meta.get(f"seen{seat}", game.version))
    news = [d for d in (redact(e, seat) for e in stored_since(store, gid, since, game.version)) if d is not None]
    told = port.turn_message(v, m.lang, m.channel, news, opp, label) if news and v.my_turn else None
    if told is None:
        return port.resend(v, m.lang, m.channel, opp, label)
    store.set_game_life(gid, {f"seen{seat}": str(game.version)})
    return told


def _page_game(store: Store, players: Players, token: str, sender: str) -> str | None:
    """The game whose page ``token`` is ``sender``'s (issued to their seat and still theirs), else None."""
    found = players.web_token(token)
    if found is None:
        return None
    meta = store.meta(found[0])
    ok = meta.of_seat("web", found[1]) == token and meta.seats[found[1]] == sender
    return found[0] if ok else None

"""The lifecycle's own words, one function each: ``NEW YES NO GAMES REMIND AUTO TZ PAUSE CLAIM REMATCH
RESIGN STOP START``. :mod:`service.inbound` dispatches to them through its table; each answers a
:class:`Message` with a :class:`service.games.result.Result`."""

from __future__ import annotations

from dataclasses import dataclass

from chat import Intent
from chat import render as chat_render
from chat.names import is_forgotten
from spades.events import HouseRules
from spades.game import view

from .. import conversation_port as port
from ..addresses import SMS, address_kind, is_bot
from ..caches import GameCache, SeatCache
from ..channels import reply_channel
from ..context import Config, DealerFactory
from ..conversation_port import render_message
from ..games import levels, outbox
from ..games.moves import player_move
from ..games.players import label_of, lang_of, name_of, unfinished_games
from ..games.result import Outcome, Result
from ..games.seats import opponent_of, seat_of
from ..records import GameMeta
from ..store import InviteLinks, Links, Players, Reach, Store, game_owner
from . import invitations, optout, reminders, routing, timeouts
from . import invite_links as invitation_links

RESIGN_WINDOW_MS = 3_600_000  # a YES more than an hour after RESIGN confirms nothing


@dataclass(frozen=True)
class Message:
    """An inbound message as the dispatcher read it: its id, its sender, what it says, and the game its reply
    address names (email)."""

    message_id: str
    sender: str  # the player: their home address (the address it came from, if linked to one: ``origin``)
    said: Intent
    token_game: str | None = None
    origin: str = ""  # the address the message came from ("": ``sender``)

    @property
    def came_from(self) -> str:
        """The address the message came from: ``sender``, or a linked address of theirs."""
        return self.origin or self.sender


def _setting(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message, setting: str,
             value: bool | str) -> Result:
    rendered = chat_render("setting", lang_of(config, players, m.sender), reply_channel(m.sender),
                           setting=setting, value=value)
    e = outbox.entry(config, store, players, links, reach, m.sender, "setting", rendered=rendered)
    return outbox.send_reply(store, m.sender, m.message_id, [e], setting)


def stop(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``STOP``: a carrier's own word (SMS) the carrier confirms; any other, we do, once."""
    confirm = not m.said.carrier or address_kind(m.came_from) != SMS
    return Result(optout.stop(config, store, players, links, reach, m.message_id, m.sender,
                              confirm=confirm, origin=m.came_from), Outcome.STOPPED)


def start(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    return Result(optout.start(config, store, players, links, reach, m.message_id, m.sender,
                               origin=m.came_from), Outcome.STARTED)


def new(config: Config, store: Store, players: Players, links: Links, reach: Reach, invite_links: InviteLinks,
        games: GameCache, dealer: DealerFactory, m: Message) -> Result:
    """``NEW <address | BOT>``: an invitation; ``NEW`` alone: a link for a friend."""
    if not m.said.arg:
        return invitation_links.offer(config, store, players, links, reach, invite_links,
                                      m.message_id, m.sender, m.said.rules or HouseRules())
    return invitations.invite(config, store, players, links, reach, games, dealer,
                              m.message_id, m.sender, m.said.arg, m.said.rules)


def _invited_token(store: Store, m: Message) -> str | None:
    """The game of the reply address, if it is an invitation."""
    if m.token_game and store.meta(m.token_game).get("status") == "invited":
        return m.token_game
    return None


def yes(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache, seats: SeatCache,
        dealer: DealerFactory, m: Message) -> Result:
    """``YES``: accepts an invitation, else confirms a ``RESIGN``, else there is nothing to confirm."""
    invited = _invited_token(store, m)
    if invited or (not m.token_game and invitations.waiting_for(store, players, m.sender)):
        return invitations.accept(config, store, players, links, reach, games, dealer, m.message_id, m.sender, invited)
    gid = _resign_pending(store, m.sender)
    if gid is not None:
        return _resign(config, store, players, links, reach, games, seats, dealer, m, gid)
    return _asked_instead(config, store, players, links, reach, games,
                          m) or outbox.reply(config, store, players, links, reach, m.sender,
                                             m.message_id, "no_invitation")


def _asked_instead(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                   m: Message) -> Result | None:
    """``YES`` to nothing, in a game that asks the sender something: that there is nothing to say yes to, and the
    question again (issue 45 case 8); None when no game asks them anything."""
    gid = _target(store, players, m).game_id
    meta = store.meta(gid) if gid else GameMeta()
    seat = seat_of(meta, m.sender)
    if gid is None or seat is None:
        return None
    game = games.load(gid)
    if not game.version or not game.may_move(seat):
        return None
    v = view(game, seat)
    channel = reply_channel(m.sender)
    rendered = port.error_message(port.NothingToConfirm("nothing to confirm"), v,
                                  lang_of(config, players, m.sender), channel,
                                  name_of(players, opponent_of(meta, seat)), label_of(store, players, m.sender, gid))
    return outbox.reply_rendered(config, store, players, links, reach, m.sender, m.message_id, rendered, "error",
                                 Outcome.NO_INVITATION, gid)


def no(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``NO``: declines an invitation, else answers the ``RESIGN`` question (the game goes on, issue 14 case 5),
    else there is nothing to decline."""
    if m.token_game or invitations.waiting_for(store, players, m.sender):
        return invitations.decline(config, store, players, links, reach, m.message_id, m.sender, m.token_game)
    gid = _resign_pending(store, m.sender)
    if gid is not None:
        store.del_player_life(m.sender, "resign", "resign_at")
        out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                           "resign_kept", Outcome.RESIGN_KEPT,
                           label=(label_of(store, players, m.sender, gid) + " ").lstrip())
        out.game_id = gid
        return out
    return outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "no_invitation")


def games(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          m: Message) -> Result:
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "games",
                       games=routing.listing(store, players, games, m.sender))
    return Result(out.outbox_ids, Outcome.GAMES)


def flag(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``REMIND ON/OFF``, ``AUTO ON/OFF``."""
    reminders.set_flag(store, m.sender, m.said.kind, bool(m.said.flag))
    return _setting(config, store, players, links, reach, m, m.said.kind, bool(m.said.flag))


def tz(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    zone = reminders.set_zone(config, store, players, m.sender, m.said.arg or "")
    if zone is None:
        out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                           "tz_unknown", text=(m.said.arg or "")[:40])
        return Result(out.outbox_ids, Outcome.TZ_UNKNOWN)
    return _setting(config, store, players, links, reach, m, "tz", zone)


def _target(store: Store, players: Players, m: Message, statuses: tuple[str, ...] = ("active",)) -> routing.Target:
    if m.token_game:
        return routing.Target(m.token_game, "token")
    return routing.resolve(store, players, m.sender, m.said.game, statuses=statuses)


def _no_such_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "no_such_game", number=m.said.game)
    return Result(out.outbox_ids, Outcome.NO_GAME)


def pause(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``PAUSE n`` in the game the message is for."""
    gid = _target(store, players, m).game_id
    if gid is None:
        return _no_such_game(config, store, players, links, reach, m)
    seat = seat_of(store.meta(gid), m.sender)
    if seat is None:
        return Result([], Outcome.IGNORED, gid)
    out = reminders.pause(config, store, players, links, reach, gid, m.message_id, seat, m.said.number)
    return Result(out.outbox_ids, Outcome.PAUSED, gid)


def claim(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
          seats: SeatCache, dealer: DealerFactory, m: Message) -> Result:
    """``CLAIM`` the game the message is for (its turn is scheduled by the caller, with ``Result.after``)."""
    gid = _target(store, players, m).game_id
    if gid is None:
        return _no_such_game(config, store, players, links, reach, m)
    if seat_of(store.meta(gid), m.sender) is None:
        return Result([], Outcome.IGNORED, gid)
    out = timeouts.claim(config, store, players, links, reach, games, seats, dealer, m.message_id, m.sender, gid)
    out.game_id = gid
    return out


def ask_resign(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``RESIGN``: ask for confirmation (``YES``) before the game ends."""
    gid = _target(store, players, m).game_id
    if gid is None:
        return _no_such_game(config, store, players, links, reach, m)
    meta = store.meta(gid)
    seat = seat_of(meta, m.sender)
    if seat is None:
        return Result([], Outcome.IGNORED, gid)
    store.set_player_life(m.sender, {"resign": gid, "resign_at": str(store.clock.now_ms())})
    opp = name_of(players, opponent_of(meta, seat))
    rendered = render_message("confirm_resign", lang_of(config, players, m.sender), reply_channel(m.sender),
                              label=(label_of(store, players, m.sender, gid) + " ").lstrip(), opp=opp)
    e = outbox.entry(config, store, players, links, reach, m.sender, "confirm_resign", rendered=rendered)
    return outbox.send_reply(store, m.sender, m.message_id, [e], Outcome.CONFIRM_RESIGN, gid)


def _resign_pending(store: Store, sender: str) -> str | None:
    life = store.player_life(sender)
    gid = life.get("resign")
    if not gid or store.clock.now_ms() - int(life.get("resign_at", "0")) > RESIGN_WINDOW_MS:
        return None
    return gid if store.meta(gid).get("status") == "active" else None


def _resign(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
            seats: SeatCache, dealer: DealerFactory, m: Message, gid: str) -> Result:
    """``YES`` after ``RESIGN``: the game ends (``service.games``), the opponent wins and is told."""
    out = player_move(config, store, players, links, reach, games, seats, dealer, m.message_id, m.sender, gid,
                      Intent("resign"))
    store.del_player_life(m.sender, "resign", "resign_at")
    if out.outcome == Outcome.APPLIED:
        out.outcome = Outcome.RESIGNED
    return out


def _live_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message,
               opponent: str | None) -> Result | None:
    """The answer to ``REMATCH`` while the sender's game against ``opponent`` (any computer for the computer; any
    opponent when None) is still going: finish it first (issue 45 case 6); None when there is none."""
    for gid in unfinished_games(store, players, m.sender, ("active",)):
        meta = store.meta(gid)
        seat = seat_of(meta, m.sender)
        other = opponent_of(meta, seat) if seat is not None else ""
        if other and (opponent is None or other == opponent or is_bot(other) and is_bot(opponent)):
            return outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "rematch_live",
                                Outcome.NO_GAME,
                                opp=name_of(players, other),
                                label=(label_of(store, players, m.sender, gid) + " ").lstrip())
    return None


def rematch(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
            dealer: DealerFactory, m: Message) -> Result:
    """``REMATCH``: the same opponent and house rules again (an invitation, or at once against the computer, at
    its level); ``REMATCH EASIER`` / ``HARDER``: the computer one level down or up (none past the easiest or the
    hardest, nor against a person: a reply says so, and no game starts)."""
    gid = m.token_game or routing.resolve(store, players, m.sender, m.said.game, statuses=("over",)).game_id
    meta = store.meta(gid) if gid else GameMeta()
    seat = seat_of(meta, m.sender) if gid else None
    if gid is None or seat is None or not meta.over:
        return _live_game(config, store, players, links, reach, m,
                          None) or _no_such_game(config, store, players, links, reach, m)
    opponent = opponent_of(meta, seat)
    if is_forgotten(opponent):  # erased (slowspades players forget): nobody to invite
        return _no_such_game(config, store, players, links, reach, m)
    new_gid = invitations.game_id_for(m.message_id)
    done = store.consumed(game_owner(new_gid), m.message_id)
    if done is not None:  # this very message handled before (a retry): the game it started, not "still going"
        return Result(done, Outcome.DUPLICATE, new_gid)
    live = _live_game(config, store, players, links, reach, m,
                      opponent)  # REMATCH sent twice, or while another game with them goes on: no second
    if live is not None:
        return live
    rules = invitations.rules_of(meta)
    level = levels.level_of(opponent)
    if m.said.arg in ("easier", "harder"):
        if level is None:
            return outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                                "level_limit", reason="person",
                                opp=name_of(players, opponent))
        stepped = levels.step(level, -1 if m.said.arg == "easier" else 1)
        if stepped is None:
            return outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "level_limit",
                                reason="easiest" if m.said.arg == "easier" else "hardest")
        level = stepped
    if level is not None:
        return invitations.start_bot_game(config, store, players, links, reach, games,
                                          dealer, m.message_id, m.sender, rules, level)
    return invitations.invite(config, store, players, links, reach, games, dealer,
                              m.message_id, m.sender, opponent, rules)

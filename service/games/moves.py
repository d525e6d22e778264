"""Who moves, for :func:`service.games.apply.apply`: a player (:class:`PlayerMove`: a move they sent, or a
confirmed ``RESIGN``), or the service for a seat (:class:`ServiceMove`: the computer, ``AUTO``, a claim)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chat import Intent
from chat.questions import question_key
from spades import bots
from spades.commands import Command
from spades.errors import GameOverError, RuleError
from spades.events import from_dict, redact
from spades.game import Game, view
from spades.plans import Plan, PlanError

from .. import conversation_port as port
from ..caches import GameCache, SeatCache
from ..channels import reply_channel
from ..context import Config, DealerFactory
from ..store import Links, Players, Reach, Store
from . import ahead
from .ahead import PlanGiven
from .apply import MoveRead, apply
from .outbox import reply_rendered
from .players import info_of, players_info, resolve_labels
from .result import Outcome, Result
from .seats import opponent_of, seat_of


@dataclass
class PlayerMove:
    """``said`` (an engine intent of ``chat``) sent by ``sender``: illegal moves and moves in a finished
    game get ``chat.explain_error`` / the prompt again in the sender's own outbox, and no event. A move made on
    the game page answers the question the page showed (``page_ask``, :func:`chat.page.question_key`): it is
    refused as stale once the game asks another (in a simultaneous draw the opponent's draws leave it asked),
    and a refused page move is answered on the page (``service.web.game``), not by SMS or email."""

    config: Config
    store: Store
    players: Players
    links: Links
    reach: Reach
    message_id: str
    sender: str
    said: Intent
    page_ask: str | None = None
    given: PlanGiven | None = None  # what the message did to the sender's plan (RULES D12), once chosen

    @property
    def by_message(self) -> bool:
        return self.page_ask is None

    def choose(self, read: MoveRead) -> Command | Result | PlanGiven:
        seat = seat_of(read.meta, self.sender)
        if seat is None:
            return Result([], Outcome.IGNORED, read.game_id)  # a stranger: nothing changes, nothing is said
        game = read.game
        if read.meta.get("status") == "over":
            if read.meta.get("archived") and self.store.consumed_in_archive(read.game_id, self.message_id):
                return Result([], Outcome.DUPLICATE, read.game_id)  # a retry whose consumed id was compacted away
            raise GameOverError("the game is over")  # refused by apply, once it knows this is no retry
        plan = ahead.given(self.said, game, seat, read.meta, whole=self.page_ask is not None)  # RULES D12
        if isinstance(plan, PlanError):
            if self.page_ask is not None:
                return Result([], Outcome.ILLEGAL, read.game_id)  # the page checked it first; it says why
            return self._plan_reply(read, seat, None, error=plan)
        if plan is not None and plan.what == "shown":
            return self._plan_reply(read, seat, plan.plan)
        if plan is not None:
            if read.meta.get("head") and self.store.consumed_in_head(read.game_id, self.message_id):
                return Result([], Outcome.DUPLICATE, read.game_id)  # a retry of a move compacted into the head
            self.given = plan
            return plan
        if self.page_ask is not None and question_key(view(game, seat)) != self.page_ask:
            return Result([], Outcome.STALE, read.game_id)  # the page asked a question the game moved past
        command = self.said.command(seat, game.phase)
        if command is None:
            raise ValueError(f"not a move: {self.said!r}")
        return command

    def _plan_reply(self, read: MoveRead, seat: int, plan: Plan | None, error: PlanError | None = None) -> Result:
        """The answer to a plan: the plan as it stands (``PLAN``, or after a change), or why it was refused."""
        me = info_of(read.infos, self.sender, self.config)
        opp = info_of(read.infos, opponent_of(read.meta, seat), self.config).name
        resolve_labels(self.store, [me], read.game_id)
        rendered = port.plan_message(plan, error, me.lang, reply_channel(self.sender), opp, me.labels[read.game_id])
        return reply_rendered(self.config, self.store, self.players, self.links, self.reach,
                              self.sender, self.message_id, rendered, "plan",
                              Outcome.ILLEGAL if error is not None else Outcome.PLANNED, read.game_id)

    def told(self, result: Result) -> Result:
        """``result`` of :func:`apply`, with the answer to a plan given (the plan as it now stands) added."""
        if self.given is None or result.outcome not in (Outcome.APPLIED, Outcome.PLANNED, Outcome.DUPLICATE) \
                or self.page_ask is not None:  # a plan from the page: the page shows it
            return result
        read = self.store.meta(result.game_id or "")
        seat = self.given.seat
        plan = ahead.plans_of(read)[seat] if read else self.given.plan
        if plan is None and result.outcome is Outcome.APPLIED and self.given.what == "given":
            return result  # played at once, all of it: the move's own messages say what it played
        me_infos = players_info(self.config, self.store, [self.sender, read.get(f"seat{1 - seat}", "")])
        me = info_of(me_infos, self.sender, self.config)
        opp = info_of(me_infos, read.get(f"seat{1 - seat}", ""), self.config).name
        resolve_labels(self.store, [me], result.game_id or "")
        rendered = port.plan_message(plan, None, me.lang, reply_channel(self.sender), opp, me.labels[result.game_id or ""])
        echo = reply_rendered(self.config, self.store, self.players, self.links, self.reach,
                              self.sender, self.message_id, rendered, "plan", Outcome.PLANNED,
                              result.game_id)
        result.outbox_ids = list(result.outbox_ids) + list(echo.outbox_ids)
        return result

    def refused(self, read: MoveRead, error: GameOverError | RuleError) -> Result:
        seat = seat_of(read.meta, self.sender)
        if seat is None:
            return Result([], Outcome.IGNORED, read.game_id)
        if self.page_ask is not None:
            return Result([], Outcome.ILLEGAL, read.game_id)  # the page says why (service.web.game)
        if read.meta.get("head") and self.store.consumed_in_head(read.game_id, self.message_id):
            return Result([], Outcome.DUPLICATE, read.game_id)  # a retry of a move moved into the head, its consumed id compacted
        me = info_of(read.infos, self.sender, self.config)
        opp = info_of(read.infos, opponent_of(read.meta, seat), self.config).name
        resolve_labels(self.store, [me], read.game_id)
        label = me.labels[read.game_id]
        channel = reply_channel(self.sender)  # a reply: to the address the move came from
        shown = view(read.game, seat)
        if self.said.kind == "draw" and error.code == "double_nil_not_allowed":  # DRAW answers a question asked before
            error = port.DoubleNilAnswered(str(error), error.legal)
        if isinstance(error, GameOverError):
            return reply_rendered(self.config, self.store, self.players, self.links, self.reach,
                                  self.sender, self.message_id,
                                  port.resend(shown, me.lang, channel, opp, label), "game_over", game_id=read.game_id)
        if error.code == "card_not_in_hand" and self.said.card is not None:  # sent again: the trick it went to
            news = played_since(self.store, read.game_id, seat, self.said.card.code)
            told = port.turn_message(shown, me.lang, channel, news, opp, label) if news else None
            if told is not None:
                return reply_rendered(self.config, self.store, self.players, self.links,
                                      self.reach, self.sender, self.message_id, told, "error", Outcome.ILLEGAL,
                                      read.game_id)
        return reply_rendered(self.config, self.store, self.players, self.links, self.reach,
                              self.sender, self.message_id,
                              port.error_message(error, shown, me.lang, channel, opp, label), "error",
                              Outcome.ILLEGAL, read.game_id)


#: enough of the newest events for a whole hand's play (26 cards, 13 tricks won)
_HAND_EVENTS = 64


def played_since(store: Store, game_id: str, seat: int, card: str) -> list[dict[str, Any]]:
    """What happened (redacted for ``seat``) from the trick of this hand ``seat`` played ``card`` to, on: a card
    sent again is answered with its trick (issue 45 case 3: its answer may not have reached the player yet).
    Empty when ``seat`` did not play ``card`` this hand."""
    events = store.newest_events(game_id, _HAND_EVENTS)
    mine = [i for i, e in enumerate(events) if e.get("type") == "card_played" and e.get("seat") == seat
            and e.get("card") == card]
    if not mine or any(e.get("type") in ("hand_started", "hand_scored") for e in events[mine[-1]:]):
        return []
    start = mine[-1]
    while start > 0 and events[start - 1].get("type") == "card_played":  # back to the card that led the trick
        start -= 1
    return [d for d in (redact(from_dict(e), seat) for e in events[start:]) if d is not None]


@dataclass(frozen=True)
class Strategy:
    """The move of strategy ``name`` of :mod:`spades.bots` for ``seat`` (None when it may not move): a
    :class:`ServiceMove`'s pick, played here (no callback into the layer that asked for it)."""

    seat: int
    name: str

    def __call__(self, game: Game) -> Command | None:
        if game.phase == "over" or not game.may_move(self.seat):
            return None
        return bots.get(self.name).choose(view(game, self.seat))


@dataclass
class ServiceMove:
    """A move the service makes for a seat: ``pick`` (a :class:`Strategy`, or the command itself; None: nobody to
    move for), in an active game, only while the game is at ``expected_version`` if given ("stale" otherwise)."""

    pick: Strategy | Command
    expected_version: int | None = None
    by_message = False

    def choose(self, read: MoveRead) -> Command | Result:
        game = read.game
        if read.meta.get("status") != "active":
            return Result([], Outcome.INACTIVE, read.game_id)
        if self.expected_version is not None and game.version != self.expected_version:
            return Result([], Outcome.STALE, read.game_id)
        command = self.pick(game) if isinstance(self.pick, Strategy) else self.pick
        return Result([], Outcome.NOTHING, read.game_id) if command is None else command

    def refused(self, read: MoveRead, error: GameOverError | RuleError) -> Result:
        return Result([], Outcome.REFUSED, read.game_id)


def player_move(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                seats: SeatCache, dealer: DealerFactory, message_id: str, sender: str, game_id: str, said: Intent, *,
                pre: MoveRead | None = None, send_now: str = "", page_ask: str | None = None) -> Result:
    """Apply what ``sender`` said in ``game_id`` (see :func:`apply`; ``page_ask``: :class:`PlayerMove`); a plan
    given (RULES D12) is answered with the plan as it now stands."""
    mover = PlayerMove(config, store, players, links, reach, message_id, sender, said, page_ask)
    return mover.told(apply(config, store, players, links, reach, games, seats, dealer, game_id, message_id, mover,
                            pre=pre, send_now=send_now))


def service_move(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
                 seats: SeatCache, dealer: DealerFactory, game_id: str, message_id: str, pick: Strategy | Command,
                 expected_version: int | None = None) -> Result:
    """Apply ``pick``'s command, once for ``message_id`` (see :class:`ServiceMove`)."""
    return apply(config, store, players, links, reach, games, seats, dealer, game_id, message_id,
                 ServiceMove(pick, expected_version))

"""What changing a game (or answering a message) did: one :class:`Result`, its :class:`Outcome`, and what
the lifecycle needs after a move (:class:`AfterMove`, :class:`TurnState`, :class:`BotTurn`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Mapping

from spades.game import Game

from ..records import GameMeta


class Outcome(StrEnum):
    """A word for what happened (a ``StrEnum``: equal to its string, as the tasks report it)."""

    # a game changed, or not
    APPLIED = "applied"
    DUPLICATE = "duplicate"  # the message was handled before: its first answer is dispatched again
    MISSING = "missing"  # no such inbound message
    IGNORED = "ignored"  # a stranger to the game, or a reply address not theirs: nothing is said
    STALE = "stale"  # the game moved on since the move was meant
    NOTHING = "nothing"  # nobody to move for
    REFUSED = "refused"  # the engine refused a move of the service's (computer, AUTO, claim)
    INACTIVE = "inactive"  # the game is not under way
    SUPPRESSED = "suppressed"  # a reply to the computer or to a number that sent STOP
    ILLEGAL = "illegal"
    GAME_OVER = "game_over"
    NOT_UNDERSTOOD = "not_understood"
    NO_GAME = "no_game"
    OK = "ok"  # lifecycle messages written about a game
    CONFLICT = "conflict"
    PLANNED = "planned"  # a plan given ahead (RULES D12) that covers no decision yet: the plan alone was written
    # replies and settings
    HELP = "help"
    LANG_SET = "lang_set"
    NAME_SET = "name_set"
    NAME_TAKEN = "name_taken"
    SETTING = "setting"
    RULES = "rules"
    WEB = "web"
    SCORE = "score"
    STATS = "stats"  # STATS: the player's record (service.games.record)
    LAST = "last"  # LAST: the trick before, or a decided end's tricks (chat.last)
    STATUS = "status"
    ERROR = "error"
    GAMES = "games"
    REMIND = "remind"
    AUTO = "auto"
    TZ = "tz"
    TZ_UNKNOWN = "tz_unknown"
    NO_INVITATION = "no_invitation"
    NO_SUCH_GAME = "no_such_game"
    CLAIM_REFUSED = "claim_refused"
    CLAIM_POSSIBLE = "claim_possible"
    CONFIRM_RESIGN = "confirm_resign"
    RESIGN_KEPT = "resign_kept"
    RESIGNED = "resigned"
    PAUSED = "paused"
    SAID = "said"  # a line of talk relayed (SAY, service.lifecycle.talk)
    TALK_REFUSED = "talk_refused"  # a line not relayed (or trimmed): a link, the rate, MUTE, STOP, the computer
    # the life of a game
    INVITED = "invited"
    INVITE_REFUSED = "invite_refused"
    INVITE_EXPIRED = "invite_expired"
    STARTED = "started"
    LEVEL_LIMIT = "level_limit"  # REMATCH EASIER / HARDER with no such level: nothing started
    DECLINED = "declined"
    STOPPED = "stopped"
    # linked channels (service.lifecycle.linking)
    LINK_SENT = "link_sent"  # a LINK code sent to the address to link
    LINKED = "linked"  # the right code came back from it
    LINK_FAILED = "link_failed"  # a wrong, expired or locked code, or none waiting: nothing linked
    LINK_REFUSED = "link_refused"  # LINK or VIA refused (not an address, not free, the day's codes...)
    UNLINKED = "unlinked"
    VIA = "via"
    # the abuse limits (service.limits), each with its own reply
    LIMIT_FLOOD = "limit_flood"
    LIMIT_INVITES_DAY = "limit_invites_day"
    LIMIT_INVITES_PENDING = "limit_invites_pending"
    LIMIT_COUNTRY = "limit_country"
    LIMIT_DOMAIN = "limit_domain"
    LIMIT_NEW_NUMBERS = "limit_new_numbers"
    INVITE_HELD = "invite_held"  # an invitation the day's SMS cap holds: it goes the next day
    INVITE_PENDING = "invite_pending"  # an invitation waits between the two already: nothing sent again


@dataclass(frozen=True)
class TurnState:
    """What the lifecycle reads of a game's state: a copy, so a cached ``Game`` can go on being used."""

    version: int
    phase: str
    movers: tuple[int, ...]  # who owes a move: none, one, or both in a simultaneous draw (RULES D11)
    actor: int | None = None  # the seat whose command made this state, if known

    @classmethod
    def of(cls, game: Game | TurnState, actor: int | None = None) -> TurnState:
        return cls(game.version, game.phase, tuple(game.movers), actor)


def movers_field(game: Game | TurnState) -> str:
    """Who owes a move, as the turn record holds it: the seats' digits (``"0"``, ``"1"``, ``"01"`` in a
    simultaneous draw, RULES D11), empty when nobody does."""
    return "" if game.phase == "over" else "".join(str(s) for s in sorted(game.movers))


@dataclass(frozen=True)
class BotTurn:
    """The computer is to move in ``game_id`` at ``version`` (as ``seat``)."""

    game_id: str
    seat: int
    version: int


@dataclass(frozen=True)
class AfterMove:
    """A game as :func:`service.games.apply` left it after an append: what the lifecycle needs next (so it
    reads nothing again): the game's state, its meta as written, its life hash and the time as read, and
    who was told about the game."""

    game: TurnState
    meta: GameMeta
    life: GameMeta
    now_ms: int
    told: tuple[str, ...]  # the recipients of its messages
    renote: tuple[str, ...] = ()  # those of them whose last prompted game was another
    recorded: tuple[int, str, str] | None = None  # the turn's record, written with the append (AppendResult.turn)
    # with ``send_now``, its messages are written claimed for the caller: those to send (with their
    # ids), and the ids of those not to (to the computer, or to a number that sent STOP, as read)
    claimed: tuple[dict[str, Any], ...] = ()
    unsendable: tuple[str, ...] = ()
    people: Mapping[str, str] = field(default_factory=dict)  # the seats' ``people`` marks as read (service.limits)


@dataclass
class Result:
    """What handling a message or changing a game did: the outbox ids to dispatch, the :class:`Outcome`,
    the game it was about; after a move, :class:`AfterMove`; the computer's turn to queue, if it is next."""

    outbox_ids: list[str] = field(default_factory=list)
    outcome: Outcome = Outcome.NOTHING
    game_id: str | None = None
    after: AfterMove | None = None
    bot: BotTurn | None = None
    game: Game | None = None  # a game just started (the lifecycle schedules its first turn)

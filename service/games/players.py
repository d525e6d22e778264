"""Who the players of a game are: their seats, names, the one rule for their language, whether they
stopped, and the game numbers they see (``#2``) when they have several unfinished games.

:class:`PlayerInfo` holds what rendering a game message needs of one player, read with a move
(``Store.read_move``) or in one round trip (:func:`players_info`); the functions taking ``store`` read the same
answers one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from chat.languages import language_for_address

from .. import limits
from ..addresses import is_bot
from ..context import Config
from ..records import Route
from ..store import Players, Store
from ..store.links import Links
from .seats import seat_of

UNFINISHED = ("invited", "active")


# -- the one language rule ---------------------------------------------------------------------------
def default_lang(config: Mapping[str, Any], address: str) -> str:
    """A player's language until they choose one (``LANG FR``): ``SLOWSPADES_LANG`` if set to other than
    ``en``, else their phone number's country (``chat.languages``)."""
    return _default_lang(config.get("LANG", "en") or "en", address)


def _default_lang(configured: str, address: str) -> str:
    return language_for_address(address) if configured == "en" else configured


def lang_of_record(config: Mapping[str, Any], address: str, record: Mapping[str, str] | None) -> str:
    """The player's language: their record's, else :func:`default_lang`."""
    return (record or {}).get("lang") or default_lang(config, address)


def lang_of(config: Config, players: Players, address: str) -> str:
    """:func:`lang_of_record` of the player's record as stored."""
    return lang_of_record(config, address, players.get(address))


# -- one player ----------------------------------------------------------------------------------------
def name_of(players: Players, address: str) -> str:
    """How a player is named to their opponent: a name they gave, the computer, or their address."""
    if is_bot(address):
        return "Bot"
    rec = players.get(address)
    return (rec.name if rec is not None else "") or address


def is_stopped(config: Config, store: Store, address: str) -> bool:
    """True once the player sent STOP (and not START since), or the mailbox the address delivers to did from any
    of its forms (:func:`mailbox_stopped`): nothing at all may be sent to them."""
    return store.player_life_field(address, "stopped") == "1" or mailbox_stopped(config, store, address)


def mailbox_stopped(config: Config, store: Store, address: str) -> bool:
    """Whether the mailbox ``address`` delivers to (:func:`service.limits.mailbox`: ``x+tag@gmail.com``,
    ``x.y@googlemail.com``, ``"x"@...`` are one) sent STOP from any of its forms (issue 44 case 3): STOP marks the
    folded mailbox too (:mod:`service.lifecycle.optout`). A phone number is its own mailbox: nothing more to read."""
    box = limits.mailbox_of(config, address)
    return box != address and store.player_life_field(box, "stopped") == "1"


def all_stopped(links: Links, address: str) -> bool:
    """True when nothing may be sent to the player ``address`` (their home) by any of their addresses: the home
    and every address linked to it sent STOP (:mod:`service.store.links`)."""
    return not links.route(address).reachable()


@dataclass
class PlayerInfo:
    """What rendering a game message needs of one player: the same answers as :func:`lang_of`,
    :func:`name_of`, :func:`is_stopped`, the player's flags and :func:`label`, from their record (which holds
    their life fields and game numbers too, :func:`service.store.keys.player_life`), read together with the
    caller's own commands."""

    address: str
    record: dict[str, str]
    configured_lang: str = "en"  # ``SLOWSPADES_LANG`` (:func:`default_lang`)
    labels: dict[str, str] = field(default_factory=dict)  # game id -> "#N" or "" once known
    computer: bool = field(init=False)  # the computer's seat (:func:`service.addresses.is_bot`)

    def __post_init__(self) -> None:
        self.computer = is_bot(self.address)

    @property
    def life(self) -> dict[str, str]:
        """The player's life fields (settings, STOP, links: fields of their record)."""
        return self.record

    @property
    def nums(self) -> dict[str, str]:
        """The player's game numbers (``<n>`` and ``g:<id>`` fields of their record)."""
        return self.record

    @property
    def lang(self) -> str:
        return self.record.get("lang") or _default_lang(self.configured_lang, self.address)

    @property
    def name(self) -> str:
        if self.computer:
            return "Bot"
        return self.record.get("name") or self.address

    @property
    def stopped(self) -> bool:
        return self.life.get("stopped") == "1"

    @property
    def may_send(self) -> bool:
        """Whether anything may be sent to the player: not the computer, and one of their addresses (the home or
        a linked one, :mod:`service.channels`) has not sent STOP."""
        if self.computer:
            return False
        return not self.stopped or ("links" in self.life and bool(Route.of(self.address, self.life).reachable()))

    def reaches(self, address: str) -> bool:
        """Whether ``address`` (the home or one linked to it) may be sent to: not the computer, no STOP from it."""
        if self.computer:
            return False
        return not Route.of(self.address, self.life).is_off(address)

    def flag(self, name: str, default: bool) -> bool:
        raw = self.life.get(name)
        return default if raw is None else raw == "1"


def info_of(infos: Mapping[str, PlayerInfo], address: str, config: Mapping[str, Any]) -> PlayerInfo:
    """The info of ``address`` among ``infos``, or an empty one (the computer, an empty seat)."""
    return infos.get(address) or PlayerInfo(address, {}, config.get("LANG", "en") or "en")


def players_from(config: Mapping[str, Any], records: Mapping[str, dict[str, str]]) -> dict[str, PlayerInfo]:
    """The :class:`PlayerInfo` of each address from its record (``Store.player_records``, ``Store.read_move``)."""
    configured = config.get("LANG", "en") or "en"
    return {address: PlayerInfo(address, record, configured) for address, record in records.items()}


def players_info(config: Config, store: Store, addresses: list[str], game_id: str | None = None) -> dict[str,
                                                                                                         PlayerInfo]:
    """:class:`PlayerInfo` of ``addresses`` (one round trip; labels of ``game_id`` in at most one more)."""
    infos = players_from(config, store.player_records(addresses))
    if game_id is not None:
        resolve_labels(store, list(infos.values()), game_id)
    return infos


# -- game numbers ------------------------------------------------------------------------------------
def number_of(store: Store, address: str, game_id: str) -> int:
    """The game's number for this player, given now if it has none yet: the smallest not held by
    another of their unfinished games."""
    known = store.number_of_game(address, game_id)
    if known is not None:
        return known
    taken: set[int] = set()
    for k, v in store.numbers(address).items():
        if k.isdigit() and store.meta(v).get("status") in UNFINISHED:
            taken.add(int(k))
    n = 1
    while n in taken:
        n += 1
    store.set_number(address, n, game_id)
    return n


def game_by_number(store: Store, address: str, n: int) -> str | None:
    return store.game_of_number(address, n)


def unfinished_games(store: Store, players: Players, address: str, statuses: tuple[str, ...] = UNFINISHED) -> list[str]:
    """The player's games with one of ``statuses``, newest first."""
    out = []
    for gid in players.games(address)[:100]:
        meta = store.meta(gid)
        if meta.get("status") in statuses and seat_of(meta, address) is not None:
            out.append(gid)
    return out


def label_of(store: Store, players: Players, address: str, game_id: str) -> str:
    """``#N`` when the player has more than one unfinished game, else ``""``."""
    if len(unfinished_games(store, players, address)) < 2:
        return ""
    return f"#{number_of(store, address, game_id)}"


def resolve_labels(store: Store, infos: list[PlayerInfo], game_id: str) -> None:
    """Fill ``info.labels[game_id]`` (:func:`label`) for each info, in at most one more round trip.

    A player's unfinished games are among the games their numbers point at (every game gets a
    number for each person when it is created, and a number is not given again while its game
    is unfinished), so only those games' status is read, not every game of the player; and only when
    their numbers point at two games or more (a player who never had two games at once has one number).
    """
    asks: list[tuple[PlayerInfo, list[str]]] = []
    for info in infos:
        if game_id in info.labels:
            continue
        numbered = {v for k, v in info.nums.items() if k.isdigit()}
        if len(numbered) < 2:
            info.labels[game_id] = ""
        else:
            asks.append((info, sorted(numbered)))
    if not asks:
        return
    pipe = store.pipeline()
    for _info, gids in asks:
        for gid in gids:
            store.queue_meta_fields(pipe, gid, "status", "seat0", "seat1")
    replies = iter(pipe.execute())
    for info, gids in asks:
        unfinished = 0
        for _gid in gids:
            status, s0, s1 = store.meta_fields_from(next(replies))
            if status in UNFINISHED and info.address in (s0, s1):
                unfinished += 1
        if unfinished < 2:
            info.labels[game_id] = ""
        else:
            n = Store.number_in(info.nums, game_id)
            info.labels[game_id] = f"#{n if n is not None else number_of(store, info.address, game_id)}"

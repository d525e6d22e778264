"""Forgetting a player (GDPR article 17): ``slowspades players forget ADDRESS`` and the retention setting
(``SLOWSPADES_FORGET_INACTIVE_DAYS``: players inactive that long are forgotten by ``players forget-inactive``).

A player is a home address and the addresses linked to it (:mod:`service.store.links`): forgetting any of them
forgets them all. What is erased and rewritten in Redis: :mod:`service.store.forget`. Here: the rules.

* ``SLOWSPADES_FORGET_INACTIVE_DAYS`` (0: never) forgets, once a day (the beat's ``workers.beat.forget_inactive``,
  or ``slowspades players forget-inactive`` run by the operator), every player with no game in play whose record
  and games have seen nothing for that many days (:func:`forget_inactive`).
* A forget reaches the live Redis only: a backup restored brings the player back. ``SLOWSPADES_FORGET_LEDGER``
  names a file, kept apart from the backups, where every forget appends the keyed hash of each address it
  forgot (:func:`ledger_hash`: an HMAC keyed by ``SLOWSPADES_LOG_HASH_KEY``, required then; never the address);
  after a restore, ``slowspades players forget-ledger`` forgets again every player whose address hashes to a line of it (:func:`replay_ledger`).
* A player with a game in play (an invitation pending, or a game under way) is not forgotten: their opponent's game
  would lose a seat that may still move. They may ``RESIGN``; a game left alone times out (``CLAIM``) and an
  invitation expires; then forget. :class:`InPlay` says which games.
* Their seat in each game becomes a *forgotten id* (``forgotten:`` and 16 random hex digits, one per player): the
  events name seats, never addresses, so the games still replay and verify, and the opponent's page, score sheet
  and messages name the seat "a forgotten player" in the opponent's language (``chat.names.FORGOTTEN``).
* The texts kept of what was sent (the games' outbox entries and local outbox streams, the opponents' replies)
  keep their words, with the player's address (whole and as messages shorten it, ``+33..5678``, ``ana@..``) and
  chosen name replaced by "a forgotten player"; what was sent *to* the player keeps its status and loses its texts.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import os
import re
import secrets
from dataclasses import dataclass, field

from chat.names import FORGOTTEN, display_name, short_address
from chat.render import gettext

from .addresses import WHATSAPP_PREFIX, address_kind, is_bot
from .config import LEDGER_KEY_MISSING, SettingsError
from .context import Config
from .games.players import lang_of
from .games.seats import opponent_of, seat_of
from .records import GameMeta, PlayerRecord
from .store import Store, game_owner, player_owner
from .store.forget import Forgetting, Scrub
from .store.links import Links
from .store.players import Players
from .store.talk import Talk

IN_PLAY = ("invited", "active")
DAY_MS = 86_400_000


class InPlay(Exception):
    """The player has games in play (``games``): they are not forgotten yet."""

    def __init__(self, games: list[str]) -> None:
        super().__init__(f"games in play: {' '.join(games)}")
        self.games = games


@dataclass
class Forgotten:
    """What a forget did: the addresses forgotten, the id their seats now carry, the games whose seat was renamed,
    the keys deleted and the stored texts rewritten."""

    addresses: list[str]
    forgotten_id: str
    games: list[str] = field(default_factory=list)
    keys_deleted: int = 0
    texts_rewritten: int = 0


def forgotten_id() -> str:
    """A fresh id for a forgotten player's seats (``forgotten:`` and 16 random hex digits)."""
    return FORGOTTEN + secrets.token_hex(8)


def last_activity_ms(store: Store, game_id: str, meta: GameMeta) -> int:
    """The time of the game's last append (its stream's last id), else when it was created, started or ended."""
    times = [int(meta.get(k) or 0) for k in ("created", "started", "ended")]
    return max([*times, store.last_append_ms(game_id) or 0])


def scrubber(addresses: list[str], name: str, replacement: str) -> Scrub:
    """A function replacing in a text each of ``addresses`` (whole, and as a message shortens it) and the chosen
    ``name`` (as a whole word, any case; and as an SMS shortens it) by ``replacement``."""
    words: set[str] = set()
    for a in [*addresses, *(a.removeprefix(WHATSAPP_PREFIX) for a in addresses if a.startswith(WHATSAPP_PREFIX))]:
        words.add(a)
        short = short_address(a)
        if short:
            words.add(short)
        if address_kind(a) == "sms" and a.startswith("+"):
            words.add(a[1:])  # the digits alone
    if name:
        words.update({name, display_name(name, "sms"), html.escape(name)})  # as written, cut by an SMS, in HTML
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w+@.])(?:{alternatives})(?![\w@])", re.IGNORECASE)

    def scrub(value: str) -> str:
        return pattern.sub(replacement, value)

    return scrub


def forget(config: Config, store: Store, players: Players, links: Links, talk: Talk, forgetting: Forgetting,
           address: str) -> Forgotten:
    """Forget the player ``address`` is (its home and every address linked to it); raises :class:`InPlay` if they
    have a game in play. Idempotent: run again after an interruption, it finishes the job."""
    home = links.home(address)
    addresses = list(dict.fromkeys([home, *links.linked(home), address]))
    gids = players.games(home)
    metas = {gid: store.meta(gid) for gid in gids}
    in_play = [gid for gid, meta in metas.items() if meta.status in IN_PLAY and seat_of(meta, home) is not None]
    if in_play:
        raise InPlay(in_play)
    name = (players.get(home) or PlayerRecord(home)).name
    note_in_ledger(config, addresses)  # first: a forget interrupted is still re-applied after a restore
    fid = forgotten_id()
    done = Forgotten(addresses, fid)
    gone = frozenset(addresses)
    for gid, meta in metas.items():
        seat = seat_of(meta, home)
        if seat is None:
            continue
        opponent = opponent_of(meta, seat)
        scrub = scrubber(addresses, name, gettext(lang_of(config, players, opponent), "a forgotten player"))
        done.texts_rewritten += forgetting.rewrite_texts(game_owner(gid), scrub, gone, fid)
        if opponent and not opponent.startswith(FORGOTTEN):
            done.texts_rewritten += forgetting.rewrite_texts(player_owner(opponent), scrub, gone, fid)
        done.texts_rewritten += talk.forget_seat(gid, seat, scrub)  # their lines of the game's talk (SAY)
        forgetting.forget_seat(gid, seat, fid)  # last: a forget run again finds the game by its seat until then
        done.games.append(gid)
    if name:
        forgetting.release_name(home, name)
    forgetting.drop_link_codes(gone)
    for a in addresses:
        done.keys_deleted += forgetting.erase_owner(a)
    return done


def inactive_players(store: Store, players: Players, links: Links, forgetting: Forgetting, days: float,
                     now_ms: int) -> list[str]:
    """The players (homes) with no game in play and nothing done for ``days``: their record's creation and their
    games' last activity all older than that."""
    cutoff = now_ms - int(days * DAY_MS)
    out = []
    for home in forgetting.player_addresses():
        record = players.get(home) or PlayerRecord(home)
        if is_bot(home) or links.home(home) != home or int(record.get("created") or 0) > cutoff:
            continue
        metas = {gid: store.meta(gid) for gid in players.games(home)}
        if any(m.status in IN_PLAY for m in metas.values()):
            continue
        if all(last_activity_ms(store, gid, m) <= cutoff for gid, m in metas.items()):
            out.append(home)
    return out


def forget_inactive(config: Config, store: Store, players: Players, links: Links, talk: Talk, forgetting: Forgetting,
                    days: float, now_ms: int, dry_run: bool = False) -> tuple[int, int]:
    """Forget every :func:`inactive_players` (none when ``days`` is 0); returns (found, forgotten)."""
    found = inactive_players(store, players, links, forgetting, days, now_ms) if days > 0 else []
    forgotten = 0
    for home in [] if dry_run else found:
        try:
            forget(config, store, players, links, talk, forgetting, home)
            forgotten += 1
        except InPlay:  # a game began since it was listed
            continue
    return len(found), forgotten


def ledger_hash(config: Config, address: str) -> str:
    """How the ledger names an address: the hex HMAC-SHA256 of it with ``SLOWSPADES_LOG_HASH_KEY`` (the same in every
    process of a deployment), apart from the logs' own hashes (another message is hashed). That key is required: no
    fallback to one derived from the webhook secrets, which a token rotation would change (:class:`SettingsError`)."""
    return hmac.new(ledger_key(config), b"forget|" + address.lower().encode(), hashlib.sha256).hexdigest()


def ledger_key(config: Config) -> bytes:
    """``SLOWSPADES_LOG_HASH_KEY``, the ledger's key; :class:`SettingsError` (one line) when it is not set."""
    key = str(config.get("LOG_HASH_KEY") or "")
    if not key:
        raise SettingsError(LEDGER_KEY_MISSING)
    return key.encode()


def note_in_ledger(config: Config, addresses: list[str]) -> None:
    """Append the :func:`ledger_hash` of each of ``addresses`` to ``SLOWSPADES_FORGET_LEDGER`` (if set), on disk."""
    path = str(config.get("FORGET_LEDGER") or "")
    if not path:
        return
    with open(path, "a", encoding="ascii") as f:
        f.write("".join(ledger_hash(config, a) + "\n" for a in addresses))
        f.flush()
        os.fsync(f.fileno())


def replay_ledger(config: Config, store: Store, players: Players, links: Links, talk: Talk, forgetting: Forgetting,
                  path: str) -> tuple[list[str], list[str]]:
    """After a backup was restored: forget every player with an address in the ledger at ``path``; returns (the
    homes forgotten, the games in play that kept one from being forgotten)."""
    ledger_key(config)  # refused before anything is read without it
    with open(path, encoding="ascii") as f:
        wanted = {line.strip() for line in f if line.strip()}
    forgotten: list[str] = []
    blocked: list[str] = []
    for address in forgetting.player_addresses():
        if ledger_hash(config, address) not in wanted or players.get(address) is None:
            continue  # (a player forgotten as another's linked address a moment ago has no record left)
        try:
            forgotten.append(forget(config, store, players, links, talk, forgetting, address).forgotten_id)
        except InPlay as exc:
            blocked.extend(exc.games)
    return forgotten, blocked

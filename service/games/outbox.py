"""Outbox entries of the lifecycle: :func:`outbound` and :func:`entry` composed as they read
(:class:`~service.games.live_lookups.Live` over :mod:`.compose_entry`, where an entry is composed from data), and
writing replies and game notices once per message id.

Every text is rendered by ``chat`` (``chat.render``; the lifecycle's from ``templates/lifecycle/``), never built
here; where a message goes, :func:`service.channels.destination`.
"""

from __future__ import annotations

from typing import Any

from chat.render import Rendered

from ..channels import Destination, reply_to
from ..context import Config
from ..records import GameMeta
from ..store import Players, Reach, Store, game_owner, player_owner
from ..store.links import Links
from . import compose_entry
from .compose_entry import BUTTONS, recipient, render
from .live_lookups import Live
from .result import Outcome, Result

__all__ = ["BUTTONS", "entry", "notify_game", "outbound", "recipient", "render", "reply", "reply_rendered",
           "send_reply"]


def outbound(config: Config, store: Store, players: Players, address: str, rendered: Rendered, *,
             game_id: str | None = None, seat: int | None = None, meta: GameMeta | None = None,
             meta_updates: dict[str, str] | None = None, kind: str = "", about: str | None = None,
             home: str | None = None, to: Destination | None = None) -> dict[str, Any]:
    """:func:`service.games.compose_entry.outbound`, reading what it asks (a token made on first use)."""
    return compose_entry.outbound(config, Live(config, store, players), address, rendered, game_id=game_id,
                                  seat=seat, meta=meta, meta_updates=meta_updates, kind=kind, about=about, home=home,
                                  to=to)


def entry(config: Config, store: Store, players: Players, links: Links, reach: Reach, address: str, name: str, *,
          game_id: str | None = None, seat: int | None = None,
          meta: GameMeta | None = None, meta_updates: dict[str, str] | None = None,
          rendered: Rendered | None = None, even_if_stopped: bool = False, to: Destination | None = None,
          **context: Any) -> dict[str, Any] | None:
    """:func:`service.games.compose_entry.entry`, reading what it asks (the player's record, where it goes)."""
    return compose_entry.entry(config, Live(config, store, players, links, reach), address, name, game_id=game_id,
                               seat=seat, meta=meta, meta_updates=meta_updates, rendered=rendered,
                               even_if_stopped=even_if_stopped, to=to, **context)


def send_reply(store: Store, address: str, message_id: str, entries: list[dict[str, Any] | None],
               outcome: Outcome | str, game_id: str | None = None) -> Result:
    """Write ``entries`` (those not None) in ``address``'s own outbox, once for ``message_id``."""
    kept = [e for e in entries if e is not None]
    res = store.append(player_owner(address), -1, message_id=message_id, outbox=kept)
    return Result(res.outbox_ids, Outcome(outcome) if res.ok else Outcome.DUPLICATE, game_id)


def reply_rendered(config: Config, store: Store, players: Players, links: Links, reach: Reach, address: str,
                   message_id: str, rendered: Rendered, kind: str,
                   outcome: Outcome | str | None = None, game_id: str | None = None,
                   even_if_stopped: bool = True) -> Result:
    """A reply rendered already (``chat``, for :func:`~service.channels.reply_channel`), tied to no game, in the
    sender's own outbox, once per message id, to the address that wrote (:func:`~service.channels.reply_to`). An answer to the sender's own message goes even to a stopped number unless ``even_if_stopped`` is False."""
    e = (outbound(config, store, players, reply_to(address), rendered, kind=kind, about=game_id,
                  home=address) if even_if_stopped
         else entry(config, store, players, links, reach, address, kind, rendered=rendered))
    return send_reply(store, address, message_id, [e], outcome or kind, game_id)


def reply(config: Config, store: Store, players: Players, links: Links, reach: Reach, address: str, message_id: str,
          name: str, outcome: Outcome | None = None,
          **context: Any) -> Result:
    """A lifecycle reply (template ``name``) tied to no game, in the sender's own outbox, once per message id;
    its outcome is ``outcome``, else the template's name."""
    e = entry(config, store, players, links, reach, address, name, **context)
    if e is None:
        return Result([], Outcome.SUPPRESSED)
    return send_reply(store, address, message_id, [e], outcome or name, context.get("game_id"))


def notify_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, game_id: str,
                message_id: str, messages: list[tuple[int, str, dict[str, Any]]],
                meta_updates: dict[str, str] | None = None, expected_version: int = -1) -> Result:
    """Write lifecycle messages about a game (``(seat, template, context)``) to the game's outbox, once."""
    meta = store.meta(game_id)
    updates = dict(meta_updates or {})
    entries = []
    for seat, name, ctx in messages:
        address = meta.seats[seat]
        e = entry(config, store, players, links, reach, address, name, game_id=game_id, seat=seat, meta=meta,
                  meta_updates=updates, **ctx)
        if e is not None:
            entries.append(e)
    res = store.append(game_owner(game_id), expected_version, [], message_id=message_id, outbox=entries, meta=updates)
    return Result(res.outbox_ids, Outcome(res.status), game_id)

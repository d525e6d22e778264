"""What the operator's commands share: the service's parts, addresses, times, output and failure, a game's summary."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from typing import Any, NoReturn

import click

from spades.cards import Card
from spades.events import from_dict
from spades.game import Game, PlayerView, fold

from .. import logs
from ..addresses import BadAddress, parse_address
from ..bootstrap import Dependencies, bootstrap
from ..config import load_config
from ..context import Config
from ..forget import last_activity_ms
from ..store import Store
from ..store.gauges import Gauges

redis_option = click.option("--redis-url", envvar="SLOWSPADES_REDIS_URL", default=None,
                            help="Redis of the service (default: SLOWSPADES_REDIS_URL).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


# -- helpers ------------------------------------------------------------------------------
def services(redis_url: str | None) -> Dependencies:
    """The service's parts, from the environment's configuration (``redis_url`` overriding its Redis)."""
    overrides = {"REDIS_URL": redis_url} if redis_url else {}
    if not os.environ.get("SLOWSPADES_BROKER_URL"):  # the CLI queues no task: a cluster needs no broker here
        overrides["BROKER_URL"] = "memory://"
    cfg = load_config(overrides=overrides)
    logs.set_key(cfg)  # a player's pseudonym in the logs, as the deployment's processes write it
    return bootstrap(cfg)


def redis_shown(gauges: Gauges) -> str:
    """The Redis the CLI reads (:func:`service.store.client.describe`), so an operator sees which one."""
    return gauges.described()


def when(ms: int | None) -> str:
    """A time in ms since the epoch, as UTC ISO 8601 (``-`` for none)."""
    if not ms:
        return "-"
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")


def emit(data: Any, as_json: bool, text: str) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, default=str) if as_json else text)


def fail(message: str, code: int = 2, as_json: bool = False) -> NoReturn:
    if as_json:
        click.echo(json.dumps({"error": message}))
    else:
        click.echo(f"error: {message}", err=True)
    sys.exit(code)


def load_game(store: Store, game_id: str) -> Game:
    return fold(from_dict(se.event) for se in store.load(game_id))


def game_summary(store: Store, game_id: str) -> dict[str, Any]:
    """What ``games list`` shows of one game."""
    meta = store.meta(game_id)
    seats = [meta.seats[0], meta.seats[1]]
    out: dict[str, Any] = {"id": game_id, "status": meta.status or "?", "players": seats,
                           "version": store.version(game_id), "phase": None, "hand": None,
                           "to_move": None, "movers": [], "scores": None, "winner": None}
    if out["version"]:
        game = load_game(store, game_id)
        movers = [seats[s] for s in game.movers] if game.phase != "over" else []
        # to_move: who owes a move (both, joined by " & ", in a simultaneous draw, RULES D11)
        out.update(phase=game.phase, hand=game.hand_no, scores=list(game.scores), movers=movers,
                   to_move=" & ".join(movers) or None,
                   winner=seats[game.winner] if game.winner is not None else None)
    elif out["status"] == "invited":
        out["to_move"] = seats[1]  # the invitee is to answer
        out["movers"] = [seats[1]]
    ms = last_activity_ms(store, game_id, meta)
    out.update(last_activity_ms=ms, last_activity=when(ms))
    return out


def normalise(config: Config, text: str) -> str:
    """An address as the service stores it (E.164 or lower-case email); unchanged if unparseable."""
    try:
        return parse_address(text, config.get("DEFAULT_REGION", "US")).value
    except BadAddress:
        return text.strip()


def view_dict(v: PlayerView) -> dict[str, Any]:
    """A ``PlayerView`` as JSON-ready data (cards as codes)."""
    def card(c: Card | None) -> str | None:
        return c.code if c is not None else None

    return {"game_id": v.game_id, "seat": v.seat, "hand_no": v.hand_no, "phase": v.phase, "my_turn": v.my_turn,
            "hand": [c.code for c in v.hand], "offered": card(v.offered),
            "double_nil_offer": v.double_nil_offer, "trick": [[s, c.code] for s, c in v.trick],
            "tricks_won": list(v.tricks_won), "bids": list(v.bids), "scores": list(v.scores),
            "bags": list(v.bags), "spades_broken": v.spades_broken, "winner": v.winner,
            "end_reason": v.end_reason}

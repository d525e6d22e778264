"""``slowspades players show ADDRESS``: a player's record and games. ``slowspades players export ADDRESS``: everything
held about a player, as JSON (the right of access, GDPR article 15). ``slowspades players forget ADDRESS`` and
``players forget-inactive``: a player erased (the right to erasure, article 17; :mod:`service.forget`)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from spades.events import from_dict, redact

from .. import logs
from ..addresses import address_kind
from ..forget import InPlay, forget, forget_inactive, replay_ledger
from ..games.players import name_of
from ..games.seats import opponent_of, seat_of
from ..store import Store, game_owner, player_owner
from ..store.forget import Forgetting
from ..store.players import Players
from .common import emit, fail, game_summary, json_option, normalise, redis_option, services, when


@click.group()
def players() -> None:
    """Players, known by their phone number or email address."""


@players.command("show")
@click.argument("address")
@json_option
@redis_option
def players_show(address: str, as_json: bool, redis_url: str | None) -> None:
    """A player's record and games (opponent, state, whose turn)."""
    svc = services(redis_url)
    addr = normalise(svc.config, address)
    record = svc.players.get(addr)
    gids = svc.players.games(addr)
    if record is None and not gids:
        fail(f"no player {addr}", as_json=as_json)
    rows = []
    for gid in gids:
        s = game_summary(svc.store, gid)
        opp = [p for p in s["players"] if p != addr]
        s["opponent"] = opp[0] if opp else None
        s["your_turn"] = addr in s["movers"]
        rows.append(s)
    own = svc.store.outbox_entries(player_owner(addr))
    code, since = svc.reach.unreachable(addr), svc.reach.since(addr)
    data = {"address": addr, "channel": address_kind(addr), "record": record or {}, "games": rows,
            "replies": len(own), "log_pseudonym": logs.pseudonym(addr),
            "unreachable": {"code": code, "since_ms": since} if code else None}
    lines = [f"{addr} ({address_kind(addr)}; in the logs {data['log_pseudonym']})"]
    if code:  # delivery receipts said it cannot be reached (docs/operating.md, Unreachable players)
        lines.append(f"  unreachable: {code} since {when(since or 0)} (until they write again)")
    lines += [f"  {k}: {when(int(v)) if k in ('created',) and v.isdigit() else v}" for k, v in sorted((record or {}).items())]
    lines.append(f"  games ({len(rows)}):")
    for r in rows:
        turn = "your turn" if r["your_turn"] else (f"{r['to_move']} to move" if r["to_move"] else "-")
        lines.append(f"    {r['id']}  {r['status']:<8} vs {r['opponent']}  {turn}  last {r['last_activity']}")
    lines.append(f"  replies outside games: {len(own)}")
    emit(data, as_json, "\n".join(lines))



@players.command("export")
@click.argument("address")
@redis_option
def players_export(address: str, redis_url: str | None) -> None:
    """Everything held about a player, as one JSON document: their settings, every game (its rules and status,
    each event as they may know it, their own moves, the messages sent to them), their replies outside games,
    and every key of their own in Redis, dumped."""
    svc = services(redis_url)
    addr = normalise(svc.config, address)
    data = player_export(svc.store, svc.players, svc.forgetting, addr)
    if not data["record"] and not data["games"] and not data["stored"]:
        fail(f"no player {addr}", as_json=True)
    emit(data, True, "")


def player_export(store: Store, players: Players, forgetting: Forgetting, addr: str) -> dict[str, Any]:
    """What ``players export`` prints (see there)."""
    games = []
    for gid in players.games(addr):
        meta = store.meta(gid)
        seat = seat_of(meta, addr)
        if seat is None:
            continue
        opponent = opponent_of(meta, seat)
        events, moves = [], []
        for stored in store.load(gid):
            seen = redact(from_dict(stored.event), seat)
            if seen is None:
                continue
            row = {"at": when(stored.time_ms), "event": seen}
            events.append(row)
            if seen.get("seat") == seat:
                moves.append(row)
        sent = [{"at": when(int(e.get("updated_ms") or 0)), "channel": e.get("channel"), "subject": e.get("subject"),
                 "text": e.get("body"), "status": e.get("status")}
                for e in store.outbox_entries(game_owner(gid)) if e.get("to") == addr]
        games.append({"id": gid, "status": meta.status, "seat": seat, "rules": meta.get("rules"),
                      "created": when(meta.created_ms),
                      "opponent": name_of(players, opponent) if opponent else None,
                      "events": events, "your_moves": moves, "messages_to_you": sent})
    replies = [{"at": when(int(e.get("updated_ms") or 0)), "channel": e.get("channel"), "text": e.get("body"),
                "status": e.get("status")} for e in store.outbox_entries(player_owner(addr))]
    return {"address": addr, "channel": address_kind(addr), "log_pseudonym": logs.pseudonym(addr),
            "record": players.get(addr) or {}, "games": games, "replies_outside_games": replies,
            "stored": forgetting.player_keys(addr)}


@players.command("forget")
@click.argument("address")
@json_option
@redis_option
def players_forget(address: str, as_json: bool, redis_url: str | None) -> None:
    """Forget a player (and every address linked to theirs): their keys deleted, their seats renamed "a forgotten
    player", their address and name replaced in the texts kept. Refused while they have a game in play (exit 1)."""
    svc = services(redis_url)
    addr = normalise(svc.config, address)
    if svc.players.get(svc.links.home(addr)) is None and not svc.players.games(svc.links.home(addr)):
        fail(f"no player {addr}", as_json=as_json)
    try:
        done = forget(svc.config, svc.store, svc.players, svc.links, svc.talk, svc.forgetting, addr)
    except InPlay as exc:
        emit({"forgotten": False, "games_in_play": exc.games}, as_json,
             f"not forgotten: games in play {' '.join(exc.games)} (RESIGN, or wait for the timeout or the expiry)")
        sys.exit(1)
    data = {"forgotten": True, "addresses": len(done.addresses), "id": done.forgotten_id, "games": done.games,
            "keys_deleted": done.keys_deleted, "texts_rewritten": done.texts_rewritten}
    emit(data, as_json, f"forgotten: {len(done.addresses)} address(es), now {done.forgotten_id} in "
                        f"{len(done.games)} game(s); {done.keys_deleted} keys deleted, {done.texts_rewritten} texts rewritten")


@players.command("forget-inactive")
@click.option("--days", type=float, default=None, help="Inactive for this many days (default: SLOWSPADES_FORGET_INACTIVE_DAYS).")
@click.option("--dry-run", is_flag=True, help="List them, forget nobody.")
@json_option
@redis_option
def players_forget_inactive(days: float | None, dry_run: bool, as_json: bool, redis_url: str | None) -> None:
    """Forget every player with no game in play and nothing done for the retention time (run it daily, e.g. from
    cron; nothing when the retention is 0)."""
    svc = services(redis_url)
    days = float(svc.config.get("FORGET_INACTIVE_DAYS") or 0) if days is None else days
    found, forgotten = forget_inactive(svc.config, svc.store, svc.players, svc.links, svc.talk, svc.forgetting, days,
                                       svc.store.clock.now_ms(), dry_run)
    emit({"days": days, "inactive": found, "forgotten": forgotten}, as_json,
         f"{found} player(s) inactive for {days:g} days; {forgotten} forgotten")


@players.command("forget-ledger")
@click.option("--ledger", default=None, help="The ledger file (default: SLOWSPADES_FORGET_LEDGER).")
@json_option
@redis_option
def players_forget_ledger(ledger: str | None, as_json: bool, redis_url: str | None) -> None:
    """After restoring a backup: forget again every player the ledger lists (exit 1 if a game in play kept one)."""
    svc = services(redis_url)
    path = ledger or str(svc.config.get("FORGET_LEDGER") or "")
    if not path or not os.path.exists(path):
        fail(f"no ledger {path!r} (SLOWSPADES_FORGET_LEDGER or --ledger)", as_json=as_json)
    forgotten, blocked = replay_ledger(svc.config, svc.store, svc.players, svc.links, svc.talk, svc.forgetting, path)
    emit({"forgotten": len(forgotten), "games_in_play": blocked}, as_json,
         f"{len(forgotten)} player(s) forgotten again" + (f"; games in play: {' '.join(blocked)}" if blocked else ""))
    if blocked:
        sys.exit(1)

"""``slowspades players show ADDRESS``: a player's record and games."""

from __future__ import annotations

import click

from ..addresses import address_kind
from ..store import player_owner
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
    addr = normalise(svc, address)
    record = svc.players.get(addr)
    gids = svc.players.games(addr)
    if record is None and not gids:
        fail(f"no player {addr}", as_json=as_json)
    rows = []
    for gid in gids:
        s = game_summary(svc, gid)
        opp = [p for p in s["players"] if p != addr]
        s["opponent"] = opp[0] if opp else None
        s["your_turn"] = addr in s["movers"]
        rows.append(s)
    own = svc.store.outbox_entries(player_owner(addr))
    data = {"address": addr, "channel": address_kind(addr), "record": record or {}, "games": rows,
            "replies": len(own)}
    lines = [f"{addr} ({address_kind(addr)})"]
    lines += [f"  {k}: {when(int(v)) if k in ('created',) and v.isdigit() else v}" for k, v in sorted((record or {}).items())]
    lines.append(f"  games ({len(rows)}):")
    for r in rows:
        turn = "your turn" if r["your_turn"] else (f"{r['to_move']} to move" if r["to_move"] else "-")
        lines.append(f"    {r['id']}  {r['status']:<8} vs {r['opponent']}  {turn}  last {r['last_activity']}")
    lines.append(f"  replies outside games: {len(own)}")
    emit(data, as_json, "\n".join(lines))


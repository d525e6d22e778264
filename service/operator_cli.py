"""Operator commands of the ``slowspades`` CLI: see, check and repair games, the outbox and players.

``slowspades games list | show ID --as ADDRESS | events ID | verify ID``,
``slowspades outbox list | resend ID``, ``slowspades players show ADDRESS``; each takes
``--json`` (one JSON document on stdout) and ``--redis-url`` (default: ``SLOWSPADES_REDIS_URL``).
Exit status: 0 when fine, 1 when a check failed (``games verify``), 2 when something asked
for does not exist.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from typing import Any, Iterator

import click

from spades.events import from_dict
from spades.game import Game, fold, view

from .config import load_config
from .context import Services
from .players import BadAddress, address_kind, parse_address
from .store import game_owner, owner_keys, player_owner, split_outbox_id

redis_option = click.option("--redis-url", envvar="SLOWSPADES_REDIS_URL", default=None,
                            help="Redis of the service (default: SLOWSPADES_REDIS_URL).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


# -- helpers ------------------------------------------------------------------------------
def services(redis_url: str | None) -> Services:
    """The service's parts, from the environment's configuration (``redis_url`` overriding its Redis)."""
    cfg = load_config()
    if redis_url:
        cfg["REDIS_URL"] = redis_url
    return Services.from_config(cfg)


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def when(ms: int | None) -> str:
    """A time in ms since the epoch, as UTC ISO 8601 (``-`` for none)."""
    if not ms:
        return "-"
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")


def emit(data: Any, as_json: bool, text: str) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, default=str) if as_json else text)


def fail(message: str, code: int = 2, as_json: bool = False) -> None:
    if as_json:
        click.echo(json.dumps({"error": message}))
    else:
        click.echo(f"error: {message}", err=True)
    sys.exit(code)


def scan_ids(svc: Services, pattern: str, prefix: str, suffix: str) -> Iterator[str]:
    """The ids in keys like ``{g:<id>}:meta`` found with SCAN (operator use: walks the keyspace)."""
    for key in svc.redis.scan_iter(match=pattern, count=1000):
        k = _s(key)
        if k.startswith(prefix) and k.endswith(suffix):
            yield k[len(prefix):-len(suffix)]


def game_ids(svc: Services) -> list[str]:
    return sorted(set(scan_ids(svc, "{g:*}:meta", "{g:", "}:meta")))


def load_game(svc: Services, game_id: str) -> Game:
    return fold(from_dict(se.event) for se in svc.store.load(game_id))


def last_activity_ms(svc: Services, game_id: str, meta: dict[str, str]) -> int:
    """The time of the game's last append (its stream's last id), else when it was created."""
    last = svc.redis.xrevrange(owner_keys(game_owner(game_id))["ev"], count=1)
    times = [int(meta.get(k) or 0) for k in ("created", "started", "ended")]
    if last:
        times.append(int(_s(last[0][0]).split("-")[0]))
    return max(times)


def game_summary(svc: Services, game_id: str) -> dict[str, Any]:
    """What ``games list`` shows of one game."""
    meta = svc.store.meta(game_id)
    seats = [meta.get("seat0", ""), meta.get("seat1", "")]
    out: dict[str, Any] = {"id": game_id, "status": meta.get("status", "?"), "players": seats,
                           "version": svc.store.version(game_id), "phase": None, "hand": None,
                           "to_move": None, "scores": None, "winner": None}
    if out["version"]:
        game = load_game(svc, game_id)
        out.update(phase=game.phase, hand=game.hand_no, scores=list(game.scores),
                   to_move=seats[game.to_move] if game.to_move is not None and game.phase != "over" else None,
                   winner=seats[game.winner] if game.winner is not None else None)
    elif out["status"] == "invited":
        out["to_move"] = seats[1]  # the invitee is to answer
    ms = last_activity_ms(svc, game_id, meta)
    out.update(last_activity_ms=ms, last_activity=when(ms))
    return out


def normalise(svc: Services, text: str) -> str:
    """An address as the service stores it (E.164 or lower-case email); unchanged if unparseable."""
    try:
        return parse_address(text, svc.config.get("DEFAULT_REGION", "US")).value
    except BadAddress:
        return text.strip()


def view_dict(v: Any) -> dict[str, Any]:
    """A ``PlayerView`` as JSON-ready data (cards as codes)."""
    def card(c: Any) -> Any:
        return c.code if c is not None else None

    return {"game_id": v.game_id, "seat": v.seat, "hand_no": v.hand_no, "phase": v.phase, "my_turn": v.my_turn,
            "hand": [c.code for c in v.hand], "offered": card(v.offered),
            "double_nil_offer": v.double_nil_offer, "trick": [[s, c.code] for s, c in v.trick],
            "tricks_won": list(v.tricks_won), "bids": list(v.bids), "scores": list(v.scores),
            "bags": list(v.bags), "spades_broken": v.spades_broken, "winner": v.winner,
            "end_reason": v.end_reason}


# -- games ----------------------------------------------------------------------------------
@click.group()
def games() -> None:
    """Games: list them, see one as a player sees it, its events, verify it."""


@games.command("list")
@click.option("--status", type=click.Choice(["invited", "active", "over"]), default=None, help="Only these.")
@click.option("--player", default=None, help="Only the games of this address.")
@json_option
@redis_option
def games_list(status: str | None, player: str | None, as_json: bool, redis_url: str | None) -> None:
    """Every game: state, players, whose turn, last activity (most recent first)."""
    svc = services(redis_url)
    ids = svc.players.games(normalise(svc, player)) if player else game_ids(svc)
    rows = [game_summary(svc, gid) for gid in ids]
    rows = [r for r in rows if status is None or r["status"] == status]
    rows.sort(key=lambda r: r["last_activity_ms"], reverse=True)
    lines = [f"{'GAME':<14} {'STATUS':<8} {'PHASE':<9} {'HAND':>4} {'SCORE':>11}  {'TO MOVE':<22} "
             f"{'LAST ACTIVITY':<21} PLAYERS"]
    for r in rows:
        score = f"{r['scores'][0]}-{r['scores'][1]}" if r["scores"] else "-"
        lines.append(f"{r['id']:<14} {r['status']:<8} {r['phase'] or '-':<9} {r['hand'] or '-':>4} {score:>11}  "
                     f"{r['to_move'] or '-':<22} {r['last_activity']:<21} {' vs '.join(r['players'])}")
    if not rows:
        lines.append("(no games)")
    emit({"games": rows}, as_json, "\n".join(lines))


@games.command("show")
@click.argument("game_id")
@click.option("--as", "as_address", required=True, help="The player's address (phone number or email).")
@json_option
@redis_option
def games_show(game_id: str, as_address: str, as_json: bool, redis_url: str | None) -> None:
    """Exactly what one player sees of a game: their view, rendered as the service would send it."""
    from . import conversation_port as port
    from .lifecycle import gateway

    svc = services(redis_url)
    meta = svc.store.meta(game_id)
    if not meta:
        fail(f"no game {game_id}", as_json=as_json)
    address = normalise(svc, as_address)
    seat = gateway.seat_of(meta, address)
    if seat is None:
        fail(f"{address} does not play in game {game_id}", as_json=as_json)
    assert seat is not None
    channel = address_kind(address)
    lang = (svc.players.get(address) or {}).get("lang") or svc.config.get("LANG", "en")
    last = [e for e in svc.store.outbox_entries(game_owner(game_id)) if e.get("to") == address]
    last_message = last[-1] if last else None
    data: dict[str, Any] = {"game": game_id, "address": address, "seat": seat, "status": meta.get("status"),
                            "last_message": last_message}
    if svc.store.version(game_id) == 0:
        data.update(view=None, rendered=None)
        text = f"Game {game_id} ({meta.get('status')}): not started yet."
    else:
        v = view(load_game(svc, game_id), seat)
        rendered = port.render_message("status", lang, channel, view=v, game_id=game_id)
        data.update(view=view_dict(v), rendered={"text": rendered.text, "subject": rendered.subject})
        text = (rendered.subject + "\n" if channel == "email" and rendered.subject else "") + rendered.text
    if last_message:
        text += f"\n\nLast message sent to {address} ({last_message['status']}, {last_message['id']}):\n" \
                f"{last_message['body']}"
    emit(data, as_json, text)


@games.command("events")
@click.argument("game_id")
@json_option
@redis_option
def games_events(game_id: str, as_json: bool, redis_url: str | None) -> None:
    """Every event of a game in order, with when it was appended and the message that caused it."""
    svc = services(redis_url)
    stored = svc.store.load(game_id)
    if not stored and not svc.store.meta(game_id):
        fail(f"no game {game_id}", as_json=as_json)
    rows = [{"seq": n, "stream_id": se.stream_id, "time_ms": int(se.stream_id.split("-")[0]),
             "message_id": se.message_id, "event": se.event} for n, se in enumerate(stored, start=1)]
    lines = []
    for r in rows:
        e = dict(r["event"])
        kind = e.pop("type")
        e.pop("v", None)
        if "deck" in e:
            e["deck"] = " ".join(e["deck"])
        fields = " ".join(f"{k}={json.dumps(v, separators=(',', ':')) if not isinstance(v, str) else v}"
                          for k, v in e.items())
        cause = f"  <- {r['message_id']}" if r["message_id"] else ""
        lines.append(f"{r['seq']:>4} {when(r['time_ms'])} {kind:<20} {fields}{cause}")
    emit({"game": game_id, "events": rows}, as_json, "\n".join(lines) or "(no events)")


def verify_game(svc: Services, game_id: str) -> dict[str, Any]:
    """Replay a game's events through the rules (``spades.replay.verify_log``) and check the store agrees."""
    from spades.replay import ReplayError, command_for, verify_log

    problems: list[str] = []
    stored = svc.store.load(game_id)
    meta = svc.store.meta(game_id)
    result: dict[str, Any] = {"game": game_id, "events": len(stored), "ok": False, "problems": problems}
    if not stored:
        if meta.get("status") in ("invited", "declined", "expired"):  # an invitation never played: nothing to replay
            result["ok"] = True
            return result
        problems.append("no events" if meta else "no such game")
        return result
    try:
        events = [from_dict(se.event) for se in stored]
    except ValueError as exc:
        problems.append(f"unreadable event: {exc}")
        return result
    try:
        game = verify_log(events)
    except ReplayError as exc:
        problems.append(str(exc))
        game = None
    # every append after the opening one starts with a player's move (one move per message)
    for n, se in enumerate(stored, start=1):
        if n > 2 and se.time_ms is not None and command_for(events[n - 1]) is None:
            problems.append(f"event {n} ({se.event['type']}) starts an append but is not a player's move")
    if game is not None:
        over = game.phase == "over"
        if over != (meta.get("status") == "over"):
            problems.append(f"the game's phase is {game.phase} but its record says {meta.get('status')!r}")
        result.update(phase=game.phase, hand=game.hand_no, scores=list(game.scores))
    result["ok"] = not problems
    return result


@games.command("verify")
@click.argument("game_id", required=False)
@click.option("--all", "every", is_flag=True, help="Verify every game.")
@json_option
@redis_option
def games_verify(game_id: str | None, every: bool, as_json: bool, redis_url: str | None) -> None:
    """Replay a game and re-check every event against the rules (exit 1 if any check fails)."""
    svc = services(redis_url)
    if not game_id and not every:
        fail("give a GAME_ID or --all", as_json=as_json)
    ids = game_ids(svc) if every else [game_id or ""]
    if not every and not svc.store.meta(ids[0]) and not svc.store.version(ids[0]):
        fail(f"no game {ids[0]}", as_json=as_json)
    results = [verify_game(svc, gid) for gid in ids]
    lines = []
    for r in results:
        if r["ok"]:
            lines.append(f"{r['game']}: OK, {r['events']} events re-checked"
                         + (f" (phase {r['phase']}, hand {r['hand']})" if r.get("phase") else ""))
        else:
            lines.extend(f"{r['game']}: FAILED: {p}" for p in r["problems"])
    ok = all(r["ok"] for r in results)
    emit({"ok": ok, "games": results}, as_json, "\n".join(lines) or "(no games)")
    if not ok:
        sys.exit(1)


# -- outbox ---------------------------------------------------------------------------------
@click.group()
def outbox() -> None:
    """The outbox: every message the service sent or will send, and its delivery status."""


def outbox_owners(svc: Services) -> list[str]:
    owners = [f"g:{g}" for g in scan_ids(svc, "{g:*}:outbox", "{g:", "}:outbox")]
    owners += [f"p:{p}" for p in scan_ids(svc, "{p:*}:outbox", "{p:", "}:outbox")]
    return sorted(set(owners))


@outbox.command("list")
@click.option("--status", type=click.Choice(["queued", "sending", "sent", "delivered", "failed"]), default=None)
@click.option("--game", "game_id", default=None, help="Only the messages of this game.")
@click.option("--to", "to", default=None, help="Only the messages to this address.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@json_option
@redis_option
def outbox_list(status: str | None, game_id: str | None, to: str | None, limit: int, as_json: bool,
                redis_url: str | None) -> None:
    """Outbox entries, most recently updated first."""
    svc = services(redis_url)
    owners = [game_owner(game_id)] if game_id else outbox_owners(svc)
    if to and not game_id:
        owners = [o for o in owners if o.startswith("g:")] + [player_owner(normalise(svc, to))]
    target = normalise(svc, to) if to else None
    entries = [e for o in owners for e in svc.store.outbox_entries(o)]
    entries = [e for e in entries if (status is None or e["status"] == status)
               and (target is None or e.get("to") == target)]
    entries.sort(key=lambda e: (e["updated_ms"], e["id"]), reverse=True)
    entries = entries[:limit]
    lines = [f"{'ID':<30} {'STATUS':<9} {'CHANNEL':<7} {'TO':<24} {'UPDATED':<21} BODY"]
    for e in entries:
        body = " ".join(str(e.get("body", "")).split())
        lines.append(f"{e['id']:<30} {e['status']:<9} {e.get('channel', ''):<7} {e.get('to', ''):<24} "
                     f"{when(e['updated_ms']):<21} {body[:60] + ('...' if len(body) > 60 else '')}"
                     + (f"  [{e['error']}]" if e.get("error") else ""))
    if not entries:
        lines.append("(no messages)")
    emit({"entries": entries}, as_json, "\n".join(lines))


REQUEUE_LUA = r"""
-- KEYS: outbox, outq, dirty; ARGV: n, now ms, owner, lease ms, force
local n = ARGV[1]
if not redis.call('HGET', KEYS[1], n) then return 'missing' end
local s = redis.call('HGET', KEYS[1], n .. ':s') or 'queued'
local t = tonumber(redis.call('HGET', KEYS[1], n .. ':t') or '0')
if s == 'sending' and ARGV[5] ~= '1' and tonumber(ARGV[2]) - t <= tonumber(ARGV[4]) then return 'busy' end
redis.call('HSET', KEYS[1], n .. ':s', 'queued', n .. ':t', ARGV[2])
redis.call('HDEL', KEYS[1], n .. ':err')
redis.call('ZADD', KEYS[2], ARGV[2], n)
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
return s
"""


@outbox.command("resend")
@click.argument("outbox_id")
@click.option("--force", is_flag=True, help="Even if a worker is sending it right now.")
@click.option("--queue", "via_worker", is_flag=True, help="Hand it to the worker instead of sending from here.")
@json_option
@redis_option
def outbox_resend(outbox_id: str, force: bool, via_worker: bool, as_json: bool, redis_url: str | None) -> None:
    """Send an outbox entry again (a failed one, or one a player says never arrived)."""
    from .delivery import TransientSendError, deliver
    from .store import DIRTY, now_ms

    svc = services(redis_url)
    try:
        owner, n = split_outbox_id(outbox_id)
    except ValueError as exc:
        fail(str(exc), as_json=as_json)
        raise
    k = owner_keys(owner)
    before = _s(svc.redis.eval(REQUEUE_LUA, 3, k["outbox"], k["outq"], DIRTY, n, now_ms(), owner,
                               int(svc.config["SEND_LEASE"]) * 1000, "1" if force else "0"))
    if before == "missing":
        fail(f"no outbox entry {outbox_id}", as_json=as_json)
    if before == "busy":
        fail(f"{outbox_id} is being sent right now (use --force to send it again anyway)", 1, as_json)
    if via_worker:
        from flask import Flask

        from workers import celery_init_app

        app = Flask("slowspades-cli")
        app.config.update(svc.config)
        celery_init_app(app).send_task("workers.tasks.deliver", args=[outbox_id])
        status = "queued"
    else:
        try:
            status = deliver(svc, outbox_id)
        except TransientSendError as exc:
            status = f"queued (provider unavailable: {exc}; the sweep will retry)"
    entry = svc.store.outbox_entry(outbox_id)
    emit({"id": outbox_id, "was": before, "status": entry["status"] if entry else status, "entry": entry},
         as_json, f"{outbox_id}: was {before}, now {status}")


# -- players --------------------------------------------------------------------------------
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
        s["your_turn"] = s["to_move"] == addr
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


COMMANDS = (games, outbox, players)

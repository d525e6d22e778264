"""``slowspades games list | show ID --as ADDRESS | events ID | plans ID | verify ID``: see and check games."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from spades.events import from_dict
from spades.game import view
from spades.replay import ReplayError, command_for, verify_log

from .. import conversation_port as port
from ..addresses import address_kind
from ..games.players import label_of, lang_of, name_of
from ..games.seats import opponent_of, seat_of
from ..store import Store, game_owner
from .common import (
    emit,
    fail,
    game_summary,
    json_option,
    load_game,
    normalise,
    redis_option,
    redis_shown,
    services,
    view_dict,
    when,
)


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
    ids = svc.players.games(normalise(svc.config, player)) if player else svc.store.game_ids()
    rows = [game_summary(svc.store, gid) for gid in ids]
    rows = [r for r in rows if status is None or r["status"] == status]
    rows.sort(key=lambda r: r["last_activity_ms"], reverse=True)
    lines = [f"Redis: {redis_shown(svc.gauges)}",
             f"{'GAME':<14} {'STATUS':<8} {'PHASE':<9} {'HAND':>4} {'SCORE':>11}  {'TO MOVE':<22} "
             f"{'LAST ACTIVITY':<21} PLAYERS"]
    for r in rows:
        score = f"{r['scores'][0]}-{r['scores'][1]}" if r["scores"] else "-"
        lines.append(f"{r['id']:<14} {r['status']:<8} {r['phase'] or '-':<9} {r['hand'] or '-':>4} {score:>11}  "
                     f"{r['to_move'] or '-':<22} {r['last_activity']:<21} {' vs '.join(r['players'])}")
    if not rows:
        lines.append("(no games)")
    emit({"redis": redis_shown(svc.gauges), "games": rows}, as_json, "\n".join(lines))


@games.command("show")
@click.argument("game_id")
@click.option("--as", "as_address", required=True, help="The player's address (phone number or email).")
@json_option
@redis_option
def games_show(game_id: str, as_address: str, as_json: bool, redis_url: str | None) -> None:
    """Exactly what one player sees of a game: their view, rendered as the service would send it."""
    svc = services(redis_url)
    meta = svc.store.meta(game_id)
    if not meta:
        fail(f"no game {game_id}", as_json=as_json)
    address = normalise(svc.config, as_address)
    seat = seat_of(meta, address)
    if seat is None:
        fail(f"{address} does not play in game {game_id}", as_json=as_json)
    channel = address_kind(address)
    lang = lang_of(svc.config, svc.players, address)
    last = [e for e in svc.store.outbox_entries(game_owner(game_id)) if e.get("to") == address]
    last_message = last[-1] if last else None
    data: dict[str, Any] = {"game": game_id, "address": address, "seat": seat, "status": meta.status,
                            "last_message": last_message}
    if svc.store.version(game_id) == 0:
        data.update(view=None, rendered=None)
        text = f"Game {game_id} ({meta.status}): not started yet."
    else:
        v = view(load_game(svc.store, game_id), seat)
        rendered = port.render_message("status", lang, channel, view=v, game_id=game_id,
                                       opponent=name_of(svc.players, opponent_of(meta, seat)),
                                       label=label_of(svc.store, svc.players, address, game_id))
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
    """Every event of a game in order, with when it was appended and the message that caused it (``#<hex>``, its
    64-bit digest, once in the head or the archive)."""
    svc = services(redis_url)
    stored = svc.store.load(game_id)
    if not stored and not svc.store.meta(game_id):
        fail(f"no game {game_id}", as_json=as_json)
    rows: list[dict[str, Any]] = [{"seq": n, "stream_id": se.stream_id, "time_ms": int(se.stream_id.split("-")[0]),
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


@games.command("plans")
@click.argument("game_id")
@json_option
@redis_option
def games_plans(game_id: str, as_json: bool, redis_url: str | None) -> None:
    """Every change to the players' plans (answers given ahead, RULES D12), for a dispute: given, shown, cleared,
    an entry played or dropped and why; no player is shown these."""
    svc = services(redis_url)
    if not svc.store.meta(game_id):
        fail(f"no game {game_id}", as_json=as_json)
    rows = []
    for sid, raw in svc.store.plan_log(game_id):
        try:
            change = json.loads(raw)
        except ValueError:
            change = {"raw": raw}
        rows.append({"stream_id": sid, "time_ms": int(sid.split("-")[0]), **change})
    lines = [f"{when(r['time_ms'])} seat {r.get('seat')} {r.get('what', '?'):<8} "
             + json.dumps({k: v for k, v in r.items() if k not in ("stream_id", "time_ms", "seat", "what")},
                          separators=(",", ":")) for r in rows]
    emit({"game": game_id, "plans": rows}, as_json, "\n".join(lines) or "(no plan given)")


def verify_game(store: Store, game_id: str) -> dict[str, Any]:
    """Replay a game's events through the rules (``spades.replay.verify_log``) and check the store agrees."""
    problems: list[str] = []
    stored = store.load(game_id)
    meta = store.meta(game_id)
    result: dict[str, Any] = {"game": game_id, "events": len(stored), "ok": False, "problems": problems}
    if not stored:
        if meta.status in ("invited", "declined", "expired"):  # an invitation never played: nothing to replay
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
        if over != (meta.over):
            problems.append(f"the game's phase is {game.phase} but its record says {meta.status!r}")
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
    ids = svc.store.game_ids() if every else [game_id or ""]
    if not every and not svc.store.meta(ids[0]) and not svc.store.version(ids[0]):
        fail(f"no game {ids[0]}", as_json=as_json)
    results = [verify_game(svc.store, gid) for gid in ids]
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

"""The talk across a game's table: ``SAY <text>`` relays a line to the opponent, ``MUTE`` / ``UNMUTE``.

A line goes to the opponent where their turns go (:func:`service.channels.destination`), marked as the sayer's
(``Ana says: nice play!``), and is kept in the game's talk (:class:`service.store.talk.Talk`), which both game pages
show. What keeps it civil and cheap, each with a reply to the sayer that says why:

* one SMS segment with its label, in the opponent's language: a longer line is trimmed (the sayer told so);
* no link (``https://``, ``www.``, ``name.com``...): the line is refused, nothing relayed;
* ``SAY_PER_HOUR`` lines a player in an hour (a setting): the first line past it is answered, the others dropped;
* an opponent who said ``MUTE`` gets no line (the sayer is told; the opponent's own lines are refused until
  ``UNMUTE``); a player who mutes has their opponents told, once, at the ``MUTE``;
* an address that sent STOP gets nothing (:func:`service.games.outbox.entry`): the line stays on the page, and the
  sayer is told it was not sent.

Against the computer a line is kept on the record and the sayer told, in one fixed line, that the computer plays
and does not talk. The talk is for games in play and games over (``good game``); it is not a move and changes no
game.
"""

from __future__ import annotations

import re
from typing import Any

from chat.gsm import segments

from ..addresses import is_bot
from ..context import Config
from ..games import outbox
from ..games.players import lang_of, name_of, unfinished_games
from ..games.result import Outcome, Result
from ..games.seats import computer_at, opponent_of, seat_of
from ..records import Route
from ..store import Players, Reach, Store, Talk
from ..store.links import Links
from . import routing, settings
from .commands import Message

MUTE_FIELD = "mute"  # the player's life field: "1" when they said MUTE
#: A link, or what a phone turns into one: a scheme, ``www.``, or a name ending in a domain (``bit.ly/x``,
#: ``example.com``); words joined by a dot (``well.done``) with no such ending are not links.
_LINK = re.compile(
    r"(?i)(?:\b[a-z][a-z0-9+.-]*://|\bwww\d?\.|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|info|biz|io|co|ly|me|gl|gg|"
    r"to|tv|app|dev|xyz|site|online|link|click|top|shop|ru|cn|uk|fr|no|id|gr|de|eu|us|ca|au|in|nl|it|es|be|ch|se)"
    r"\b|@[a-z0-9-]+\.[a-z]{2,})")


def has_link(line: str) -> bool:
    """Whether ``line`` carries a link (or an email address): such a line is never relayed."""
    return _LINK.search(line) is not None


def _no_game(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "no_such_game", number=m.said.game)
    return Result(out.outbox_ids, Outcome.NO_GAME)


def _refused(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message, reason: str,
             game_id: str | None = None, **context: Any) -> Result:
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "talk_refused",
                       Outcome.TALK_REFUSED, reason=reason, **context)
    out.game_id = game_id
    return out


def fit(line: str, sayer: str, lang: str) -> str:
    """``line`` cut (at a word if it can) so that the message that relays it, in ``lang``, is one SMS segment."""
    def whole(candidate: str) -> bool:
        rendered = outbox.render("talk_line", lang, "sms", opp=sayer, line=candidate)
        return segments(rendered.text) <= 1
    if whole(line):
        return line
    lo, hi = 0, len(line)
    while lo < hi:  # the longest prefix that fits (with its mark of a cut)
        mid = (lo + hi + 1) // 2
        if whole(line[:mid].rstrip() + "..."):
            lo = mid
        else:
            hi = mid - 1
    cut = line[:lo]
    if " " in cut.strip() and not line[lo:lo + 1].isspace():
        cut = cut[:cut.rstrip().rfind(" ")]  # at a word
    return cut.rstrip() + "..."


def say(config: Config, store: Store, players: Players, links: Links, reach: Reach, talk: Talk, m: Message) -> Result:
    """``SAY <text>`` in the game the message is for (in play, or over: once archived, its outbox takes no more, so
    the line goes from the sayer's own); see the module docstring."""
    target = m.token_game or routing.resolve(store, players, m.sender, m.said.game, statuses=("active", "over")).game_id
    if target is None:
        return _no_game(config, store, players, links, reach, m)
    meta = store.meta(target)
    seat = seat_of(meta, m.sender)
    if seat is None:
        return Result([], Outcome.IGNORED, target)
    opponent = opponent_of(meta, seat)
    opp_name = name_of(players, opponent)
    if store.player_life_field(m.sender, MUTE_FIELD) == "1":
        return _refused(config, store, players, links, reach, m, "self_muted", target)
    limit = int(settings.get(config, "SAY_PER_HOUR"))
    said = talk.count(m.sender, store.clock.now_ms() // 3_600_000)
    if limit and said > limit:  # the first line past the limit is answered, the others dropped
        return _refused(config, store, players, links, reach, m, "rate", target, limit=limit) if said == limit + 1 \
            else Result([], Outcome.TALK_REFUSED, target)
    line = m.said.arg or ""
    if has_link(line):
        return _refused(config, store, players, links, reach, m, "link", target)
    if is_bot(opponent):  # kept on the record (once: a message handled again is a duplicate), not relayed
        out = _refused(config, store, players, links, reach, m, "bot", target, opp=opp_name)
        if out.outcome != Outcome.DUPLICATE:
            talk.add(target, seat, fit(line, name_of(players, m.sender), lang_of(config, players, m.sender)))
        return out
    if store.player_life_field(opponent, MUTE_FIELD) == "1":
        return _refused(config, store, players, links, reach, m, "muted", target, opp=opp_name)
    sayer = name_of(players, m.sender)
    relayed = fit(line, sayer, lang_of(config, players, opponent))
    msgs: list[tuple[int, str, dict[str, Any]]] = [(1 - seat, "talk_line", {"opp": sayer, "line": relayed})]
    if relayed != line:
        msgs.append((seat, "talk_refused", {"reason": "trimmed", "line": relayed, "opp": opp_name}))
    reached = _reached(store, opponent)
    out = outbox.notify_game(config, store, players, links, reach, target, m.message_id, msgs)
    if out.outcome == Outcome.CONFLICT:  # a game over and archived takes no more messages: from the sayer's own outbox
        entries = [outbox.entry(config, store, players, links, reach, meta.seats[s],
                                name, game_id=target, seat=s, meta=meta, **ctx)
                   for s, name, ctx in msgs]
        if not reached:  # (this message's one write to the sayer's outbox: the refusal below would be a duplicate)
            entries.append(outbox.entry(config, store, players, links, reach, m.sender,
                                        "talk_refused", reason="stopped", opp=opp_name))
        out, reached = outbox.send_reply(store, m.sender, m.message_id, entries, Outcome.SAID, target), True
    if out.outcome == Outcome.DUPLICATE:
        return out
    talk.add(target, seat, relayed)
    if not reached:  # STOP: nothing went; the line is on the page
        stopped = _refused(config, store, players, links, reach, m, "stopped", target, opp=opp_name)
        out.outbox_ids = out.outbox_ids + stopped.outbox_ids
    out.outcome = Outcome.SAID
    return out


def page_lines(talk: Talk, game_id: str, seat: int) -> list[dict[str, Any]]:
    """The game's talk as ``seat``'s page shows it, oldest first: ``mine`` (said by ``seat``) and ``text``."""
    return [{"mine": line.seat == seat, "text": line.text} for line in talk.lines(game_id)]


def _reached(store: Store, address: str) -> bool:
    """Whether a message to the player ``address`` goes anywhere (some address of theirs did not send STOP)."""
    return bool(Route.of(address, store.player_life(address)).reachable())


def mute(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``MUTE``: no more lines from the opponents; each opponent of a game in play told once (at the ``MUTE``)."""
    if store.player_life_field(m.sender, MUTE_FIELD) == "1":
        return outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                            "talk_setting", Outcome.SETTING, muted=True)
    store.set_player_life(m.sender, {MUTE_FIELD: "1"})
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                       "talk_setting", Outcome.SETTING, muted=True)
    me = name_of(players, m.sender)
    for gid in unfinished_games(store, players, m.sender):
        meta = store.meta(gid)
        seat = seat_of(meta, m.sender)
        if seat is None or computer_at(meta, 1 - seat):
            continue
        told = outbox.notify_game(config, store, players, links, reach, gid,
                                  f"{m.message_id}:mute", [(1 - seat, "talk_muted", {"opp": me})])
        out.outbox_ids = out.outbox_ids + told.outbox_ids
    return out


def unmute(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message) -> Result:
    """``UNMUTE``: the opponents' lines come again."""
    store.del_player_life(m.sender, MUTE_FIELD)
    return outbox.reply(config, store, players, links, reach, m.sender, m.message_id,
                        "talk_setting", Outcome.SETTING, muted=False)

"""``LINK``, ``UNLINK`` and ``VIA``: a player's linked addresses (where their messages go: :mod:`service.channels`).

* ``LINK <address>`` (a phone number, ``whatsapp:+<number>`` or an email address), from the player, sends a six-digit
  code to that address, in the player's language; ``LINK <code>`` sent back *from that address* links it: from then
  on it acts for the player (their *home*: :mod:`service.store.links`). A code is random, single use, expires
  (``LINK_CODE_TTL``) and locks after ``LINK_CODE_TRIES`` wrong ones; a player asks for at most
  ``LINK_CODES_PER_DAY`` codes a day (counted per folded mailbox: plus tags and dots make no fresh budget), and an
  address gets at most ``LINK_CODES_PER_ADDRESS`` codes a day, whoever asks. A code to a number never in a game between
  people passes what an invitation does (:func:`link_refusal`: the countries, a valid number, the
  new-numbers rate), and then the daily cap and its reserve (:func:`service.daily_cap.split_sms`); none goes to the
  service's own addresses nor to role addresses (``postmaster@``...). A wrong, expired or locked code links nothing,
  and the reply says so.
* Identity stays exact: no address acts for another until it sent back its own code. By email both ``LINK`` words
  are taken only at a reply address issued to the sender (:data:`service.email_identity.NEEDS_REPLY_ADDRESS`): the
  code mailed to an address carries that address's own reply address, so a forged ``From`` links nothing.
* An address that acts for another player, has linked addresses of its own, or has a game under way or an
  invitation cannot be linked (its games are its own identity's).
* ``UNLINK`` from a linked address unlinks it; from the home, every linked address; ``UNLINK <address>`` from any
  of the player's addresses unlinks that one. A ``VIA`` naming a kind no longer linked goes back to the default.
* ``VIA SMS|EMAIL|WHATSAPP``: the player's prompts go to their address of that kind first (``VIA <address>``: to
  that address of theirs first); a turn waiting on them is sent there again (:func:`waiting_turns`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from chat.names import display_name
from spades.game import view

from .. import conversation_port as port
from .. import daily_cap, limits, logs, metrics
from ..addresses import WHATSAPP, BadAddress, address_kind, parse_address
from ..caches import GameCache, SeatCache
from ..channels import Destination, destination, reply_channel, via_first
from ..context import Config
from ..games import outbox
from ..games.players import is_stopped, label_of, lang_of, name_of, unfinished_games
from ..games.result import Outcome, Result
from ..games.seats import opponent_of, seat_of
from ..store import Links, Players, Reach, Store
from . import settings
from .commands import Message

_CODE = re.compile(r"^\d{6}$")
KIND_WORDS = {"sms": "SMS", "email": "EMAIL", "whatsapp": "WHATSAPP", "telegram": "TELEGRAM", "push": "PAGE"}  # what VIA takes, as the texts write it


def link(config: Config, store: Store, players: Players, links: Links, reach: Reach, seats: SeatCache,
         m: Message) -> Result:
    """``LINK <code>`` (from the address being linked) or ``LINK <address>`` (from the player)."""
    arg = m.said.arg or ""
    return _take(config, store, players, links, reach, seats, m,
                 arg) if _CODE.match(arg) else _ask(config, store, players, links, reach, m, arg)


def _refused(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message, reason: str,
             typed: str) -> Result:
    out = outbox.reply(config, store, players, links, reach, m.sender, m.message_id, "link_refused",
                       Outcome.LINK_REFUSED, reason=reason,
                       addr=display_name(typed, reply_channel(m.sender)))
    return Result(out.outbox_ids, Outcome.LINK_REFUSED)


def _free(store: Store, players: Players, links: Links, address: str) -> bool:
    """Whether ``address`` may be linked to someone: it acts for nobody else, has no linked addresses of its own
    and no game under way or invitation."""
    return (links.home(address) == address and not links.route(address).links
            and not unfinished_games(store, players, address))


def _ask(config: Config, store: Store, players: Players, links: Links, reach: Reach, m: Message, typed: str) -> Result:
    """``LINK <address>``: a code to that address, and the player told where it went."""
    home = m.sender
    try:
        other = parse_address(typed, config.get("DEFAULT_REGION", "US")).value
    except BadAddress:
        return _refused(config, store, players, links, reach, m, "bad_address", typed[:40])
    if other == home or links.home(other) == home:
        return _refused(config, store, players, links, reach, m, "yours", other)
    if not _free(store, players, links, other):
        return _refused(config, store, players, links, reach, m, "taken", other)
    if is_stopped(config, store, other):
        return _refused(config, store, players, links, reach, m, "stopped", other)
    if limits.forbidden_recipient(config, other):  # the service's own address, or a role address: never written to
        return _refused(config, store, players, links, reach, m, "role", other)
    now = store.clock.now_ms()
    refused = link_refusal(config, store, home, other, m.message_id, now / 1000,
                           int(settings.get(config, "LINK_CODES_PER_DAY")),
                           int(settings.get(config, "LINK_CODES_PER_ADDRESS")))
    if refused is not None:  # a country not allowed, a number that is not valid, too many codes (issue 44)
        return _refused(config, store, players, links, reach, m, str(refused.context["reason"]), other)
    ttl = int(settings.get(config, "LINK_CODE_TTL"))
    code = links.new_code(home, other, now, ttl)
    lang = lang_of(config, players, home)
    to = destination(config, store, links, reach, other, "link_code", lang,
                     now)  # the address's own (its steps: a WhatsApp window...)
    sent = outbox.outbound(config, store, players, to.address,
                           outbox.render("link_code", lang, to.channel, digits=code, minutes=ttl // 60,
                                         who=display_name(name_of(players, home), to.channel)),
                           kind="link_code", home=home, to=to)
    told = outbox.entry(config, store, players, links, reach, home, "link_sent",
                        addr=display_name(other, reply_channel(home)), minutes=ttl // 60)
    return outbox.send_reply(store, home, m.message_id, [sent, told], Outcome.LINK_SENT)


def _take(config: Config, store: Store, players: Players, links: Links, reach: Reach, seats: SeatCache, m: Message,
          code: str) -> Result:
    """``LINK <code>`` from the address the code was sent to: linked if it is right (and still valid)."""
    origin = m.came_from
    if origin == m.sender and unfinished_games(store, players, origin):  # it plays as itself: its games are its own
        return _refused(config, store, players, links, reach, m, "taken", origin)
    now = store.clock.now_ms()
    check = links.take_code(origin, code, now, int(settings.get(config, "LINK_CODE_TRIES")))
    if check.status not in ("ok", "linked"):
        lang = lang_of(config, players, check.home or m.sender)  # the language the code was sent in
        rendered = outbox.render("link_failed", lang, reply_channel(m.sender), reason=check.status)
        return outbox.reply_rendered(config, store, players, links, reach, m.sender, m.message_id, rendered,
                                     "link_failed", Outcome.LINK_FAILED)
    home = check.home
    links.add_link(home, origin)  # the home's side (the script wrote the address's); again on a retry: once
    seats.note_home(origin, home)
    here = outbox.entry(config, store, players, links, reach, home, "linked", to=Destination.to(origin), here=True,
                        who=display_name(name_of(players, home), address_kind(origin)),
                        kind=KIND_WORDS.get(address_kind(origin), ""))
    there = destination(config, store, links, reach, home, "linked", lang_of(config, players, home))
    told = None if there.address == origin else outbox.entry(
        config, store, players, links, reach, home, "linked", to=there, here=False, addr=display_name(origin,
                                                                                                      there.channel))
    return outbox.send_reply(store, m.sender, m.message_id, [here, told], Outcome.LINKED)


def unlink(config: Config, store: Store, players: Players, links: Links, reach: Reach, seats: SeatCache,
           m: Message) -> Result:
    """``UNLINK [address]`` (the module docstring)."""
    home, origin = m.sender, m.came_from
    linked = list(links.route(home).links)
    if m.said.arg:
        try:
            named = parse_address(m.said.arg, config.get("DEFAULT_REGION", "US")).value
        except BadAddress:
            named = ""
        gone = [named] if named in linked else [origin] if named == home and origin != home else []
    else:
        gone = [origin] if origin != home else linked
    for address in gone:
        links.unlink(home, address)
        seats.note_home(address, address)
    left = links.route(home)
    if left.via and not any(via_first(left, a) for a in left.linked):
        links.set_via(home, "")  # what VIA named is no longer the player's: back to the default
    channel = reply_channel(home)
    out = outbox.reply(config, store, players, links, reach, home, m.message_id, "unlinked", Outcome.UNLINKED,
                       addrs=", ".join(display_name(a, channel) for a in gone))
    return Result(out.outbox_ids, Outcome.UNLINKED)


def via(config: Config, store: Store, players: Players, links: Links, reach: Reach, games: GameCache,
        m: Message) -> Result:
    """``VIA <kind>`` or ``VIA <address>``: the player's prompts go to their address of that kind (or that address of
    theirs) first."""
    home, said = m.sender, m.said.arg or ""
    if said not in KIND_WORDS:
        try:
            said = parse_address(said, config.get("DEFAULT_REGION", "US")).value
        except BadAddress:
            pass
    route = links.route(home)
    wanted = replace(route, via=said)
    mine = [a for a in route.linked if via_first(wanted, a)]
    if mine:
        links.set_via(home, said)
    addr = display_name(mine[0], reply_channel(home)) if mine else ""
    kind = said if said in KIND_WORDS else address_kind(said)
    outcome = Outcome.VIA if mine else Outcome.LINK_REFUSED
    answer = outbox.entry(config, store, players, links, reach, home, "via", addr=addr,
                          kind=KIND_WORDS.get(kind, kind.upper()))
    turns = waiting_turns(config, store, players, links, games, home,
                          mine[0]) if mine and mine[0] != m.came_from else []
    out = outbox.send_reply(store, home, m.message_id, [answer, *turns], outcome)
    return Result(out.outbox_ids, outcome)


def waiting_turns(config: Config, store: Store, players: Players, links: Links, games: GameCache, home: str,
                  address: str) -> list[dict[str, Any] | None]:
    """The turns waiting on ``home`` in their games, each as its game shows it now (what ``HAND`` answers), to
    ``address``, where ``VIA`` just sent their turns (issue 45 case 2: the turn asked before is not lost in the
    other inbox; by email with the game's reply address, so a reply is the move). None to a WhatsApp address,
    whose 24-hour window decides what may go (the next prompt goes the usual way), nor to one that sent STOP."""
    if address_kind(address) == WHATSAPP or links.route(home).is_off(address):
        return []
    lang = lang_of(config, players, home)
    out: list[dict[str, Any] | None] = []
    for gid in unfinished_games(store, players, home, ("active",)):
        meta = store.meta(gid)
        seat = seat_of(meta, home)
        game = games.load(gid)
        if seat is None or not game.version or not game.may_move(seat):
            continue
        opp = name_of(players, opponent_of(meta, seat))
        rendered = port.resend(view(game, seat), lang, address_kind(address), opp, label_of(store, players, home, gid))
        out.append(outbox.outbound(config, store, players, address, rendered, kind="status", about=gid, home=home))
    return out


def link_refusal(config: Config, store: Store, home: str, target: str, message_id: str, now_s: float, per_home: int,
                 per_target: int) -> limits.Refusal | None:
    """The refusal of a ``LINK <target>`` code asked for by ``home`` (message ``message_id``), or None, in which case
    it counts toward the limits (issue 44 cases 1 and 2): a number never in a game between people must be of an
    allowed country and valid (as an invitation's), and the codes are counted per folded mailbox or number of the
    asker (``per_home`` a day), per folded mailbox or number of the target (``per_target`` a day, whoever asks) and,
    to a new number, in ``LIMIT_NEW_NUMBERS_PER_HOUR`` with the invitations; past the others' share of the daily caps
    (:func:`service.daily_cap.invitation_held_until`) none is sent that day."""
    fresh = limits.new_number(store, target)
    if fresh:
        refused = limits.country_refusal(config, target)
        if refused is not None:
            reason = "country" if refused.template == "limit_country" else "bad_number"
            metrics.limit("link_" + reason)
            return limits.Refusal("link_refused", {"reason": reason})
    limit = limits.Refusal("link_refused", {"reason": "limit"})
    if daily_cap.invitation_held_until(config, store, target,
                                       now_s) is not None:  # past the others' share of the caps: as an invitation
        metrics.limit("link_cap")
        return limit
    # the asker's under its mailbox's own hash tag ({p:<mailbox>}: forget deletes it with the player); the target's
    # named by the keyed hash of its mailbox (the logs' pseudonym): no trace of whom the asker named survives forget
    counters: list[limits.Counter] = [(limits.mailbox_of(config, home), "link" + limits.day(now_s), per_home, limit),
                                      ("linkto:" + logs.pseudonym(limits.mailbox_of(config, target)), limits.day(now_s),
                                       per_target, limit)]
    if fresh:
        key, period, per_hour, _invitation = limits.new_numbers_counter(config, now_s)
        counters.append((key, period, per_hour, limits.Refusal("link_refused", {"reason": "new_numbers"})))
    refused = limits.first_over(store, counters, message_id)
    if refused is not None:
        metrics.limit("link_" + str(refused.context["reason"]))
    return refused

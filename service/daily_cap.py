"""The daily caps (issues 15, 22 and 24): what the day's outgoing SMS and WhatsApp messages may number and cost
(``SMS_DAILY_CAP``, ``DAILY_SPEND_CAP``, the ``SMS_CAP_RESERVE`` kept for players of games between people), and the
countries an SMS to a number never in a game between people may go to. :func:`split_sms` sorts outgoing entries into
those that may go and those held back; :func:`invitation_held_until` tells an inviter when a held invitation goes;
:func:`status_line` is the operator's line. The settings are in :data:`service.limits.SETTINGS` (docs/security.md)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping

from . import metrics
from .addresses import SMS, WHATSAPP, address_kind
from .context import Config
from .limits import country_allowed, day, setting, valid_number
from .prices import MICROS, prices, to_micros
from .store import Store

log = logging.getLogger(__name__)

CAPPED_ERROR = "not sent: the daily cap (SLOWSPADES_SMS_DAILY_CAP or SLOWSPADES_DAILY_SPEND_CAP) is reached"
COUNTRY_ERROR = ("not sent: a number never in a game between people, of a country not allowed "
                 "(SLOWSPADES_SMS_INVITE_COUNTRIES) or not a valid number")
#: The channels the daily spend counts (what Twilio bills per message); the message cap counts SMS only
CAPPED_CHANNELS = (SMS, WHATSAPP)


def _reserved(cap: int, config: Config) -> int:
    reserve = min(100, max(0, int(setting(config, "SMS_CAP_RESERVE"))))
    return cap * (100 - reserve) // 100 if cap > 0 else 0


def others_limit(config: Config) -> int:
    """The day's SMS count past which only players of games between people are texted (0: no cap)."""
    return _reserved(int(setting(config, "SMS_DAILY_CAP")), config)


def spend_cap(config: Config) -> int:
    """``DAILY_SPEND_CAP`` in millionths of the price table's currency (0: no money cap)."""
    return max(0, to_micros(float(setting(config, "DAILY_SPEND_CAP"))))


def others_spend_limit(config: Config) -> int:
    """The day's spend (millionths) past which only players of games between people are texted (0: no cap)."""
    return _reserved(spend_cap(config), config)


def _over(count: int, spend: int, caps: tuple[int, int], limits: tuple[int, int]) -> bool:
    """Whether ``count`` messages costing ``spend`` are past ``limits`` (messages, millionths) of the caps that are
    on (``caps``: 0 for a cap that is off)."""
    return (caps[0] > 0 and count > limits[0]) or (caps[1] > 0 and spend > limits[1])


def split_sms(config: Config, store: Store, entries: list[dict[str, Any]], now_s: float | None = None,
              marks: Mapping[str, str | None] | None = None
              ) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str]]]:
    """(entries that may go, (SMS entry held back, why)). An SMS to a number never in a game between people
    goes only to an allowed country (:func:`country_allowed`, whatever the message: ``HELP``, ``NEW BOT``...).
    Each other SMS counts toward the day's message cap, and each SMS or WhatsApp message toward its money cap at
    its price in the table (:mod:`service.prices`); past :func:`others_limit` an SMS, past :func:`others_spend_limit`
    either, goes out only if it is not an invitation and its recipient plays a game between people (a game against
    the computer does not count). ``marks``: the records' ``people`` marks as read (``Store.in_people_games``; None:
    read, and missing): a recipient whose mark is among them is not read again (no store call when all are)."""
    sms = _capped(entries)
    if not sms:
        return entries, []
    # whether the recipient plays people: the player is the entry's home when it goes to a linked number of theirs,
    # but a LINK code goes to an address that is not theirs yet (issue 44 case 1): that address itself
    marks = marks or {}
    known = {a: marks[a] == "1" for a in recipients(sms) if marks.get(a) is not None}
    unknown = [a for a in recipients(sms) if a not in known]
    if unknown:  # (a mark read and missing is not read again: the records' games are looked through)
        known.update(zip(unknown, store.in_people_games(unknown, known={a: marks[a] for a in unknown if a in marks})))
    people = {id(e): known[_recipient(e)] for e in sms}
    held: dict[int, tuple[dict[str, Any], str]] = {
        id(e): (e, COUNTRY_ERROR) for e in sms
        if e.get("channel") == SMS and not people[id(e)] and not (country_allowed(config, e["to"])
                                                                  and valid_number(config, e["to"]))}
    counted = [e for e in sms if id(e) not in held]
    cap, money = int(setting(config, "SMS_DAILY_CAP")), spend_cap(config)
    if (cap > 0 or money > 0) and counted:
        table = prices(config)
        cost = sum(to_micros(table.entry(e)) for e in counted)
        texts = sum(1 for e in counted if e.get("channel") == SMS)  # the message cap counts SMS only
        count, spend = store.count_sent(day(now_s), texts, cost)
        caps = (cap, money)
        if _over(count, spend, caps, caps) and not _over(count - texts, spend - cost, caps, caps):
            # this batch crossed a cap: tell the operator, once a day
            log.warning("SMS daily cap reached: %d SMS today (SLOWSPADES_SMS_DAILY_CAP=%d), %.2f %s spent on SMS "
                        "and WhatsApp (SLOWSPADES_DAILY_SPEND_CAP=%.2f); from now on today only messages to players "
                        "of games between people go out", count, cap, spend / MICROS, table.currency, money / MICROS)
            store.mark_sms_capped(day(now_s), count)
        by_count = cap > 0 and count > others_limit(config)  # holds SMS
        by_money = money > 0 and spend > others_spend_limit(config)  # holds SMS and WhatsApp
        if by_count or by_money:
            held.update({id(e): (e, CAPPED_ERROR) for e in counted
                         if (by_money or e.get("channel") == SMS) and (e.get("kind") in ("invite", *TO_THE_ADDRESS)
                                                                       or not people[id(e)])})
    for why in held.values():
        metrics.limit(held_code(why[1]))
    return [e for e in entries if id(e) not in held], list(held.values())


def _capped(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries the caps count: SMS and WhatsApp (one outside the WhatsApp window is not sent)."""
    return [e for e in entries if e.get("channel") in CAPPED_CHANNELS and e.get("window") != "closed"]


def recipients(entries: list[dict[str, Any]]) -> list[str]:
    """Whose ``people`` marks :func:`split_sms` needs to sort ``entries`` (once each, in order)."""
    return list(dict.fromkeys(_recipient(e) for e in _capped(entries)))


#: The kinds of message that go to an address not (yet) its player's: counted as the address's own
TO_THE_ADDRESS = frozenset({"link_code"})


def _recipient(entry: dict[str, Any]) -> str:
    """Who an SMS is to, for the limits: the player (its ``home``) when it goes to an address of theirs, else the
    address (a ``LINK`` code: :data:`TO_THE_ADDRESS`)."""
    if entry.get("kind") in TO_THE_ADDRESS:
        return str(entry["to"])
    return str(entry.get("home") or entry["to"])


def held_code(why: str) -> str:
    """The metrics' code of an entry held back: ``sms_cap``, ``country``, ``window_closed`` (WhatsApp, no template
    and no other channel: ``service.delivery.WINDOW_CLOSED``), or ``unsendable`` (STOP, the computer)."""
    if why.startswith("not sent: outside the WhatsApp"):
        return "window_closed"
    return {CAPPED_ERROR: "sms_cap", COUNTRY_ERROR: "country"}.get(why, "unsendable")


def invitation_held_until(config: Config, store: Store, invitee: str, now_s: float) -> int | None:
    """When an SMS invitation to ``invitee`` sent now would be held by a cap (in messages or in money): the next
    day's start (ms since the epoch, 00:00 UTC), when it is to go; else None."""
    kind = address_kind(invitee)
    caps = (int(setting(config, "SMS_DAILY_CAP")) if kind == SMS else 0, spend_cap(config))  # WhatsApp: the money cap
    if kind not in CAPPED_CHANNELS or caps == (0, 0):
        return None
    count, spend, _capped = store.sent_today(day(now_s))
    if not _over(count + 1, spend + 1, caps, (others_limit(config), others_spend_limit(config))):  # one more: past
        return None
    today = datetime.fromtimestamp(now_s, timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    return int((today + timedelta(days=1)).timestamp() * 1000)


def status_line(config: Config, store: Store, now_s: float | None = None) -> str:
    """The operator's line about today's SMS: count, cap, what they cost and whether a cap was reached."""
    n, spend, capped = store.sent_today(day(now_s))
    cap, money, table = int(setting(config, "SMS_DAILY_CAP")), spend_cap(config), prices(config)
    state = ("CAP REACHED: only messages to players in a game go out" if capped else "under the cap")
    count = f"SMS today: {n} of {cap}" if cap > 0 else f"SMS today: {n} (no daily cap)"
    cost = (f"{spend / MICROS:.2f} of {money / MICROS:.2f} {table.currency}" if money > 0
            else f"{spend / MICROS:.2f} {table.currency} (no money cap)")
    tail = f" ({state})" if cap > 0 or money > 0 else ""
    return f"{count}, costing {cost}, at the prices of {table.as_of}{tail}"

"""Abuse limits (issue 15): what stops SMS pumping and floods. Each limit is a setting.

* ``LIMIT_MESSAGES_PER_MINUTE`` (flood): inbound messages one sender may send in a minute; the
  webhooks drop the rest (:func:`flood_check`), and the first one over gets one reply saying so.
* ``LIMIT_INVITES_PER_DAY``: invitations one sender may send in a day (UTC).
* ``LIMIT_PENDING_INVITES``: invitations of one sender waiting for an answer at once.
* ``SMS_INVITE_COUNTRIES``: the countries (ISO codes) an SMS invitation may go to; by default the
  countries of the service's languages' seed numbers (US, CA, FR, NO, ID, GR) and the operator's
  own (``DEFAULT_REGION``). Premium-rate and shared-cost numbers are refused wherever they are.
* ``SMS_DAILY_CAP``: outgoing SMS a day; past it only messages to players in a game go out (no
  invitation, no reply to a stranger), the operator is told in the log (once a day) and by
  ``slowspades limits status`` (:func:`status_line`).

:func:`invite_refusal` gives the refusal of an invitation (a lifecycle template and its context) or
None; :func:`flood_check` the flood verdict of an inbound message; :func:`split_sms_cap` sorts
outgoing entries into those that may go and those the cap holds back. Counters: ``service.store.limits``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import phonenumbers

from .addresses import SMS, address_kind
from .context import Services

log = logging.getLogger(__name__)

SEED_COUNTRIES = "US,CA,FR,NO,ID,GR"
SETTINGS: dict[str, tuple[Any, str, str]] = {
    "LIMIT_MESSAGES_PER_MINUTE": (20, "int", "Inbound messages one sender may send in a minute (flood); the rest "
                                             "are dropped, the first one over answered once. 0: no limit."),
    "LIMIT_INVITES_PER_DAY": (10, "int", "Invitations one sender may send in a day (UTC). 0: no limit."),
    "LIMIT_PENDING_INVITES": (3, "int", "Invitations of one sender waiting for an answer at once. 0: no limit."),
    "SMS_INVITE_COUNTRIES": (SEED_COUNTRIES, "str", "Countries (ISO codes, comma separated) an SMS invitation may go "
                                                    "to, besides SLOWSPADES_DEFAULT_REGION; * for any."),
    "SMS_DAILY_CAP": (2000, "int", "Outgoing SMS a day (UTC); past it only messages to players in a game go out "
                                   "and the operator is told. 0: no cap."),
}
CAPPED_ERROR = "not sent: the daily SMS cap (SLOWSPADES_SMS_DAILY_CAP) is reached"
_COSTLY = {phonenumbers.PhoneNumberType.PREMIUM_RATE, phonenumbers.PhoneNumberType.SHARED_COST}


def setting(svc: Services, name: str) -> Any:
    """A limit's setting (the service's config, else its default)."""
    value = svc.config.get(name)
    return SETTINGS[name][0] if value is None or value == "" else value


def day(now_s: float | None = None) -> str:
    return datetime.fromtimestamp(now_s if now_s is not None else datetime.now(timezone.utc).timestamp(),
                                  timezone.utc).strftime("%Y%m%d")


# -- flood -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Flood:
    """The flood verdict of one inbound message: ``ok``, and ``tell`` for the first one over."""

    ok: bool
    tell: bool = False


def flood_check(svc: Services, sender: str, now_s: float) -> Flood:
    """Count an inbound message of ``sender`` in its minute; over the limit it is not to be taken."""
    limit = int(setting(svc, "LIMIT_MESSAGES_PER_MINUTE"))
    if limit <= 0:
        return Flood(True)
    count = svc.store.count_message(sender, int(now_s // 60))
    return Flood(count <= limit, count == limit + 1)


# -- invitations -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Refusal:
    """Why an invitation is refused: the lifecycle template to answer with, and its context."""

    template: str
    context: dict[str, Any] = field(default_factory=dict)


def allowed_countries(svc: Services) -> set[str] | None:
    """The ISO codes an SMS invitation may go to (None: any)."""
    raw = str(setting(svc, "SMS_INVITE_COUNTRIES"))
    if raw.strip() == "*":
        return None
    codes = {c.strip().upper() for c in raw.split(",") if c.strip()}
    return codes | {str(svc.config.get("DEFAULT_REGION") or "US").upper()}


def country_refusal(svc: Services, invitee: str) -> Refusal | None:
    """An SMS invitation to a number of a country not allowed, or to a premium-rate number."""
    if address_kind(invitee) != SMS:
        return None
    try:
        number = phonenumbers.parse(invitee, None)
    except phonenumbers.NumberParseException:
        return Refusal("limit_country", {"number": invitee})
    if phonenumbers.number_type(number) in _COSTLY:
        return Refusal("limit_country", {"number": invitee})
    allowed = allowed_countries(svc)
    # a valid number's own region (+1 876... is Jamaica, not the US); else its country code's main one
    region = phonenumbers.region_code_for_number(number) or phonenumbers.region_code_for_country_code(
        number.country_code or 0)
    if allowed is not None and region not in allowed:
        return Refusal("limit_country", {"number": invitee})
    return None


def pending_invitations(svc: Services, sender: str, newest: int = 200) -> int:
    """Invitations of ``sender`` still waiting for an answer (among their ``newest`` games)."""
    return svc.store.invitations_waiting(sender, svc.players.games(sender)[:newest])


def invite_refusal(svc: Services, sender: str, invitee: str, message_id: str, now_s: float) -> Refusal | None:
    """The refusal of ``sender``'s invitation of ``invitee`` (message ``message_id``), or None, in which
    case the invitation counts toward the day's (a retried message counts once)."""
    refused = country_refusal(svc, invitee)
    if refused is not None:
        return refused
    pending_max = int(setting(svc, "LIMIT_PENDING_INVITES"))
    if pending_max > 0 and pending_invitations(svc, sender) >= pending_max:
        return Refusal("limit_invites_pending", {"count": pending_max})
    per_day = int(setting(svc, "LIMIT_INVITES_PER_DAY"))
    if per_day > 0:
        added, count = svc.store.count_invitation(sender, day(now_s), message_id)
        if count > per_day:
            if added:
                svc.store.uncount_invitation(sender, day(now_s), message_id)
            return Refusal("limit_invites_day", {"count": per_day})
    return None


# -- the daily SMS cap ---------------------------------------------------------------------------
def split_sms_cap(svc: Services, entries: list[dict[str, Any]], now_s: float | None = None
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(entries that may go, SMS entries the day's cap holds back). Each SMS counts toward the day's
    cap; past it, an SMS goes out only if it is not an invitation and its recipient has a game."""
    cap = int(setting(svc, "SMS_DAILY_CAP"))
    sms = [e for e in entries if e.get("channel") == SMS]
    if cap <= 0 or not sms:
        return entries, []
    count = svc.store.count_sms(day(now_s), len(sms))
    if count <= cap:
        return entries, []
    if count - len(sms) <= cap:  # this batch crossed it: tell the operator, once a day
        log.warning("SMS daily cap reached: %d SMS today (SLOWSPADES_SMS_DAILY_CAP=%d); from now on today only "
                    "messages to players in a game go out", count, cap)
        svc.store.mark_sms_capped(day(now_s), count)
    seated = dict(zip([id(e) for e in sms], svc.store.have_games([e["to"] for e in sms])))
    held = [e for e in sms if e.get("kind") == "invite" or not seated[id(e)]]
    held_ids = {id(e) for e in held}
    return [e for e in entries if id(e) not in held_ids], held


def status_line(svc: Services, now_s: float | None = None) -> str:
    """The operator's line about today's SMS: count, cap, and whether it was reached."""
    n, capped = svc.store.sms_today(day(now_s))
    cap = int(setting(svc, "SMS_DAILY_CAP"))
    if cap <= 0:
        return f"SMS today: {n} (no daily cap)"
    state = "CAP REACHED: only messages to players in a game go out" if capped else "under the cap"
    return f"SMS today: {n} of {cap} ({state})"

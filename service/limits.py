"""Abuse limits (issues 15 and 22): what stops SMS pumping and floods. Each limit is a setting (:data:`SETTINGS`,
the table of docs/security.md).

They count what an attacker cannot multiply: a sender is its *mailbox* (:func:`mailbox`: ``joe+1@gmail.com``
and ``j.o.e+2@gmail.com`` are ``joe@gmail.com``), an email domain counts as a whole (but for the shared
providers of ``LIMIT_DOMAIN_SHARED``), and invitations to numbers never seen have one rate for everyone.

* ``LIMIT_MESSAGES_PER_MINUTE`` (flood): inbound messages one mailbox may send in a minute
  (``LIMIT_MESSAGES_PER_MINUTE_PLAYING`` with a game in play); the webhooks drop the rest (:func:`flood_check`),
  and the first one over is taken only to be answered, by the player's channel, with one message saying so.
* ``LIMIT_INVITES_PER_DAY``: invitations one mailbox may send in a day (UTC);
  ``LIMIT_DOMAIN_INVITES_PER_DAY``: those of all the mailboxes of one email domain.
* ``LIMIT_PENDING_INVITES``: invitations of one sender waiting for an answer at once.
* ``LIMIT_NEW_NUMBERS_PER_HOUR``: SMS invitations and ``LINK`` codes, from anyone, to numbers never in a game between
  people (``service.lifecycle.linking.link_refusal``: a code passes the countries, a valid number and the cap's
  reserve as an invitation).
* ``SMS_INVITE_COUNTRIES``: the countries (ISO codes) an SMS may go to when its number has never been in a
  game between people (an invitation, but also the answer to its ``HELP`` or ``NEW BOT``); by default the
  countries of the service's languages' seed numbers (US, CA, FR, NO, ID, GR) and the operator's
  own (``DEFAULT_REGION``). Premium-rate and shared-cost numbers are refused wherever they are, and an
  invitation to a number that is not a valid one (``phonenumbers.is_valid_number``) is refused.
* ``SMS_DAILY_CAP``: outgoing SMS a day; ``DAILY_SPEND_CAP``: what outgoing SMS and WhatsApp messages may cost a
  day, each at its price in the price table (:mod:`service.prices`: an SMS by its segments and country, a WhatsApp
  message by its kind). Past either cap the same happens (past the message cap to SMS only). ``SMS_CAP_RESERVE`` percent of each is kept for the players of games
  between people: past the rest, only messages to them go out (no invitation, no reply to a stranger or to
  someone who plays only the computer), the operator is told in the log (once a day) and by
  ``slowspades limits status`` (:func:`status_line`). An invitation the cap would hold waits for the next
  day (00:00 UTC), and the inviter is told so (:func:`invitation_held_until`).

:func:`invite_refusal` gives the refusal of an invitation (a lifecycle template and its context) or
None; :func:`flood_check` the flood verdict of an inbound message. The daily caps and the countries an outgoing SMS
may go to are :mod:`service.daily_cap`'s. Counters: ``service.store.limits``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parseaddr
from typing import Any

import phonenumbers

from . import metrics
from .addresses import EMAIL, SMS, WHATSAPP, WHATSAPP_PREFIX, address_kind
from .context import Config
from .prices import country_of
from .store import Players, Store

log = logging.getLogger(__name__)

SEED_COUNTRIES = "US,CA,FR,NO,ID,GR"
SETTINGS: dict[str, tuple[Any, str, str]] = {
    "LIMIT_MESSAGES_PER_MINUTE": (20, "int", "Inbound messages one mailbox (plus tags and ignored dots folded) or "
                                             "number may send in a minute (flood); the rest "
                                             "are dropped, the first one over answered once. 0: no limit."),
    "LIMIT_MESSAGES_PER_MINUTE_PLAYING": (60, "int", "The flood limit of a number or mailbox with a game in play (a "
                                                     "fast player's draw against the computer is some 15 moves in a "
                                                     "minute); at least SLOWSPADES_LIMIT_MESSAGES_PER_MINUTE."),
    "LIMIT_INVITES_PER_DAY": (10, "int", "Invitations one mailbox or number may send in a day (UTC). 0: no limit."),
    "LIMIT_PENDING_INVITES": (3, "int", "Invitations of one sender waiting for an answer at once. 0: no limit."),
    "SMS_INVITE_COUNTRIES": (SEED_COUNTRIES, "str", "Countries (ISO codes, comma separated) an SMS may go to when its "
                                                    "number was never in a game between people (an invitation, a "
                                                    "reply to HELP or NEW BOT), besides SLOWSPADES_DEFAULT_REGION; "
                                                    "* for any. Premium-rate numbers: never."),
    "SMS_DAILY_CAP": (2000, "int", "Outgoing SMS a day (UTC); past it only messages to players of games between "
                                   "people go out and the operator is told. 0: no cap."),
    "DAILY_SPEND_CAP": (0.0, "float", "What the day's (UTC) outgoing SMS and WhatsApp messages may cost, in the "
                                      "currency of the price table (SLOWSPADES_PRICES_FILE), each at its price (an "
                                      "SMS per segment and country); past it, as past SLOWSPADES_SMS_DAILY_CAP, only "
                                      "messages to players of games between people go out and the operator is told. "
                                      "0: no money cap."),
    "PRICES_FILE": ("", "str", "The price table (TOML, the layout of service/prices.toml, whose defaults are the "
                               "providers' list prices with their date): the daily spend, its cap and what a game "
                               "costs (docs/cost.md). Empty: service/prices.toml."),
    "SMS_CAP_RESERVE": (20, "int", "Percent of SLOWSPADES_SMS_DAILY_CAP (and of SLOWSPADES_DAILY_SPEND_CAP) kept "
                                   "for messages to players of games between people: other SMS (invitations, "
                                   "replies to strangers or to players of the computer only) stop at the rest. An "
                                   "invitation held waits for the next day."),
    "LIMIT_DOMAIN_INVITES_PER_DAY": (10, "int", "Invitations all the mailboxes of one email domain may send in a day "
                                                "(UTC), but for the domains of SLOWSPADES_LIMIT_DOMAIN_SHARED. 0: no limit."),
    "LIMIT_DOMAIN_SHARED": ("gmail.com,googlemail.com,outlook.com,hotmail.com,live.com,yahoo.com,icloud.com,"
                            "proton.me,protonmail.com,gmx.net,web.de,orange.fr,free.fr", "str",
                            "Email domains shared by many people (a mailbox there costs an attacker an account): "
                            "not limited as a whole, only mailbox by mailbox."),
    "DOTLESS_DOMAINS": ("gmail.com,googlemail.com", "str", "Email domains that ignore dots in a mailbox's name "
                                                           "(j.oe is joe): the limits count them as one."),
    "SMS_FICTIONAL_NUMBERS": (False, "bool", "Tests and demos only: take +1 555 numbers (North America's fiction "
                                             "range: nobody's phone) as valid numbers to invite. The simulator "
                                             "(SLOWSPADES_SIMULATOR) takes them too."),
    "LIMIT_NEW_NUMBERS_PER_HOUR": (30, "int", "SMS invitations and LINK codes, from all senders together, to numbers "
                                              "never in a game between people, in an hour. 0: no limit."),
}
_GMAIL = {"googlemail.com": "gmail.com"}
_COSTLY = {phonenumbers.PhoneNumberType.PREMIUM_RATE, phonenumbers.PhoneNumberType.SHARED_COST}


def setting(config: Config, name: str) -> Any:
    """A limit's setting (the service's config, else its default)."""
    value = config.get(name)
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


def _domains(config: Config, name: str) -> set[str]:
    return {d.strip().lower() for d in str(setting(config, name)).split(",") if d.strip()}


def mailbox(address: str, dotless: set[str] | frozenset[str] = frozenset({"gmail.com", "googlemail.com"})) -> str:
    """The mailbox an address delivers to, as the limits count it: lower case, without ``+tag``, and without
    dots for the domains of ``dotless`` (``J.O.E+x@GoogleMail.com``: ``joe@gmail.com``). A phone number as it is."""
    if "@" not in address:
        return address
    local, _, domain = address.strip().lower().rpartition("@")
    local = _unquoted(local)
    local = local.split("+", 1)[0] or local
    if domain in dotless:
        local = local.replace(".", "")
    return f"{local}@{_GMAIL.get(domain, domain)}"


def _unquoted(local: str) -> str:
    """A local part as the mailbox it names: a quoted one without its quotes (``"joe"`` is ``joe``), each backslash
    escape as the character it escapes (``jo\\e`` is ``joe``) and a trailing backslash dropped (issue 44 case 3: mail
    servers deliver each of these to ``joe``)."""
    if len(local) >= 2 and local[0] == local[-1] == '"':
        local = local[1:-1]
    return re.sub(r"\\(.?)", r"\1", local).rstrip("\\")


def mailbox_of(config: Config, address: str) -> str:
    """:func:`mailbox` with the service's ``DOTLESS_DOMAINS``."""
    return mailbox(address, _domains(config, "DOTLESS_DOMAINS"))


def _playing(store: Store, players: Players, sender: str) -> bool:
    """Whether ``sender`` has a game in play (its newest games looked at: read only past the first limit)."""
    return any(store.meta(gid).get("status") == "active" for gid in players.games(sender)[:5])


def flood_check(config: Config, store: Store, players: Players, sender: str, now_s: float) -> Flood:
    """Count an inbound message of ``sender``'s mailbox in its minute; over the limit it is not to be taken. A
    sender with a game in play has ``LIMIT_MESSAGES_PER_MINUTE_PLAYING`` (issue 23 case 14)."""
    limit = int(setting(config, "LIMIT_MESSAGES_PER_MINUTE"))
    if limit <= 0:
        return Flood(True)
    count = store.count_message(mailbox_of(config, sender), int(now_s // 60))
    if count <= limit:
        return Flood(True)
    playing = max(limit, int(setting(config, "LIMIT_MESSAGES_PER_MINUTE_PLAYING")))
    if playing > limit and count <= playing + 1 and _playing(store, players, sender):
        limit = playing
    if count > limit:
        metrics.limit("flood")
    return Flood(count <= limit, count == limit + 1)


# -- invitations -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Refusal:
    """Why an invitation is refused: the lifecycle template to answer with, and its context."""

    template: str
    context: dict[str, Any] = field(default_factory=dict)


def allowed_countries(config: Config) -> set[str] | None:
    """The ISO codes an SMS invitation may go to (None: any)."""
    raw = str(setting(config, "SMS_INVITE_COUNTRIES"))
    if raw.strip() == "*":
        return None
    codes = {c.strip().upper() for c in raw.split(",") if c.strip()}
    return codes | {str(config.get("DEFAULT_REGION") or "US").upper()}


def country_allowed(config: Config, number: str) -> bool:
    """Whether an SMS may go to ``number`` of a player never in a game between people: of an allowed
    country (``SMS_INVITE_COUNTRIES``), and not premium-rate or shared-cost."""
    try:
        parsed = phonenumbers.parse(number, None)
    except phonenumbers.NumberParseException:
        return False
    if phonenumbers.number_type(parsed) in _COSTLY:
        return False
    allowed = allowed_countries(config)
    return allowed is None or country_of(number) in allowed


def _number_of(address: str) -> str:
    """The phone number of an SMS or WhatsApp address (``whatsapp:+30...``: ``+30...``)."""
    return address[len(WHATSAPP_PREFIX):] if address.startswith(WHATSAPP_PREFIX) else address


def country_refusal(config: Config, invitee: str) -> Refusal | None:
    """An invitation or code by SMS or WhatsApp (a paid message either way) to a number of a country not allowed, to
    a premium-rate number, or to a number that is not a valid one (``+62 809 1234 5678``: possible, but no such
    number exists)."""
    if address_kind(invitee) not in (SMS, WHATSAPP):
        return None
    number = _number_of(invitee)
    if not country_allowed(config, number):
        return Refusal("limit_country", {"number": invitee})
    if not valid_number(config, number):
        return Refusal("invite_refused", {"reason": "bad_number", "text": invitee})
    return None


def valid_number(config: Config, number: str) -> bool:
    """Whether ``number`` is a valid phone number (``phonenumbers.is_valid_number``: a number that exists in its
    country's plan), or a +1 555 number of the fiction range where ``SMS_FICTIONAL_NUMBERS`` (or the simulator,
    loopback only and never with a Twilio account) allows it."""
    parsed = phonenumbers.parse(number, None)
    fiction = parsed.country_code == 1 and str(parsed.national_number).startswith("555")
    allowed = bool(setting(config, "SMS_FICTIONAL_NUMBERS")) or bool(config.get("SIMULATOR"))
    return phonenumbers.is_valid_number(parsed) or (fiction and allowed)


def pending_invitations(store: Store, players: Players, sender: str, newest: int = 200) -> int:
    """Invitations of ``sender`` still waiting for an answer (among their ``newest`` games)."""
    return store.invitations_waiting(sender, players.games(sender)[:newest])


def invite_refusal(config: Config, store: Store, players: Players, sender: str, invitee: str, message_id: str,
                   now_s: float) -> Refusal | None:
    """The refusal of ``sender``'s invitation of ``invitee`` (message ``message_id``), or None, in which
    case the invitation counts toward the day's (a retried message counts once)."""
    refused = _invite_refusal(config, store, players, sender, invitee, message_id, now_s)
    if refused is not None:  # the kind of limit: limit_invites_day -> invites_day; a number that is not valid
        metrics.limit(str(refused.context.get("reason") or refused.template.removeprefix("limit_")))
    return refused


def _invite_refusal(config: Config, store: Store, players: Players, sender: str, invitee: str, message_id: str,
                    now_s: float) -> Refusal | None:
    refused = country_refusal(config, invitee)
    if refused is not None:
        return refused
    pending_max = int(setting(config, "LIMIT_PENDING_INVITES"))
    if pending_max > 0 and pending_invitations(store, players, sender) >= pending_max:
        return Refusal("limit_invites_pending", {"count": pending_max})
    counters = [_invites_day(config, sender, now_s)]
    domain = sender.rpartition("@")[2].lower() if "@" in sender else ""
    if domain and domain not in _domains(config, "LIMIT_DOMAIN_SHARED"):
        per_domain = int(setting(config, "LIMIT_DOMAIN_INVITES_PER_DAY"))
        counters.append((f"@{domain}", day(now_s), per_domain,
                         Refusal("limit_domain", {"domain": domain, "count": per_domain})))
    if new_number(store, invitee):
        counters.append(new_numbers_counter(config, now_s))
    return first_over(store, counters, message_id)


def _invites_day(config: Config, sender: str, now_s: float, kind: str = "") -> "Counter":
    """The counter of ``LIMIT_INVITES_PER_DAY``: ``sender``'s invitations of the day (``kind`` ``links:``: the
    invitation links they made, counted apart)."""
    per_day = int(setting(config, "LIMIT_INVITES_PER_DAY"))
    return (kind + mailbox_of(config, sender), day(now_s), per_day, Refusal("limit_invites_day", {"count": per_day}))


def invite_link_refusal(config: Config, store: Store, sender: str, message_id: str, now_s: float) -> Refusal | None:
    """The refusal of a ``NEW`` alone (an invitation link), or None: ``sender`` makes as many links a day as
    invitations (``LIMIT_INVITES_PER_DAY``, counted apart); whoever takes a link is then invited through
    :func:`invite_refusal` like any address."""
    refused = first_over(store, [_invites_day(config, sender, now_s, "links:")], message_id)
    if refused is not None:
        metrics.limit("invites_day")
    return refused


#: A limit counted per message: (the counter's key, its period, the limit (0: none), the refusal past it)
Counter = tuple[str, str, int, Refusal]


def first_over(store: Store, counters: list[Counter], message_id: str) -> Refusal | None:
    """Count message ``message_id`` in each counter (once: a retried message counts once) and return the refusal
    of the first one it takes past its limit, after taking back what it counted; None when all take it."""
    counted: list[tuple[str, str, bool]] = []
    for key, period, limit, refusal in counters:
        if limit <= 0:
            continue
        added, count = store.count_invitation(key, period, message_id)
        counted.append((key, period, added))
        if count > limit:  # refused: what this message counted is taken back
            for k, p, a in counted:
                if a:
                    store.uncount_invitation(k, p, message_id)
            return refusal
    return None


def new_number(store: Store, address: str) -> bool:
    """Whether ``address`` is an SMS or WhatsApp number never in a game between people (what the countries, the valid
    numbers and the new-numbers rate are about: a message to it costs money either way)."""
    return address_kind(address) in (SMS, WHATSAPP) and not store.in_people_games([address])[0]


def new_numbers_counter(config: Config, now_s: float) -> Counter:
    """The counter of ``LIMIT_NEW_NUMBERS_PER_HOUR``: SMS invitations and ``LINK`` codes to new numbers."""
    per_hour = int(setting(config, "LIMIT_NEW_NUMBERS_PER_HOUR"))
    return ("new-numbers", hour(now_s), per_hour, Refusal("limit_new_numbers", {"count": per_hour}))


#: Local parts of role addresses (RFC 2142's and the usual automatic senders'): never written to, never answered
ROLE_LOCALS = frozenset({"postmaster", "abuse", "mailer-daemon", "mailerdaemon", "hostmaster", "webmaster", "noc",
                         "security", "root", "noreply", "no-reply", "donotreply", "do-not-reply", "bounce", "bounces",
                         "listserv", "majordomo", "nobody"})


def forbidden_recipient(config: Config, address: str) -> str:
    """Why the service never writes to ``address`` (``""``: it may): ``own``, an address of the service's own
    domains (``MAIL_DOMAIN`` and ``MAIL_FROM``'s: it would email itself and answer its own email), or ``role``, a
    role address (:data:`ROLE_LOCALS`: ``postmaster@``, ``mailer-daemon@``, ``noreply@``...), of any domain."""
    if address_kind(address) != EMAIL:
        return ""
    local, _, domain = mailbox_of(config, address).rpartition("@")
    own = {str(config.get("MAIL_DOMAIN") or "").lower(),
           parseaddr(str(config.get("MAIL_FROM") or ""))[1].rpartition("@")[2].lower()} - {""}
    if domain.rstrip(".") in own or any(domain.endswith("." + d) for d in own):
        return "own"
    return "role" if local in ROLE_LOCALS or local.startswith(("mailer-daemon", "noreply", "no-reply")) else ""


def hour(now_s: float | None = None) -> str:
    return datetime.fromtimestamp(now_s if now_s is not None else datetime.now(timezone.utc).timestamp(),
                                  timezone.utc).strftime("%Y%m%d%H")

"""Senders of outbound messages: Twilio (SMS and WhatsApp), SMTP (email), Telegram's Bot API, Web Push (its sender in
:mod:`service.webpush`), and the local outbox in Redis.

:func:`deliver` claims an outbox entry before sending (a sent entry is never sent again), sends it with the sender its
channel is configured for, and records ``sent`` (with the provider's id) or ``failed``. Transient failures release
the claim and raise :class:`TransientSendError` so that Celery retries with backoff.
"""

from __future__ import annotations

import json
import smtplib
import ssl
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any, Iterable, Protocol, cast
from urllib.parse import quote

from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.rest import Client as TwilioClient

from chat.render import TELEGRAM_TEXT_MAX, whatsapp_parts

from . import daily_cap, limits, logs, metrics, receipts, telegram, webpush, whatsapp_buttons
from .addresses import EMAIL, PUSH, SMS, TELEGRAM, WHATSAPP, WHATSAPP_PREFIX, is_bot, telegram_chat
from .caches import GameCache
from .context import Config
from .lifecycle import optout
from .send_errors import PermanentSendError, SendError, TransientSendError
from .store import Links, Players, PushSubscriptions, Reach, Store, new_claim_token, split_outbox_id
from .store.after_phase import SettleLocal, Write

UNSENDABLE = "not sent: opted out (STOP) or not a person"  # the error of an entry nobody may receive
#: the error of a WhatsApp entry outside the player's 24-hour window with no template and no other channel
#: (service.channels): Twilio would refuse it (63016)
WINDOW_CLOSED = "not sent: outside the WhatsApp 24-hour window, with no template for it and no other channel"


class Sender(Protocol):
    name: str  # the metrics' code of a message it sent

    def send(self, entry: dict[str, Any]) -> str:
        """Send one outbox entry; return the provider's message id."""


class LocalSender:
    """No provider configured: the message goes to its owner's local outbox stream (``slowspades`` CLI reads it)."""

    name = "local"

    def __init__(self, store: Store) -> None:
        self.store = store

    def send(self, entry: dict[str, Any]) -> str:
        return "local-" + self.store.push_local(entry)


class TwilioSender:
    """SMS and WhatsApp through Twilio's Messages API, with a status callback naming the outbox entry.

    A WhatsApp entry goes from ``whatsapp:`` + ``TWILIO_WHATSAPP_FROM`` (or its Messaging Service); one carrying
    ``content_sid`` (a template, outside the player's 24-hour window: :mod:`service.channels`) is sent as that
    Content template with its ``content_variables`` and no body; one carrying ``buttons`` (inside the window) with
    them, as a quick reply or a list (:mod:`service.whatsapp_buttons`). A WhatsApp body past Twilio's 1,600 characters
    (:attr:`chat.render.Rendered.parts`) goes as several messages, in order; if one after the first fails, the
    entry fails for good (the rest is not sent again, so nothing goes twice)."""

    name = "twilio"

    def __init__(self, config: Config, store: Store) -> None:
        self.cfg = cfg = config
        self.store = store
        self.client = TwilioClient(cfg["TWILIO_ACCOUNT_SID"], cfg["TWILIO_AUTH_TOKEN"],
                                   http_client=cfg.get("TWILIO_HTTP_CLIENT"))

    def send(self, entry: dict[str, Any]) -> str:
        whatsapp = entry.get("channel") == WHATSAPP
        sender = whatsapp_sender(self.cfg) if whatsapp else self.cfg["TWILIO_FROM"]
        kwargs: dict[str, Any] = {"to": entry["to"], "status_callback": status_callback_url(self.cfg, entry["id"])}
        if sender.startswith("MG"):
            kwargs["messaging_service_sid"] = sender
        else:
            kwargs["from_"] = sender
        parts = self._whatsapp(entry) if whatsapp else [{"body": entry["body"]}]
        sid = self._create(dict(kwargs, **parts[0]))
        for part in parts[1:]:
            try:
                self._create(dict(kwargs, **part))
            except SendError as exc:  # the first part went: no retry may send it again
                raise PermanentSendError(f"part of a long WhatsApp message not sent: {exc}", exc.code) from exc
        return sid

    def _whatsapp(self, entry: dict[str, Any]) -> list[dict[str, str]]:
        """The messages of a WhatsApp entry: its template, or with its buttons, else its text in parts."""
        if entry.get("content_sid"):
            return [{"content_sid": entry["content_sid"], "content_variables": entry.get("content_variables") or "{}"}]
        try:
            shown = whatsapp_buttons.messages(self.cfg, self.store, self.client, entry)
        except whatsapp_buttons.ContentUnavailable as exc:
            raise TransientSendError(str(exc), exc.code) from exc
        return shown or [{"body": part} for part in whatsapp_parts(entry["body"])]

    def _create(self, kwargs: dict[str, Any]) -> str:
        try:
            msg = self.client.messages.create(**kwargs)
        except TwilioRestException as exc:
            if exc.status == 429 or exc.status >= 500:
                raise TransientSendError(f"twilio {exc.status}: {exc.msg}", exc.code or exc.status) from exc
            raise PermanentSendError(f"twilio {exc.status} ({exc.code}): {exc.msg}", exc.code or exc.status) from exc
        except (TwilioException, OSError) as exc:  # connection errors, timeouts
            raise TransientSendError(f"twilio: {exc}") from exc
        return str(msg.sid)


def whatsapp_sender(cfg: Config) -> str:
    """``TWILIO_WHATSAPP_FROM`` as Twilio's ``From`` takes it: ``whatsapp:+<number>``, or a Messaging Service SID."""
    sender = str(cfg.get("TWILIO_WHATSAPP_FROM") or "").strip()
    if sender.startswith("MG"):
        return sender
    return WHATSAPP_PREFIX + sender.removeprefix(WHATSAPP_PREFIX)


def status_callback_url(cfg: Config, outbox_id: str) -> str:
    return f"{cfg['PUBLIC_BASE_URL']}/sms/status?o={quote(outbox_id, safe='')}"


def build_email(cfg: Config, entry: dict[str, Any]) -> EmailMessage:
    """The email of an outbox entry: plain text with an HTML alternative, threaded per game; its outbox id in the
    ``outbox`` user variable of Mailgun (``X-Mailgun-Variables``), for the delivery receipts."""
    msg = EmailMessage()
    msg["From"] = cfg["MAIL_FROM"]
    msg["To"] = entry["to"]
    msg["Subject"] = entry.get("subject") or "Slow Spades"
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = entry["message_id"]
    if entry.get("reply_to"):
        msg["Reply-To"] = entry["reply_to"]
    if entry.get("in_reply_to"):
        msg["In-Reply-To"] = entry["in_reply_to"]
        msg["References"] = entry.get("references") or entry["in_reply_to"]
    if entry.get("id"):  # Mailgun returns it in its events (POST /email/events): the receipt's outbox entry
        msg["X-Mailgun-Variables"] = json.dumps({"outbox": entry["id"]})
    msg.set_content(entry["body"])
    if entry.get("html"):
        msg.add_alternative(entry["html"], subtype="html")
    return msg


class SmtpSender:
    """Email over SMTP (STARTTLS and login when configured)."""

    name = "smtp"

    def __init__(self, config: Config) -> None:
        self.cfg = config

    def send(self, entry: dict[str, Any]) -> str:
        cfg = self.cfg
        msg = build_email(cfg, entry)
        try:
            with smtplib.SMTP(cfg["SMTP_HOST"], int(cfg["SMTP_PORT"]), timeout=float(cfg["SMTP_TIMEOUT"])) as smtp:
                if cfg["SMTP_STARTTLS"]:
                    smtp.starttls(context=ssl.create_default_context())
                if cfg["SMTP_USER"]:
                    smtp.login(cfg["SMTP_USER"], cfg["SMTP_PASSWORD"])
                smtp.send_message(msg)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [c for c, _m in exc.recipients.values()]
            if all(400 <= c < 500 for c in codes):
                raise TransientSendError(f"smtp: {exc.recipients}", max(codes, default="")) from exc
            raise PermanentSendError(f"smtp: {exc.recipients}", max(codes, default="")) from exc
        except smtplib.SMTPResponseException as exc:
            if 400 <= exc.smtp_code < 500:
                raise TransientSendError(f"smtp {exc.smtp_code}: {exc.smtp_error!r}", exc.smtp_code) from exc
            raise PermanentSendError(f"smtp {exc.smtp_code}: {exc.smtp_error!r}", exc.smtp_code) from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise TransientSendError(f"smtp: {exc}") from exc
        return str(msg["Message-ID"])


#: the code of a Telegram message refused because the player blocked the bot: taken as their STOP
BLOCKED = "blocked"


class TelegramSender:
    """Telegram through the Bot API (:mod:`service.telegram`): an entry's text by ``sendMessage`` (past 4,096
    characters, several messages, in order), the last with the inline keyboard of its ``buttons``; an entry answering
    a tapped button (``callback``: its query id) by ``answerCallbackQuery`` with its text, then the keyboard of the
    tapped message (``tgmsg``) removed by ``editMessageReplyMarkup``. No answer, 429 or a 5xx: tried again later
    (Celery's retries); 403 (the player blocked the bot): :data:`BLOCKED`, taken as the player's STOP."""

    name = "telegram"

    def __init__(self, config: Config) -> None:
        self.cfg = config

    def send(self, entry: dict[str, Any]) -> str:
        chat = telegram_chat(entry["to"])
        if entry.get("callback"):
            return self._answer(chat, entry)
        parts = whatsapp_parts(entry["body"], TELEGRAM_TEXT_MAX)
        sent = ""
        for n, part in enumerate(parts):
            payload: dict[str, Any] = {"chat_id": chat, "text": part}
            if n == len(parts) - 1 and entry.get("buttons"):
                payload["reply_markup"] = telegram.keyboard(entry["buttons"])
            try:
                sent = str(self._call("sendMessage", payload).get("message_id", ""))
            except SendError as exc:
                if n == 0:
                    raise
                raise PermanentSendError(f"part of a long Telegram message not sent: {exc}", exc.code) from exc
        return sent

    def _answer(self, chat: str, entry: dict[str, Any]) -> str:
        """The tap answered (a query answered late or twice is refused by Telegram: nothing to do again), and the
        keyboard it came from removed (already removed: the same)."""
        try:
            self._call("answerCallbackQuery", {"callback_query_id": entry["callback"], "text": entry.get("body") or ""})
        except PermanentSendError:
            pass  # too old, or answered already (a retry): the tap was answered, or can no longer be
        if entry.get("tgmsg"):
            try:
                self._call("editMessageReplyMarkup", {"chat_id": chat, "message_id": int(entry["tgmsg"]),
                                                      "reply_markup": {"inline_keyboard": []}})
            except PermanentSendError:
                pass  # removed already, or the message is gone
        return f"tap-{entry['callback']}"

    def _call(self, method: str, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            return telegram.call(self.cfg, method, payload)
        except telegram.BotApiError as exc:
            if exc.transient:
                raise TransientSendError(str(exc), exc.status or "network") from None
            raise PermanentSendError(str(exc), BLOCKED if exc.blocked else exc.status) from None


def sender_for(config: Config, store: Store, links: Links, push: PushSubscriptions, channel: str) -> Sender:
    """The configured sender of a channel; the local outbox without credentials (or DELIVERY=local)."""
    cfg = config
    cache = cast(MutableMapping[str, Any], cfg).setdefault("_SENDERS", {})  # made once: the app's config keeps them
    if channel in cache:
        return cache[channel]
    sender: Sender = LocalSender(store)
    if cfg.get("DELIVERY", "auto") != "local":
        twilio = bool(cfg.get("TWILIO_ACCOUNT_SID") and cfg.get("TWILIO_AUTH_TOKEN"))
        if twilio and ((channel == SMS and cfg.get("TWILIO_FROM"))
                       or (channel == WHATSAPP and cfg.get("TWILIO_WHATSAPP_FROM"))):
            sender = TwilioSender(config, store)
        elif channel == EMAIL and cfg.get("SMTP_HOST"):
            sender = SmtpSender(config)
        elif channel == TELEGRAM and cfg.get("TELEGRAM_BOT_TOKEN"):
            sender = TelegramSender(config)
        elif channel == PUSH and cfg.get("PUSH_VAPID_PRIVATE_KEY"):
            sender = webpush.PushSender(config, store, links, push)
    cache[channel] = sender
    return sender


def all_local(config: Config, store: Store, links: Links, push: PushSubscriptions) -> bool:
    """True when every channel goes to the local outbox (then the worker delivers inline, no extra task)."""
    return all(isinstance(sender_for(config, store, links, push, channel), LocalSender) for channel in (SMS, WHATSAPP,
                                                                                                        EMAIL,
                                                                                                        TELEGRAM, PUSH))


def deliver(config: Config, store: Store, players: Players, links: Links, reach: Reach, push: PushSubscriptions,
            games: GameCache, outbox_id: str, final_attempt: bool = False) -> str:
    """Send one outbox entry at most once; returns its status afterwards (or why nothing was done)."""
    token = new_claim_token()  # this attempt's own claim: its outcome is recorded only while it holds the entry
    entry = store.claim_send(outbox_id, int(config["SEND_LEASE"]), token)
    if entry is None:
        current = store.outbox_entry(outbox_id)
        return current["status"] if current else "missing"
    channel = entry["channel"]
    if not optout.may_send(config, store, entry["to"],
                           entry.get("kind", "")) or limits.forbidden_recipient(config, entry["to"]):
        # STOP: nothing but its confirmation (nor to the computer); never the service's own or a role address
        metrics.outbox(channel, "failed", "unsendable")
        logs.outbox_entry(outbox_id, entry["to"], channel, "failed", "unsendable")
        return store.set_status(outbox_id, "failed", error=UNSENDABLE, token=token)
    if entry.get("window") == "closed":
        metrics.outbox(channel, "failed", "window_closed")
        logs.outbox_entry(outbox_id, entry["to"], channel, "failed", "window_closed")
        return store.set_status(outbox_id, "failed", error=WINDOW_CLOSED, token=token)
    held = daily_cap.split_sms(config, store, [entry])[1] if channel in daily_cap.CAPPED_CHANNELS else []
    if held:  # past the day's caps (messages or money), or a stranger's number of a country not allowed
        metrics.outbox(channel, "failed", daily_cap.held_code(held[0][1]))
        logs.outbox_entry(outbox_id, entry["to"], channel, "failed", daily_cap.held_code(held[0][1]))
        return store.set_status(outbox_id, "failed", error=held[0][1], token=token)
    sender = sender_for(config, store, links, push, channel)
    if isinstance(sender, LocalSender):
        metrics.outbox(channel, "sent", "local")
        logs.outbox_entry(outbox_id, entry["to"], channel, "sent", "local")
        return store.push_local_and_mark_sent(outbox_id, entry, token)
    try:
        provider_id = sender.send(entry)
    except TransientSendError as exc:
        metrics.outbox(channel, "failed" if final_attempt else "retried", exc.code)
        logs.outbox_entry(outbox_id, entry["to"], channel, "failed" if final_attempt else "retried", exc.code)
        if final_attempt:
            return store.set_status(outbox_id, "failed", error=str(exc), token=token)
        store.set_status(outbox_id, "queued", error=str(exc), token=token)
        raise
    except PermanentSendError as exc:
        metrics.outbox(channel, "failed", exc.code)
        logs.outbox_entry(outbox_id, entry["to"], channel, "failed", exc.code)
        status = store.set_status(outbox_id, "failed", error=str(exc), token=token)
        if exc.code in receipts.UNREACHABLE:  # the provider refused the address itself (21610: STOP at the carrier)
            receipts.mark(config, store, players, links, reach, games, entry["to"], exc.code,
                          lambda ids: _send_each(config, store, players, links, reach, push, games, ids))
        elif exc.code == BLOCKED:  # the player blocked the bot: as if that address sent STOP (once: it is then off)
            _send_each(config, store, players, links, reach, push, games,
                       optout.stop(config, store, players, links, reach,
                                   f"tg-blocked:{logs.pseudonym(entry['to'])}", str(entry.get("home") or entry["to"]),
                                   origin=entry["to"]))  # its games paused and the opponents told, if its last
        return status
    metrics.outbox(channel, "sent", sender.name)
    logs.outbox_entry(outbox_id, entry["to"], channel, "sent", sender.name)
    # local and SMTP hand-offs are final as far as we can know; Twilio reports 'delivered' later
    return store.set_status(outbox_id, "sent", provider_id=provider_id, token=token)


def _send_each(config: Config, store: Store, players: Players, links: Links, reach: Reach, push: PushSubscriptions,
               games: GameCache, outbox_ids: list[str]) -> None:
    """:func:`deliver` each entry now; one the provider cannot take now is left to the sweep."""
    for oid in outbox_ids:
        try:
            deliver(config, store, players, links, reach, push, games, oid)
        except TransientSendError:
            pass  # queued again: the sweep sends it


def deliver_local_many(config: Config, store: Store, outbox_ids: list[str], recipients: Iterable[str] = (),
                       by: str = "") -> None:
    """:func:`deliver` of several entries when every channel goes to the local outbox (:func:`all_local`),
    in two round trips whatever their number (:func:`local_delivery`, then its writes)."""
    store.write(local_delivery(config, store, outbox_ids, recipients, by).writes)


@dataclass
class LocalDelivery:
    """What :func:`local_delivery` decided: the writes that settle the entries it claimed (for its caller to write,
    with its own), and the entries named by its ``texts`` as stored (None: gone)."""

    writes: list[Write]
    texts: dict[str, dict[str, Any] | None] = field(default_factory=dict)


def _with_mailboxes(config: Config, addresses: list[str]) -> list[str]:
    """``addresses`` and the folded mailboxes they deliver to (:func:`service.limits.mailbox`), once each: whether
    each sent STOP is read for both (:func:`service.games.players.mailbox_stopped`)."""
    return list(dict.fromkeys([*addresses, *(limits.mailbox_of(config, a) for a in addresses)]))


def local_delivery(config: Config, store: Store, outbox_ids: list[str], recipients: Iterable[str] = (),
                   by: str = "", texts: list[str] | None = None) -> LocalDelivery:
    """Claim ``outbox_ids`` and decide each (:func:`deliver`'s checks: STOP, the computer, the service's own
    addresses, the WhatsApp window, the daily caps): one store call claims them and reads the marks of their likely
    recipients (``recipients``, the senders of player-owned replies besides; any other's are read in one more) and
    the entries ``texts`` as stored (for the caller: the notes of their games). Returns the settle's writes, not
    written. ``by``: this attempt's claim token (a fresh one if empty: claims are never shared, each attempt
    settles only what it claimed)."""
    guess = list(dict.fromkeys([*recipients, *(split_outbox_id(o)[0][2:] for o in outbox_ids if o.startswith("p:"))]))
    guess = _with_mailboxes(config, [a for a in guess if not is_bot(a)])  # STOP marks the folded mailbox too
    claim = store.claim_local(outbox_ids, int(config["SEND_LEASE"]), guess, by, texts)
    entries, marks = claim.entries, claim.marks
    others = _with_mailboxes(config, [e["to"] for e in entries if not is_bot(e["to"]) and e["to"] not in marks])
    others += [a for a in daily_cap.recipients(entries) if a not in marks and a not in others]
    if others:
        marks = {**marks, **store.player_marks(others)}
    stopped = {a for a, m in marks.items() if m.stopped}
    # past the day's SMS cap, or the countries: held back
    entries, capped = daily_cap.split_sms(config, store, entries,
                                          marks={a: m.people for a, m in marks.items()})
    sent, refused = [], [(e["id"], why) for e, why in capped]
    for e in entries:
        if (is_bot(e["to"]) or limits.forbidden_recipient(config, e["to"])  # nor the service's own address
            or ({e["to"], limits.mailbox_of(config, e["to"])} & stopped
                and e.get("kind") != optout.FINAL)):  # STOP: nothing but its confirmation
            refused.append((e["id"], UNSENDABLE))
        elif e.get("window") == "closed":
            refused.append((e["id"], WINDOW_CLOSED))
        else:
            sent.append(e)
    metrics.settled_local(sent)
    logs.settled(sent)
    for oid, why in refused:
        metrics.outbox("", "failed", daily_cap.held_code(why))
        logs.outbox_entry(oid, "", "", "failed", daily_cap.held_code(why))
    return LocalDelivery([SettleLocal(tuple(sent), tuple(refused), claim.token)] if sent or refused else [],
                         claim.texts)

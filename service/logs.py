"""Structured logs: one JSON object per line, and never an address in clear.

With ``SLOWSPADES_LOG_FORMAT=json`` (the default) every line a process writes through ``logging`` is a JSON object
(``time``, ``level``, ``logger``, ``msg``, and when it concerns them ``game``, ``message``, ``outbox``, ``player``,
``channel``, ``outcome``, ``code``): the service's own lines, gunicorn's error and access logs, Celery's worker and
beat logs (their handlers get :class:`JsonFormatter` when they are set up). ``text`` leaves logging as each
process sets it up.

A phone number or email address never appears in clear: each is replaced by its keyed hash, ``h:`` and 12 hex
digits (HMAC-SHA256 with ``SLOWSPADES_LOG_HASH_KEY``, or else a key derived from the deployment's webhook secrets),
the same in every line and every process of one deployment, so an operator can follow one player
(``slowspades players show`` prints a player's hash) without reading who they are. The formatter scrubs the whole
line, a library's message or an exception's text included, and URL-encoded forms (``%2B1555...``, ``%40``) too.

A game page's token (``/g/<token>``: whoever has it plays that seat) never appears either: a filter on the loggers
that write request paths (gunicorn's access and error logs, Flask's and werkzeug's) replaces it with ``<token>``
whatever the format, and the JSON formatter hides it in any other line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import sys
import time
from logging.handlers import WatchedFileHandler
from typing import Any, Iterable, Mapping
from urllib.parse import unquote

from celery.signals import after_setup_logger, after_setup_task_logger, celeryd_init

from .store import split_outbox_id

log = logging.getLogger("slowspades")  # the service's own lines (their logger's name)

#: what is an address in a log line: an E.164 number (``+`` and 7 to 15 digits; a WhatsApp address with its
#: ``whatsapp:``, hashed whole as the ``player`` field is) or an email address, either possibly URL-encoded (a query
#: string in an access log line)
ADDRESS = re.compile(r"(?:whatsapp(?::|%3[aA]))?(?:\+|%2[bB])\d{7,15}\b|[\w.!#$&'*+/=?^`{|}~-]+(?:@|%40)(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b"
                     r"|telegram(?::|%3[aA])-?\d+\b")  # a Telegram chat (service.addresses.TELEGRAM_PREFIX)
#: the fields of a record a line carries when it has them (``extra=`` of a logging call: ``message_id``, as a
#: record has a ``message`` of its own) and their names in the line
FIELDS = {"game": "game", "message_id": "message", "outbox": "outbox", "player": "player", "channel": "channel",
          "outcome": "outcome", "status": "status", "code": "code", "process": "pid"}
_KEY: list[bytes] = [b"slowspades-logs"]


def set_key(config: Mapping[str, Any]) -> bytes:
    """The hash key of this process: ``LOG_HASH_KEY``, else derived from the webhook secrets every process of a
    deployment shares (a local run without them: a fixed key)."""
    given = str(config.get("LOG_HASH_KEY") or "")
    if not given:
        shared = f"{config.get('TWILIO_AUTH_TOKEN') or ''}|{config.get('MAILGUN_SIGNING_KEY') or ''}"
        given = hashlib.sha256(b"slowspades-logs|" + shared.encode()).hexdigest()
    _KEY[0] = given.encode()
    return _KEY[0]


def pseudonym(address: str, key: bytes | None = None) -> str:
    """An address as the logs name it: ``h:`` and 12 hex digits of its keyed hash."""
    digest = hmac.new(key or _KEY[0], unquote(address).lower().encode(), hashlib.sha256).hexdigest()
    return "h:" + digest[:12]


#: a Telegram bot's token in a Bot API URL (``/bot<id>:<secret>/sendMessage``, as an HTTP client's debug line has it)
BOT_TOKEN = re.compile(r"/bot\d+:[A-Za-z0-9_-]+")


def scrub(text: str, key: bytes | None = None) -> str:
    """``text`` with every address replaced by its :func:`pseudonym`, every page token hidden
    (:func:`hide_page_tokens`), and no bot token."""
    return BOT_TOKEN.sub("/bot<token>", ADDRESS.sub(lambda m: pseudonym(m.group(0), key), hide_page_tokens(text)))


#: a game page's path (``/g/<token>``, ``service.web.game``): the token lets whoever reads it play that seat
PAGE_PATH = re.compile(r"((?:/|%2[fF])g(?:/|%2[fF]))[0-9a-fA-F]{32}\b")
HIDDEN_TOKEN = r"\1<token>"


def hide_page_tokens(text: str) -> str:
    """``text`` with the token of every game page's path replaced by ``<token>`` (issue 44 case 8)."""
    return PAGE_PATH.sub(HIDDEN_TOKEN, text)


class HidePageTokens(logging.Filter):
    """A filter that rewrites a record's message without page tokens (:func:`hide_page_tokens`), whatever formats it
    later: gunicorn's access and error logs, Flask's and werkzeug's loggers, in JSON or in text (:func:`configure`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = hide_page_tokens(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        return True


#: the loggers whose lines carry request paths: gunicorn's, Flask's (an app's logger: its import name) and werkzeug's
PATH_LOGGERS = ("gunicorn.access", "gunicorn.error", "werkzeug", "flask.app", "service")


class HideOutboundPaths(logging.Filter):
    """urllib3's request lines (at DEBUG) without their path: the URLs the service calls are capabilities (a push
    endpoint, :mod:`service.webpush`; the Bot API's token, :mod:`service.telegram`). The host stays."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and len(record.args) > 4 and str(record.msg).startswith('%s://%s:%s "'):
            record.args = (*record.args[:4], "/<hidden>", *record.args[5:])
        return True


#: the logger of urllib3's request lines (requests, pywebpush and the Twilio SDK call through it)
OUTBOUND_LOGGER = "urllib3.connectionpool"


def filter_paths(names: Iterable[str] = PATH_LOGGERS) -> None:
    """:class:`HidePageTokens` on the loggers ``names`` (once each), :class:`HideOutboundPaths` on urllib3's."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, HidePageTokens) for f in logger.filters):
            logger.addFilter(HidePageTokens())
    outbound = logging.getLogger(OUTBOUND_LOGGER)
    if not any(isinstance(f, HideOutboundPaths) for f in outbound.filters):
        outbound.addFilter(HideOutboundPaths())


def outbox_fields(outbox_id: str) -> dict[str, str]:
    """The ``outbox`` and ``game`` fields of an outbox id (a player's own ``p:<address>#n``: its pseudonym)."""
    try:
        owner, n = split_outbox_id(outbox_id)
    except ValueError:
        return {"outbox": scrub(outbox_id)}
    if owner.startswith("g:"):
        return {"outbox": outbox_id, "game": owner[2:]}
    return {"outbox": f"p:{pseudonym(owner[2:])}#{n}"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, every address in it replaced by its pseudonym."""

    def __init__(self, key: bytes | None = None) -> None:
        super().__init__()
        self.key = key

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name, "msg": record.getMessage()}
        for attr, name in FIELDS.items():
            value = record.__dict__.get(attr)
            if value is not None and value != "":
                doc[name] = value
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            doc["exc"] = record.exc_text
        if record.stack_info:
            doc["stack"] = self.formatStack(record.stack_info)
        return scrub(json.dumps(doc, ensure_ascii=False, default=str), self.key)


def json_lines(config: Mapping[str, Any]) -> bool:
    return str(config.get("LOG_FORMAT") or "json").lower() == "json"


#: Celery tasks that are the service's own heartbeat (``workers.liveness``: one every few seconds per worker), and
#: the loggers of Celery's "received" and "succeeded" lines about every task
PROBE_TASKS = frozenset({"workers.liveness.probe"})
TASK_LOGGERS = ("celery.worker.strategy", "celery.app.trace")


class ProbesAtDebug(logging.Filter):
    """Celery's lines about a liveness probe are DEBUG lines (they were a third of a worker's log): kept only where
    DEBUG is on; every other task's lines as Celery logs them."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not isinstance(args, Mapping) or args.get("name") not in PROBE_TASKS or record.levelno <= logging.DEBUG:
            return True
        if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            return False
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


for _name in TASK_LOGGERS:
    logging.getLogger(_name).addFilter(ProbesAtDebug())


def configure(config: Mapping[str, Any]) -> None:
    """This process's logs as JSON lines (``LOG_FORMAT=json``): gunicorn's handlers get :class:`JsonFormatter` (its
    arbiter's, with the root logger's, come from ``service.gunicorn_conf``), and so do Celery's worker and beat
    when they set up their logging, after this. A process that is neither (a test runner, a command) keeps its
    logging as it is; the hash key is set in every case."""
    key = set_key(config)
    filter_paths()  # page tokens never in a log line, in JSON or text
    if not json_lines(config):
        return
    formatter = JsonFormatter(key)
    for name in ("gunicorn.error", "gunicorn.access"):
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(formatter)
    _CELERY_FORMATTER[0] = formatter


_CELERY_FORMATTER: list[JsonFormatter | None] = [None]
_PLAIN = (logging.StreamHandler, logging.FileHandler, WatchedFileHandler)


@celeryd_init.connect
def _celery_worker_starting(**_kw: Any) -> None:
    """A Celery worker program starts (before its own logging, and before it warns about running as root): its
    warnings go through logging, into JSON lines on stderr until Celery sets up its handlers."""
    formatter = _CELERY_FORMATTER[0]
    if formatter is None:
        return
    logging.captureWarnings(True)
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(formatter)
        root.addHandler(handler)


@after_setup_logger.connect
@after_setup_task_logger.connect
def _celery_json(logger: logging.Logger | None = None, **_kw: Any) -> None:
    """Celery set up its worker's or beat's logging (replacing the root logger's handlers): JSON lines there too."""
    formatter = _CELERY_FORMATTER[0]
    if formatter is not None and logger is not None:
        for handler in logger.handlers:
            if type(handler) in _PLAIN:  # Celery's own (never a test runner's capturing handler, a subclass)
                handler.setFormatter(formatter)


# -- the service's own lines ----------------------------------------------------------------------------------
def recorded(message_id: str, sender: str, channel: str, claim: str) -> None:
    """A webhook recorded an inbound message (``claim``: new, pending, done, spooled)."""
    log.info("inbound recorded", extra={"message_id": message_id, "player": pseudonym(sender), "channel": channel,
                                        "outcome": claim})


def handled(message_id: str, sender: str, game_id: str | None, outcome: str) -> None:
    """The worker handled an inbound message."""
    log.info("inbound handled", extra={"message_id": message_id, "player": pseudonym(sender), "game": game_id or "",
                                       "outcome": outcome})


def settled(entries: Iterable[Mapping[str, Any]], status: str = "sent", code: str = "local") -> None:
    """Outbox entries settled at once (the local outbox)."""
    if log.isEnabledFor(logging.INFO):
        for entry in entries:
            outbox_entry(str(entry.get("id") or ""), str(entry.get("to") or ""), str(entry.get("channel") or ""),
                         status, code)


def outbox_entry(outbox_id: str, to: str, channel: str, status: str, code: str = "") -> None:
    """An outbox entry sent, failed or to be retried."""
    level = logging.INFO if status == "sent" else logging.WARNING
    log.log(level, "outbox %s", status, extra={**outbox_fields(outbox_id), "player": pseudonym(to) if to else "",
                                                "channel": channel, "status": status, "code": code})


def say(process: str, text: str, config: Mapping[str, Any] | None = None) -> str:
    """A line of ``service.supervise`` (which runs before any app): JSON unless ``LOG_FORMAT`` is ``text``."""
    if config is not None and not json_lines(config):
        return f"supervise[{process}]: {text}"
    return json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "level": "WARNING",
                       "logger": "service.supervise", "process": process, "msg": scrub(text)})

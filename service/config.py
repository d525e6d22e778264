"""Configuration from the environment: every setting is a ``SLOWSPADES_*`` variable, declared once with its type,
default and meaning (docs/settings.md is written from them: :func:`markdown_table`).

:class:`Settings` (pydantic-settings) declares the service's own; the lifecycle's (``service.lifecycle.settings``)
and the abuse limits' (``service.limits``) keep their tables beside their code and join it as fields of the same
model (:func:`settings_model`). :func:`load_config` reads the environment once, refuses an unknown ``SLOWSPADES_*``
name or a value that does not read (:class:`SettingsError`, one line naming the variable), and returns a plain dict
that becomes ``app.config`` (the code reads ``svc.config.get(NAME)``); tests pass overrides to
:func:`service.create_app`, which are taken as they are. An empty variable means its default.
"""

from __future__ import annotations

import difflib
import os
import sys
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Literal, Mapping

from pydantic import Field, ValidationError, create_model
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from .lifecycle.settings import SETTINGS as LIFECYCLE_SETTINGS
from .prices import prices
from .store.base import is_cluster
from .whatsapp import templates

PREFIX = "SLOWSPADES_"
#: the exit status of a process refused for its settings (sysexits' EX_CONFIG): starting it again cannot help
EX_CONFIG = 78
#: the environment :func:`load_config` reads (``os.environ`` unless it was given another)
_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("slowspades_environ", default=None)


class SettingsError(ValueError):
    """A ``SLOWSPADES_*`` variable that is not a setting, or whose value does not read: one line naming it."""


#: the forget ledger's hashes are keyed by SLOWSPADES_LOG_HASH_KEY alone: a key derived from the webhook secrets (the
#: logs' fallback) would change with a token rotation, and a ledger replayed after a restore would then forget nobody
LEDGER_KEY_MISSING = ("SLOWSPADES_LOG_HASH_KEY is required with a forget ledger (SLOWSPADES_FORGET_LEDGER or "
                      "--ledger): set it to a long random secret, the same in every process, kept with the ledger")


class Settings(BaseSettings):
    """The service's own settings, each the variable ``SLOWSPADES_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, case_sensitive=True, env_ignore_empty=True, extra="ignore",
                                      validate_default=False)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The environment only (no .env file, no secrets directory): ``os.environ``, or the mapping given to
        :func:`load_config`."""
        environ = _ENVIRON.get()
        if environ is None:
            return init_settings, env_settings
        source = EnvSettingsSource(settings_cls)
        source.env_vars = {k: v for k, v in environ.items() if v != ""}  # as env_ignore_empty does for os.environ
        return init_settings, source

    REDIS_URL: str = Field("redis://127.0.0.1:6379/0", description=
        "Redis holding games, players, messages and the outbox; redis+cluster://host:port (any node of it) names "
        "a Redis Cluster (docs/scaling.md).")
    REDIS_CLUSTER: bool = Field(False, description=
        "SLOWSPADES_REDIS_URL (a redis:// URL) names a node of a Redis Cluster.")
    REPLICA_WAIT_MS: int = Field(0, description=
        "On a Redis with replicas: a move (the webhook's record, the task's append) is acknowledged only once a "
        "replica has it (WAIT 1 <ms>); if no replica answers in time it is not taken as done: the webhook keeps "
        "the message in its spool (and answers 200), the task retries. 0: no wait (a single Redis without "
        "replicas).")
    BROKER_URL: str = Field("", description=
        "Celery broker URL (redis:// or amqp:// for RabbitMQ); empty means the same Redis as "
        "SLOWSPADES_REDIS_URL, which a Redis Cluster cannot be.")
    PUBLIC_BASE_URL: str = Field("http://127.0.0.1:8000", description=
        "The public https URL the providers call (no trailing slash). Twilio signs the URL it calls, so this must "
        "be exactly what you typed into the Twilio console.")
    TWILIO_ACCOUNT_SID: str = Field("", description="Twilio account SID (ACxxx). Empty: SMS go to the local outbox.")
    TWILIO_AUTH_TOKEN: str = Field("", description="Twilio auth token: signs webhooks and authenticates REST calls.")
    TWILIO_WEBHOOK_SHARED_KEY: str = Field("", description=
        "Secret of a Twilio webhook SharedKey, if a Webhook Rule signs with one (requests carrying "
        "X-Twilio-Webhooks-Signature-Settings).")
    TWILIO_FROM: str = Field("", description=
        "The Twilio number (E.164) that sends SMS; or a Messaging Service SID (MGxxx).")
    TWILIO_WHATSAPP_FROM: str = Field("", description=
        "The WhatsApp sender registered with Twilio (E.164, with or without 'whatsapp:'), or a Messaging Service "
        "SID (MGxxx) holding it; empty: WhatsApp messages go to the local outbox (docs/twilio.md#whatsapp).")
    WHATSAPP_TEMPLATES: str = Field("", description=
        "Approved WhatsApp Content templates for messages outside a player's 24-hour window: "
        "kind.lang=ContentSid, comma separated (kinds: turn, reminder, invite; e.g. "
        "turn.en=HX...,reminder.el=HX...); each gets {{1}}, the message itself. None for a kind and language: the "
        "player's other linked channel (docs/twilio.md#templates).")
    WHATSAPP_BUTTONS: bool = Field(True, description=
        "Inside a WhatsApp player's 24-hour window, a message offering answers goes with them as quick-reply "
        "buttons (up to 3) or a list (more), through Twilio's Content API (docs/twilio.md#buttons); false: text "
        "only.")
    TELEGRAM_BOT_TOKEN: str = Field("", description=
        "The Telegram bot's token (from @BotFather). Empty: Telegram messages go to the local outbox "
        "(docs/channels.md#telegram).")
    TELEGRAM_SECRET: str = Field("", description=
        "The secret_token given to setWebhook (1-256 of A-Z a-z 0-9 _ -): every update to /telegram must carry it "
        "in X-Telegram-Bot-Api-Secret-Token. Empty: /telegram refuses every update.")
    TELEGRAM_API_URL: str = Field("https://api.telegram.org", description=
        "The Bot API's base URL (a local Bot API server, or a test's).")
    TELEGRAM_BOT_NAME: str = Field("", description=
        "The bot's username (without @): an invitation then carries a t.me link that lets the friend play it on "
        "Telegram (docs/channels.md#telegram); empty: none.")
    TELEGRAM_TIMEOUT: float = Field(10.0, description="Seconds a Bot API call may take before it is tried again later.")
    SMTP_HOST: str = Field("", description="SMTP server for outgoing email. Empty: emails go to the local outbox.")
    SMTP_PORT: int = Field(587, description="SMTP port.")
    SMTP_USER: str = Field("", description="SMTP user name (empty: no login).")
    SMTP_PASSWORD: str = Field("", description="SMTP password.")
    SMTP_STARTTLS: bool = Field(True, description="Use STARTTLS on the SMTP connection.")
    SMTP_TIMEOUT: float = Field(20.0, description="SMTP connection timeout, seconds.")
    MAIL_FROM: str = Field("Slow Spades <play@spades.localhost>", description="From: header of outgoing email.")
    MAIL_DOMAIN: str = Field("", description=
        "Domain of the per-game reply addresses (play+<token>@domain); empty: the domain of SLOWSPADES_MAIL_FROM.")
    MAILGUN_SIGNING_KEY: str = Field("", description=
        "Mailgun HTTP webhook signing key (verifies /email/inbound and /email/events).")
    MAILGUN_MAX_AGE: int = Field(300, description=
        "Reject Mailgun posts whose timestamp is older (or newer) than this, seconds.")
    DELIVERY: Literal["auto", "local"] = Field("auto", description=
        "auto: Twilio/SMTP when configured, else the local outbox; local: always local.")
    DEFAULT_REGION: str = Field("US", description=
        "Region for phone numbers typed without +country code (phonenumbers).")
    LANG: str = Field("en", description="Default language of a new player.")
    RECEIPT_RETRY_DELAYS: str = Field("900,3600,14400", description=
        "Seconds before a message a delivery receipt says failed for a while (Twilio 30003 handset unreachable, "
        "30008 unknown...) is sent again, one delay per retry (so at most that many retries; the sweep sends it). "
        "30003 after the last one marks the number unreachable (see docs/operating.md, Unreachable players).")
    TASK_RETRY_MAX: int = Field(60, description=
        "The longest wait, in seconds, between two retries of a worker's task that Redis failed (a restart, a "
        "failover): the waits double from 1 s with jitter up to this. Read when the worker starts.")
    SWEEP_AFTER: int = Field(60, description="Re-dispatch outbox entries still queued after this many seconds.")
    SWEEP_EVERY: float = Field(30.0, description="Beat interval of the outbox sweep, seconds.")
    SEND_LEASE: int = Field(120, description=
        "An entry claimed for sending but not confirmed after this many seconds may be claimed again (the sender "
        "died mid-send).")
    VISIBILITY_TIMEOUT: int = Field(20, description=
        "Seconds before a task taken by a worker that died (or lost Redis) is given to another: a move in flight "
        "at a crash is applied that long after it, at most. Longer than any task runs (a task runs in "
        "milliseconds).")
    QUEUE: str = Field("celery", description=
        "Name of the Celery queue (separate deployments sharing a Redis use different names).")
    OUTBOX_TTL: int = Field(3600, description=
        "Seconds the outbox and consumed-message ids of a finished game are kept (enough for the last status "
        "callbacks).")
    MESSAGE_TTL: int = Field(604800, description=
        "Seconds an inbound message record (and its dedupe claim) is kept while it is not yet handled.")
    HANDLED_MESSAGE_TTL: int = Field(86400, description=
        "Seconds, at least, a message id is remembered so a retry of it is dropped (at most twice that; 8 bytes a "
        "message; Mailgun retries for up to ~8 hours).")
    GAME_CACHE_SIZE: int = Field(2000, description=
        "Folded games each process keeps (service.caches); a game it does not hold is read from its snapshot and "
        "the events after it.")
    PAGE_TTL_DAYS: float = Field(30.0, description=
        "Days a player's page of a game (/g/<token>) answers after the game ended; then 410, and WEB gives a new "
        "link (good for as long again).")
    PAGE_POLL_SECONDS: float = Field(3.0, description=
        "How often a player's open game page asks whether the game moved (and marks them as on it: no SMS or "
        "email about that game meanwhile).")
    PAGE_QUIET_MINUTES: float = Field(5.0, description=
        "Minutes after a move made on the game page during which that player gets no SMS or email about the game; "
        "once they left, the prompt they owe goes by their channel, with what happened meanwhile.")
    SIMULATOR: bool = Field(False, description=
        "Serve the simulator page /simulator/ (on in scripts/run-local, off otherwise; 404 when off). The app "
        "refuses to start with it on unless SLOWSPADES_BIND and SLOWSPADES_PUBLIC_BASE_URL are loopback and no "
        "Twilio account is set; it answers loopback clients only.")
    SHARED_CLOCK: bool = Field(False, description=
        "Follow the shared clock: real time plus the offset in {clock}:offset, which the simulator's Advance "
        "clock and the tests move (on with SLOWSPADES_SIMULATOR and in the tests; set it for an operator command "
        "run beside the simulator). Off, the service keeps real time and never reads that key: nothing can move a "
        "deployment's time, and a move reads one key less.")
    BIND: str = Field("127.0.0.1:8000", description=
        "Address the web process listens on (the Procfile's gunicorn --bind).")
    SPOOL_DIR: str = Field("var/spool", description=
        "Directory where the web process keeps (fsync'd) inbound messages it could not hand to Redis, until Redis "
        "answers again (service.spool).")
    ALIVE_PROBE_EVERY: float = Field(10.0, description=
        "Seconds between the worker's liveness probes (under service.supervise --alive-file: a worker receiving "
        "nothing is restarted).")
    APPENDFSYNC: Literal["always", "everysec", "no"] = Field("everysec", description=
        "appendfsync of the Redis that scripts/run-local starts: always, everysec or no (README: what each can "
        "lose).")
    RULES_URL: str = Field("", description="Where the RULES reply points; empty: this service's own /rules page.")
    METRICS_TOKEN: str = Field("", description=
        "Bearer token that GET /metrics (Prometheus) asks for (Authorization: Bearer <token>); empty: /metrics "
        "answers 404.")
    METRICS_PORT: int = Field(0, description=
        "A Celery worker or beat serves its host's metrics on this port (Prometheus' text format, no token: bind "
        "it to a private network); 0: none. With PROMETHEUS_MULTIPROC_DIR set, every process of the host is "
        "counted (docs/operating.md).")
    LOG_FORMAT: Literal["json", "text"] = Field("json", description=
        "json: every log line is one JSON object (game and message ids, addresses replaced by a keyed hash: "
        "docs/operating.md); text: logging as each process sets it.")
    LOG_LEVEL: str = Field("INFO", description=
        "Level of the web process's log lines (gunicorn with --config python:service.gunicorn_conf); a Celery "
        "worker or beat: its --loglevel.")
    LOG_HASH_KEY: str = Field("", description=
        "Key of the hash that replaces addresses in the logs and names them in the forget ledger (the same in every "
        "process of a deployment). Required with SLOWSPADES_FORGET_LEDGER (the ledger uses it alone); otherwise, "
        "empty: the logs' key is derived from the Twilio and Mailgun secrets.")
    FORGET_INACTIVE_DAYS: float = Field(0.0, description=
        "Players with no game in play and nothing done for this many days are forgotten by `slowspades players "
        "forget-inactive` (0: never; docs/operating.md, Forget).")
    FORGET_LEDGER: str = Field("", description=
        "A file (kept apart from Redis' backups) where each forget appends the keyed hash of the addresses it "
        "forgot; `slowspades players forget-ledger` re-applies it after a backup is restored. Empty: none.")
    DEALER_SEED: str = Field("", description=
        "Tests and demos only: make shuffles reproducible. Empty: secure randomness.")

    # the processes' own, read by the Procfile and scripts/run-local (declared so a misspelling of them is refused)
    WEB_WORKERS: int = Field(2, description="gunicorn worker processes of the web (the Procfile's --workers).")
    WEB_THREADS: int = Field(4, description="Threads of each gunicorn worker (the Procfile's --threads).")
    WORKER_CONCURRENCY: int = Field(2, description="Celery worker processes (the Procfile's --concurrency).")
    ALIVE_WITHIN: float = Field(60.0, description=
        "Seconds without a task received (or a liveness probe) after which the supervisor restarts the worker "
        "(the Procfile's service.supervise --alive-within).")
    ALIVE_FILE: str = Field("", description=
        "Set by service.supervise for the worker it runs: the file the worker touches while it works "
        "(workers.liveness). Not set by hand.")
    # the tests' and CI's own
    TEST_REQUIRE_RABBITMQ: bool = Field(False, description=
        "Tests only (.ci/run sets it): the tests of a worker on RabbitMQ fail, rather than skip, without one.")
    CHROMIUM: str = Field("/usr/bin/chromium", description="Tests only: the Chromium the browser tests drive.")
    SCREENSHOT: str = Field("", description="Tests only: where the simulator's browser test saves its screenshot.")
    PAGE_SCREENSHOTS: str = Field("", description=
        "Tests only: a directory where the game page's browser test saves a picture of each page.")
    TABLE_SCREENSHOTS: str = Field("", description=
        "Tests only: a directory (docs/) where the card table's browser test saves the table at each phase, "
        "at 390 and 1280 px.")


_KINDS = {int: "int", float: "float", bool: "bool", str: "str"}


def _kind(annotation: Any) -> str:
    return _KINDS.get(annotation, "str")  # a Literal of strings is a str


# name -> (default, kind, description): every setting, the service's own then the lifecycle's and the limits'
SETTINGS: dict[str, tuple[Any, str, str]] = {
    name: (field.default, _kind(field.annotation), field.description or "") for name, field in Settings.model_fields.items()
}
for _name, _spec in LIFECYCLE_SETTINGS.items():  # the lifecycle's settings join the table (the README lists them)
    SETTINGS.setdefault(_name, _spec)


def _limit_settings() -> None:
    """The abuse limits' settings (service.limits) join the table too."""
    from .limits import SETTINGS as LIMITS  # here, not at the top: limits imports context, which imports this module

    for name, spec in LIMITS.items():
        SETTINGS.setdefault(name, spec)


_limit_settings()

_TYPES: dict[str, Any] = {"int": int, "float": float, "bool": bool, "str": str}


@lru_cache(maxsize=1)
def settings_model() -> type[Settings]:
    """:class:`Settings` with the lifecycle's and the limits' settings as fields of their own (type and default from
    their tables), so that every ``SLOWSPADES_*`` variable is read and checked by one model."""
    extra: dict[str, Any] = {name: (_TYPES[kind], Field(default, description=doc))
                             for name, (default, kind, doc) in SETTINGS.items() if name not in Settings.model_fields}
    return create_model("AllSettings", __base__=Settings, **extra)


def _convert(raw: str, kind: str) -> Any:
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    if kind == "bool":
        return raw.strip().lower() in ("1", "true", "yes", "on")
    return raw


def setting(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """One setting from ``environ`` (default ``os.environ``), for what is fixed when a module is imported."""
    default, kind, _doc = SETTINGS[name]
    raw = (os.environ if environ is None else environ).get(PREFIX + name)
    return default if raw is None or raw == "" else _convert(raw, kind)


_EXPECTED = {"int": "a whole number", "float": "a number", "bool": "true or false (1/0, yes/no, on/off)"}


def _unknown(env: Mapping[str, str]) -> str | None:
    """The first ``SLOWSPADES_*`` name of ``env`` that is no setting, said with the nearest one; None if all are."""
    for var in sorted(env):
        if var.startswith(PREFIX) and var[len(PREFIX):] not in SETTINGS:
            near = difflib.get_close_matches(var[len(PREFIX):], list(SETTINGS), n=1)
            hint = f" (did you mean {PREFIX}{near[0]}?)" if near else ""
            return f"{var} is not a setting{hint}: docs/settings.md lists them"
    return None


def _refusal(exc: ValidationError) -> str:
    """A validation error as one line naming each variable that did not read, and what it should be."""
    said = []
    for err in exc.errors():
        name = str(err["loc"][0]) if err["loc"] else "?"
        kind = SETTINGS.get(name, (None, "str", ""))[1]
        expected = _EXPECTED.get(kind) or err["msg"].replace("Input should be ", "")
        said.append(f"{PREFIX}{name}={err.get('input')!r} is not {expected}" if kind in _EXPECTED
                    else f"{PREFIX}{name}={err.get('input')!r}: should be {expected}")
    return "; ".join(said)


def read_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every setting from ``environ`` (default ``os.environ``), typed and checked; raises :class:`SettingsError`
    for an unknown ``SLOWSPADES_*`` name or a value that does not read."""
    env = os.environ if environ is None else environ
    unknown = _unknown(env)
    if unknown:
        raise SettingsError(unknown)
    token = _ENVIRON.set(environ)
    try:
        return settings_model()().model_dump()
    except ValidationError as exc:
        raise SettingsError(_refusal(exc)) from None
    finally:
        _ENVIRON.reset(token)


def config_or_exit(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """:func:`load_config` for a process that is starting (gunicorn's configuration, the Celery app): a setting
    that does not read stops it with one line on stderr naming the variable and the exit status
    :data:`EX_CONFIG`, not a traceback (``service.supervise`` then does not start it again)."""
    try:
        return load_config(environ)
    except ValueError as exc:  # SettingsError, and the derived settings' refusals (templates, prices, broker)
        print(f"slowspades: not started: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(EX_CONFIG) from None


def load_config(environ: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Settings from ``environ`` (default ``os.environ``; :func:`read_settings`), keyed without the ``SLOWSPADES_``
    prefix, then ``overrides``; derived settings are filled after both."""
    out = read_settings(environ)
    out.update(overrides or {})
    return finish_config(out)


def finish_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Fill the derived settings (broker URL, mail domain, Celery's own config); a WHATSAPP_TEMPLATES that does not
    read is refused here, before any message needs it (:class:`service.whatsapp.BadTemplates`), and so is a price
    table (``PRICES_FILE``) that does not (:class:`service.prices.PriceTableError`), and a forget ledger without its
    key (:data:`LEDGER_KEY_MISSING`)."""
    templates(cfg)
    prices(cfg)
    if cfg.get("FORGET_LEDGER") and not cfg.get("LOG_HASH_KEY"):
        raise SettingsError(LEDGER_KEY_MISSING)
    if not cfg.get("BROKER_URL") and is_cluster(cfg):
        raise ValueError("SLOWSPADES_REDIS_URL names a Redis Cluster, which cannot be Celery's broker: "
                         "set SLOWSPADES_BROKER_URL (amqp://... for RabbitMQ, or a plain redis://)")
    cfg["BROKER_URL"] = cfg.get("BROKER_URL") or cfg["REDIS_URL"]
    cfg["PUBLIC_BASE_URL"] = str(cfg["PUBLIC_BASE_URL"]).rstrip("/")
    if not cfg.get("MAIL_DOMAIN"):
        addr = str(cfg["MAIL_FROM"]).rsplit("<", 1)[-1].rstrip(">").strip()
        cfg["MAIL_DOMAIN"] = addr.rsplit("@", 1)[-1] if "@" in addr else "localhost"
    cfg["CELERY"] = {
        "broker_url": cfg["BROKER_URL"],
        "result_backend": None,
        "task_ignore_result": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        # a task acknowledged late whose connection was lost is not acknowledged on the dead connection (kombu's
        # Redis transport rebuilds the pool of a collected transport there and the worker dies with "'NoneType'
        # object has no attribute 'hostname'", issue 22 case 4): it is stopped, and the broker gives it again
        # after the visibility timeout (celery's own remedy, its default from Celery 6)
        "worker_cancel_long_running_tasks_on_connection_loss": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        "task_default_queue": cfg.get("QUEUE") or "celery",
        "broker_transport_options": transport_options(cfg),
        **broker_transport(cfg),
        "beat_schedule": {
            "sweep-outbox": {"task": "workers.tasks.sweep_outbox", "schedule": float(cfg["SWEEP_EVERY"])},
        },
        "slowspades_alive_probe_every": float(cfg.get("ALIVE_PROBE_EVERY") or 10.0),  # workers.liveness
        **cfg.get("CELERY_EXTRA", {}),
    }
    return cfg


def broker_transport(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Celery's ``broker_transport`` for a ``redis://`` broker: kombu's Redis transport without the restore at
    channel close that killed the worker on a Redis restart (:mod:`service.store.broker`, issue 22 case 4)."""
    if str(cfg["BROKER_URL"]).startswith("redis://"):
        return {"broker_transport": "service.store.broker:Transport"}
    return {}


def is_rabbitmq(cfg: Mapping[str, Any]) -> bool:
    """Whether Celery's broker is RabbitMQ (an ``amqp://`` URL), not a Redis."""
    return str(cfg["BROKER_URL"]).startswith(("amqp://", "amqps://", "pyamqp://"))


def transport_options(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Celery's ``broker_transport_options`` for the broker. Redis: a task taken by a worker that died is
    given to another after ``VISIBILITY_TIMEOUT``. RabbitMQ (``amqp://``): queues are durable (kombu's
    default) and with ``task_acks_late`` a task is acknowledged after it ran, so RabbitMQ gives a dead
    worker's tasks to another as soon as its connection drops; publisher confirms make ``send_task``
    return only once the broker has the task (a receipt's 200 then means it is queued; the inbound task, whose
    record is in Redis, goes without them: :func:`inbound_transport_options`)."""
    if is_rabbitmq(cfg):
        return {"confirm_publish": True}
    return {
        "visibility_timeout": int(cfg["VISIBILITY_TIMEOUT"]),
        # look for tasks of dead workers every few seconds (kombu's default is ~100 s)
        "unacked_restore_interval": max(1, min(5, int(cfg["VISIBILITY_TIMEOUT"]) // 2)),
        "unacked_restore_throttle": 1,
    }


def inbound_transport_options(cfg: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``broker_transport_options`` of the web's inbound task (``handle_inbound``), where they differ from
    :func:`transport_options`: on RabbitMQ, no publisher confirms. What the webhook's 200 promises is the record,
    which Redis (and with ``REPLICA_WAIT_MS`` a replica) acknowledged before the task is queued, and its pending mark:
    a task the broker loses is queued again by the sweep after ``SWEEP_AFTER``. Waiting for the confirm held one of
    gunicorn's threads on every move (docs/performance.md). Every other task the web queues (a delivery receipt:
    nothing records it first) keeps the confirms. None: the same options (a Redis broker)."""
    return {**transport_options(cfg), "confirm_publish": False} if is_rabbitmq(cfg) else None


def markdown_table() -> str:
    """The README's table of settings."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, (default, _kind, doc) in SETTINGS.items():
        rows.append(f"| `SLOWSPADES_{name}` | `{default}` | {doc} |")
    return "\n".join(rows)

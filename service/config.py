"""Configuration from the environment: every setting is a ``SLOWSPADES_*`` variable (see README).

:func:`load_config` reads the environment once and returns a plain dict that
becomes ``app.config``; tests pass overrides to :func:`service.create_app`.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from .lifecycle.settings import SETTINGS as LIFECYCLE_SETTINGS
from .prices import prices
from .store.base import is_cluster
from .whatsapp import templates

# name -> (default, kind, description). The README's table is written from this.
SETTINGS: dict[str, tuple[Any, str, str]] = {
    "REDIS_URL": ("redis://127.0.0.1:6379/0", "str", "Redis holding games, players, messages and the outbox; "
                  "redis+cluster://host:port (any node of it) names a Redis Cluster (docs/scaling.md)."),
    "REDIS_CLUSTER": (False, "bool", "SLOWSPADES_REDIS_URL (a redis:// URL) names a node of a Redis Cluster."),
    "REPLICA_WAIT_MS": (0, "int", "On a Redis with replicas: a move (the webhook's record, the task's append) is "
                                  "acknowledged only once a replica has it (WAIT 1 <ms>); if no replica answers in "
                                  "time it is not taken as done: the webhook keeps the message in its spool (and "
                                  "answers 200), the task retries. 0: no wait (a single Redis without replicas)."),
    "BROKER_URL": ("", "str", "Celery broker URL (redis:// or amqp:// for RabbitMQ); empty means the same Redis "
                              "as SLOWSPADES_REDIS_URL, which a Redis Cluster cannot be."),
    "PUBLIC_BASE_URL": ("http://127.0.0.1:8000", "str",
                        "The public https URL the providers call (no trailing slash). Twilio signs the URL it "
                        "calls, so this must be exactly what you typed into the Twilio console."),
    "TWILIO_ACCOUNT_SID": ("", "str", "Twilio account SID (ACxxx). Empty: SMS go to the local outbox."),
    "TWILIO_AUTH_TOKEN": ("", "str", "Twilio auth token: signs webhooks and authenticates REST calls."),
    "TWILIO_WEBHOOK_SHARED_KEY": ("", "str", "Secret of a Twilio webhook SharedKey, if a Webhook Rule signs with one "
                                             "(requests carrying X-Twilio-Webhooks-Signature-Settings)."),
    "TWILIO_FROM": ("", "str", "The Twilio number (E.164) that sends SMS; or a Messaging Service SID (MGxxx)."),
    "TWILIO_WHATSAPP_FROM": ("", "str", "The WhatsApp sender registered with Twilio (E.164, with or without "
                                        "'whatsapp:'), or a Messaging Service SID (MGxxx) holding it; empty: WhatsApp "
                                        "messages go to the local outbox (docs/twilio.md#whatsapp)."),
    "WHATSAPP_TEMPLATES": ("", "str", "Approved WhatsApp Content templates for messages outside a player's 24-hour "
                                      "window: kind.lang=ContentSid, comma separated (kinds: turn, reminder, invite; "
                                      "e.g. turn.en=HX...,reminder.el=HX...); each gets {{1}}, the message itself. "
                                      "None for a kind and language: the player's other linked channel "
                                      "(docs/twilio.md#templates)."),
    "TELEGRAM_BOT_TOKEN": ("", "str", "The Telegram bot's token (from @BotFather). Empty: Telegram messages go to the "
                                      "local outbox (docs/channels.md#telegram)."),
    "TELEGRAM_SECRET": ("", "str", "The secret_token given to setWebhook (1-256 of A-Z a-z 0-9 _ -): every update to "
                                   "/telegram must carry it in X-Telegram-Bot-Api-Secret-Token. Empty: /telegram "
                                   "refuses every update."),
    "TELEGRAM_API_URL": ("https://api.telegram.org", "str", "The Bot API's base URL (a local Bot API server, or a "
                                                            "test's)."),
    "TELEGRAM_BOT_NAME": ("", "str", "The bot's username (without @): an invitation then carries a t.me link that "
                                     "lets the friend play it on Telegram (docs/channels.md#telegram); empty: none."),
    "TELEGRAM_TIMEOUT": (10.0, "float", "Seconds a Bot API call may take before it is tried again later."),
    "SMTP_HOST": ("", "str", "SMTP server for outgoing email. Empty: emails go to the local outbox."),
    "SMTP_PORT": (587, "int", "SMTP port."),
    "SMTP_USER": ("", "str", "SMTP user name (empty: no login)."),
    "SMTP_PASSWORD": ("", "str", "SMTP password."),
    "SMTP_STARTTLS": (True, "bool", "Use STARTTLS on the SMTP connection."),
    "SMTP_TIMEOUT": (20.0, "float", "SMTP connection timeout, seconds."),
    "MAIL_FROM": ("Slow Spades <play@spades.localhost>", "str", "From: header of outgoing email."),
    "MAIL_DOMAIN": ("", "str", "Domain of the per-game reply addresses (play+<token>@domain); "
                               "empty: the domain of SLOWSPADES_MAIL_FROM."),
    "MAILGUN_SIGNING_KEY": ("", "str", "Mailgun HTTP webhook signing key (verifies /email/inbound and "
                                       "/email/events)."),
    "MAILGUN_MAX_AGE": (300, "int", "Reject Mailgun posts whose timestamp is older (or newer) than this, seconds."),
    "DELIVERY": ("auto", "str", "auto: Twilio/SMTP when configured, else the local outbox; local: always local."),
    "DEFAULT_REGION": ("US", "str", "Region for phone numbers typed without +country code (phonenumbers)."),
    "LANG": ("en", "str", "Default language of a new player."),
    "RECEIPT_RETRY_DELAYS": ("900,3600,14400", "str", "Seconds before a message a delivery receipt says failed for a "
                             "while (Twilio 30003 handset unreachable, 30008 unknown...) is sent again, one delay "
                             "per retry (so at most that many retries; the sweep sends it). 30003 after the last one "
                             "marks the number unreachable (see docs/operating.md, Unreachable players)."),
    "TASK_RETRY_MAX": (60, "int", "The longest wait, in seconds, between two retries of a worker's task that Redis "
                                  "failed (a restart, a failover): the waits double from 1 s with jitter up to this. "
                                  "Read when the worker starts."),
    "SWEEP_AFTER": (60, "int", "Re-dispatch outbox entries still queued after this many seconds."),
    "SWEEP_EVERY": (30.0, "float", "Beat interval of the outbox sweep, seconds."),
    "SEND_LEASE": (120, "int", "An entry claimed for sending but not confirmed after this many seconds may be "
                               "claimed again (the sender died mid-send)."),
    "VISIBILITY_TIMEOUT": (20, "int", "Seconds before a task taken by a worker that died (or lost Redis) is given "
                                      "to another: a move in flight at a crash is applied that long after it, at "
                                      "most. Longer than any task runs (a task runs in milliseconds)."),
    "QUEUE": ("celery", "str", "Name of the Celery queue (separate deployments sharing a Redis use different names)."),
    "OUTBOX_TTL": (3600, "int", "Seconds the outbox and consumed-message ids of a finished game are kept "
                               "(enough for the last status callbacks)."),
    "MESSAGE_TTL": (604800, "int", "Seconds an inbound message record (and its dedupe claim) is kept "
                    "while it is not yet handled."),
    "HANDLED_MESSAGE_TTL": (86400, "int", "Seconds, at least, a message id is remembered so a retry of it is "
                            "dropped (at most twice that; 8 bytes a message; Mailgun retries for up to ~8 hours)."),
    "GAME_CACHE_SIZE": (2000, "int", "Folded games each process keeps (service.caches); a game it does not "
                                     "hold is read from its snapshot and the events after it."),
    "PAGE_TTL_DAYS": (30.0, "float", "Days a player's page of a game (/g/<token>) answers after the game ended; "
                                     "then 410, and WEB gives a new link (good for as long again)."),
    "PAGE_POLL_SECONDS": (3.0, "float", "How often a player's open game page asks whether the game moved (and "
                                        "marks them as on it: no SMS or email about that game meanwhile)."),
    "PAGE_QUIET_MINUTES": (5.0, "float", "Minutes after a move made on the game page during which that player gets "
                                         "no SMS or email about the game; once they left, the prompt they owe goes "
                                         "by their channel, with what happened meanwhile."),
    "SIMULATOR": (False, "bool", "Serve the simulator page /simulator/ (on in scripts/run-local, off otherwise; "
                                 "404 when off). The app refuses to start with it on unless SLOWSPADES_BIND and "
                                 "SLOWSPADES_PUBLIC_BASE_URL are loopback and no Twilio account is set; it answers "
                                 "loopback clients only."),
    "SHARED_CLOCK": (False, "bool", "Follow the shared clock: real time plus the offset in {clock}:offset, which the "
                                    "simulator's Advance clock and the tests move (on with SLOWSPADES_SIMULATOR and in "
                                    "the tests; set it for an operator command run beside the simulator). Off, the "
                                    "service keeps real time and never reads that key: nothing can move a "
                                    "deployment's time, and a move reads one key less."),
    "BIND": ("127.0.0.1:8000", "str", "Address the web process listens on (the Procfile's gunicorn --bind)."),
    "SPOOL_DIR": ("var/spool", "str", "Directory where the web process keeps (fsync'd) inbound messages it could "
                                      "not hand to Redis, until Redis answers again (service.spool)."),
    "ALIVE_PROBE_EVERY": (10.0, "float", "Seconds between the worker's liveness probes (under service.supervise "
                                         "--alive-file: a worker receiving nothing is restarted)."),
    "APPENDFSYNC": ("everysec", "str", "appendfsync of the Redis that scripts/run-local starts: always, everysec or "
                                       "no (README: what each can lose)."),
    "RULES_URL": ("", "str", "Where the RULES reply points; empty: this service's own /rules page."),
    "METRICS_TOKEN": ("", "str", "Bearer token that GET /metrics (Prometheus) asks for "
                                 "(Authorization: Bearer <token>); empty: /metrics answers 404."),
    "METRICS_PORT": (0, "int", "A Celery worker or beat serves its host's metrics on this port (Prometheus' text "
                               "format, no token: bind it to a private network); 0: none. With "
                               "PROMETHEUS_MULTIPROC_DIR set, every process of the host is counted (docs/operating.md)."),
    "LOG_FORMAT": ("json", "str", "json: every log line is one JSON object (game and message ids, addresses "
                                  "replaced by a keyed hash: docs/operating.md); text: logging as each process sets it."),
    "LOG_LEVEL": ("INFO", "str", "Level of the web process's log lines (gunicorn with --config "
                                 "python:service.gunicorn_conf); a Celery worker or beat: its --loglevel."),
    "LOG_HASH_KEY": ("", "str", "Key of the hash that replaces addresses in the logs (the same in every process "
                                "of a deployment); empty: derived from the Twilio and Mailgun secrets."),
    "FORGET_INACTIVE_DAYS": (0.0, "float", "Players with no game in play and nothing done for this many days are "
                                           "forgotten by `slowspades players forget-inactive` (0: never; "
                                           "docs/operating.md, Forget)."),
    "FORGET_LEDGER": ("", "str", "A file (kept apart from Redis' backups) where each forget appends the keyed hash "
                                 "of the addresses it forgot; `slowspades players forget-ledger` re-applies it after "
                                 "a backup is restored. Empty: none."),
    "DEALER_SEED": ("", "str", "Tests and demos only: make shuffles reproducible. Empty: secure randomness."),
}


for _name, _spec in LIFECYCLE_SETTINGS.items():  # the lifecycle's settings join the table (the README lists them)
    SETTINGS.setdefault(_name, _spec)


def _limit_settings() -> None:
    """The abuse limits' settings (service.limits) join the table too."""
    from .limits import SETTINGS as LIMITS  # here, not at the top: limits imports context, which imports this module

    for name, spec in LIMITS.items():
        SETTINGS.setdefault(name, spec)


_limit_settings()


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
    raw = (os.environ if environ is None else environ).get("SLOWSPADES_" + name)
    return default if raw is None or raw == "" and kind != "str" else _convert(raw, kind)


def load_config(environ: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Settings from ``environ`` (default ``os.environ``), keyed without the ``SLOWSPADES_`` prefix,
    then ``overrides``; derived settings are filled after both."""
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for name in SETTINGS:
        out[name] = setting(name, env)
    out.update(overrides or {})
    return finish_config(out)


def finish_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Fill the derived settings (broker URL, mail domain, Celery's own config); a WHATSAPP_TEMPLATES that does not
    read is refused here, before any message needs it (:class:`service.whatsapp.BadTemplates`), and so is a price
    table (``PRICES_FILE``) that does not (:class:`service.prices.PriceTableError`)."""
    templates(cfg)
    prices(cfg)
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

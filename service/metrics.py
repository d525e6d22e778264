"""Prometheus metrics (``prometheus_client``): what the processes count, and what ``/metrics`` reads from Redis.

Counters and histograms are counted where things happen, in whichever process does them: the webhooks
(:mod:`service.web.metrics`), the moves (``service.games.apply``), the inbound messages handled and their
messages settled into the local outbox (``service.after``), the sending of outbox entries (``service.delivery``),
the abuse limits (``service.limits``), the web spool, the beat's tick and the supervisor's restarts. With
``PROMETHEUS_MULTIPROC_DIR`` set in the environment (before the process starts: gunicorn's workers and Celery's
processes are many processes), each process writes its values into that directory and whoever serves the
metrics adds them up (``prometheus_client.multiprocess``), first folding the files of processes that are gone into
an archive (:mod:`service.metrics_files`); without it, a process counts in memory (the tests).

Gauges of the service's state are read from Redis when ``/metrics`` is scraped (:class:`ServiceState`): unsent
outbox entries and the age of the oldest, the Celery queue's depth, games in play and invitations waiting (a SCAN
of the games, at most once a minute), the day's SMS against ``SMS_DAILY_CAP`` and what they cost (each at its price
in the price table, :mod:`service.prices`) against ``DAILY_SPEND_CAP``.

Names follow Prometheus' conventions: a ``slowspades_`` prefix, the unit in the name (``_seconds``), ``_total``
on counters (the client adds it); labels are words from small fixed sets (a channel, an outcome, a reason, a
provider's error code), never an address, a game id or a message id.
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import Any, Iterable, Iterator, Sized

from celery.signals import beat_init, worker_init
from kombu.exceptions import ChannelError
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .context import Config
from .metrics_files import fold_dead, locked
from .prices import MICROS
from .store import Store
from .store.gauges import Gauges

__all__ = ["CONTENT_TYPE_LATEST", "exposition"]

log = logging.getLogger(__name__)
MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

WEBHOOKS = Counter("slowspades_webhook_requests", "Webhook requests (sms, sms_status, email, email_events) and the game "
                   "page's moves and polls (page_move, page_poll) by outcome: accepted, "
                   "spooled (kept on disk while Redis did not answer), rejected (4xx), error (5xx).",
                   ["channel", "outcome"])
WEBHOOK_SECONDS = Histogram("slowspades_webhook_duration_seconds", "Time a webhook took to answer.", ["channel"],
                            buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
INBOUND = Counter("slowspades_inbound_messages", "Inbound messages handled by the worker, by outcome "
                  "(applied, illegal, invited, started, help...).", ["outcome"])
MOVES_APPLIED = Counter("slowspades_moves_applied", "Moves applied to a game (player: a player's message; service: "
                        "the computer's, AUTO, timeouts and claims).", ["mover"])
MOVES_REFUSED = Counter("slowspades_moves_refused", "Moves the rules refused, by reason (not_your_turn, "
                        "must_follow_suit, game_over...).", ["mover", "reason"])
OUTBOX = Counter("slowspades_outbox_entries", "Outbox entries settled, by channel, outcome (sent, failed, retried) "
                 "and code (the provider's error code; local, cap, country, unsendable...).",
                 ["channel", "outcome", "code"])
INVITATIONS = Counter("slowspades_invitations", "Invitations by what became of them (invited, invite_held, "
                      "started, declined, invite_refused, expired).", ["outcome"])
LIMITS = Counter("slowspades_limits_triggered", "Abuse limits that held something back, by kind (flood, "
                 "invites_day, invites_pending, domain, new_numbers, country, sms_cap; a LINK code: link_country, "
                 "link_bad_number, link_cap, link_limit, link_new_numbers).", ["kind"])
SPOOLED = Counter("slowspades_spooled_messages", "Inbound messages and Twilio delivery receipts the web process "
                  "kept on its disk spool while Redis did not answer.")
RESTARTS = Counter("slowspades_process_restarts", "Processes (web, worker, beat) started again by "
                   "service.supervise, after they died or stopped showing signs of work.", ["process", "why"])
BEAT_TICKS = Counter("slowspades_beat_ticks", "Scans of the due work by the beat's tick task.")
BEAT_LAST = Gauge("slowspades_beat_last_tick_timestamp_seconds", "When the beat's tick task last ran (Unix time).",
                  multiprocess_mode="max")

_WORD = re.compile(r"(?<!^)(?=[A-Z])")


def reason_of(error: Exception) -> str:
    """A rules error's class as a label: ``NotYourTurn`` -> ``not_your_turn``."""
    return _WORD.sub("_", type(error).__name__).lower().removesuffix("_error")


# -- what the processes count (each a dictionary look-up and an add) -----------------------------------------
def webhook(channel: str, outcome: str, seconds: float) -> None:
    WEBHOOKS.labels(channel, outcome).inc()
    WEBHOOK_SECONDS.labels(channel).observe(seconds)


_INVITATION_OUTCOMES = frozenset({"invited", "invite_held", "started", "declined", "invite_refused"})


def handled(outcome: str) -> None:
    """An inbound message handled (``service.after.handle_inbound``'s outcome); an invitation's fate too."""
    INBOUND.labels(outcome).inc()
    if outcome in _INVITATION_OUTCOMES:
        INVITATIONS.labels(outcome).inc()


def invitation(outcome: str) -> None:
    INVITATIONS.labels(outcome).inc()


def mover_of(mover: object) -> str:
    """A mover's class as a label: ``PlayerMove`` -> ``player``, ``ServiceMove`` -> ``service``."""
    return _WORD.sub("_", type(mover).__name__).lower().removesuffix("_move")


def move_applied(mover: object) -> None:
    MOVES_APPLIED.labels(mover_of(mover)).inc()


def move_refused(mover: object, error: Exception) -> None:
    MOVES_REFUSED.labels(mover_of(mover), reason_of(error)).inc()


def outbox(channel: str, outcome: str, code: str = "") -> None:
    OUTBOX.labels(channel or "none", outcome, code).inc()


def settled_local(sent: Iterable[dict[str, Any]], refused: int = 0, code: str = "unsendable") -> None:
    """Entries settled into the local outbox at once (``sent``), and ``refused`` of them marked failed."""
    for entry in sent:
        OUTBOX.labels(entry.get("channel") or "none", "sent", "local").inc()
    if refused:
        OUTBOX.labels("none", "failed", code).inc(refused)


def limit(kind: str, n: int = 1) -> None:
    LIMITS.labels(kind).inc(n)


def spooled() -> None:
    SPOOLED.inc()


def restarted(process: str, why: str) -> None:
    RESTARTS.labels(process, why).inc()


def beat_ticked() -> None:
    BEAT_TICKS.inc()
    BEAT_LAST.set(time.time())


# -- what /metrics reads when it is scraped ---------------------------------------------------------------
class ServiceState(Collector):
    """Gauges read from Redis (and the broker) at each scrape; the games by status at most every
    ``games_every`` seconds (a SCAN of every game)."""

    def __init__(self, config: Config, store: Store, gauges: Gauges, celery: Any, spool: Sized | None = None,
                 games_every: float = 60.0) -> None:
        self.config, self.store, self.gauges = config, store, gauges
        self.celery, self.spool, self.games_every = celery, spool, games_every
        self._games: tuple[float, dict[str, int]] = (float("-inf"), {})

    def games(self) -> dict[str, int]:
        at, counts = self._games
        if time.monotonic() - at >= self.games_every:
            counts = self.gauges.games_by_status()
            self._games = (time.monotonic(), counts)
        return counts

    def queue_depth(self) -> int:
        """Tasks waiting in the app's queue (0 if the broker has no such queue yet: none was ever queued)."""
        queue = str(self.config.get("QUEUE") or "celery")
        with self.celery.connection_for_read() as conn:
            try:
                return int(conn.default_channel.queue_declare(queue=queue, passive=True).message_count)
            except ChannelError:  # no such queue (Redis: nothing queued yet; RabbitMQ: 404)
                return 0

    def collect(self) -> Iterator[GaugeMetricFamily]:
        errors = GaugeMetricFamily("slowspades_state_read_errors", "Parts of the state /metrics could not read "
                                   "at this scrape (Redis or the broker not answering).", labels=["part"])
        backlog = None
        try:
            backlog = self.gauges.outbox_backlog()
        except Exception:  # noqa: BLE001 - a scrape reports what it could read
            errors.add_metric(["outbox"], 1)
        if backlog is not None:
            yield GaugeMetricFamily("slowspades_outbox_unsent_entries", "Outbox entries not yet sent (queued, or "
                                    "being sent).", value=backlog.entries)
            age = 0.0 if backlog.oldest_ms is None else max(0.0, time.time() - backlog.oldest_ms / 1000)
            yield GaugeMetricFamily("slowspades_outbox_oldest_unsent_age_seconds", "Age of the oldest outbox entry "
                                    "not yet sent (0 when none waits).", value=age)
        try:
            yield GaugeMetricFamily("slowspades_task_queue_messages", "Tasks waiting in the Celery queue.",
                                    value=self.queue_depth())
        except Exception:  # noqa: BLE001
            errors.add_metric(["queue"], 1)
        try:
            games = self.games()
            by_status = GaugeMetricFamily("slowspades_games", "Games by status (active: in play; invited: "
                                          "invitations waiting for an answer).", labels=["status"])
            for status in ("active", "invited", "over", "declined", "expired"):
                by_status.add_metric([status], games.get(status, 0))
            yield by_status
        except Exception:  # noqa: BLE001
            errors.add_metric(["games"], 1)
        try:
            sent, spend, capped = self.store.sent_today(time.strftime("%Y%m%d", time.gmtime()))  # limits.day()
            cap = int(self.config.get("SMS_DAILY_CAP") or 0)
            money = float(self.config.get("DAILY_SPEND_CAP") or 0)
            yield GaugeMetricFamily("slowspades_sms_today_messages", "SMS counted toward today's cap (UTC day).",
                                    value=sent)
            yield GaugeMetricFamily("slowspades_sms_daily_cap_messages", "SLOWSPADES_SMS_DAILY_CAP (0: no cap).",
                                    value=cap)
            yield GaugeMetricFamily("slowspades_sms_today_spend", "What today's SMS and WhatsApp messages cost, each "
                                    "at its price in the price table (SLOWSPADES_PRICES_FILE; in its currency).",
                                    value=spend / MICROS)
            yield GaugeMetricFamily("slowspades_sms_daily_cap_spend", "SLOWSPADES_DAILY_SPEND_CAP (0: no money cap).",
                                    value=money)
            yield GaugeMetricFamily("slowspades_sms_cap_reached", "1 once today's SMS reached the daily cap.",
                                    value=1 if capped else 0)
        except Exception:  # noqa: BLE001
            errors.add_metric(["sms"], 1)
        if self.spool is not None:
            yield GaugeMetricFamily("slowspades_spool_messages", "Inbound messages and receipts on this web host's "
                                    "disk spool, waiting for Redis.", value=len(self.spool))
        yield errors


class _Counted(Collector):
    """This process's own metrics (the default registry), when there is no multiprocess directory."""

    def collect(self) -> Iterator[Any]:
        return iter(REGISTRY.collect())


class _Host(Collector):
    """Every process's counts of this host (multiprocess mode): the files of processes that are gone folded into the
    archive first (:func:`service.metrics_files.fold_dead`), then all read under the directory's shared lock."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.inner = multiprocess.MultiProcessCollector(None, path=directory)

    def collect(self) -> Iterator[Any]:
        try:
            fold_dead(self.directory)
        except (OSError, ValueError) as exc:  # a file that does not read: the scrape still answers, with every file
            log.warning("metrics: could not fold the files of gone processes: %s", exc)
        with locked(self.directory, exclusive=False):
            return iter(list(self.inner.collect()))


def registry(state: Collector | None = None) -> CollectorRegistry:
    """A registry of every process's counts (multiprocess mode) or this process's, and ``state`` if given."""
    reg = CollectorRegistry(auto_describe=False)
    if MULTIPROCESS:
        reg.register(_Host(os.environ["PROMETHEUS_MULTIPROC_DIR"]))
    else:
        reg.register(_Counted())
    if state is not None:
        reg.register(state)
    return reg


def exposition(state: Collector | None = None) -> bytes:
    """The text format of :func:`registry`."""
    return bytes(generate_latest(registry(state)))


# -- the worker's and the beat's own port (SLOWSPADES_METRICS_PORT) ----------------------------------------------
def serve(port: int, addr: str = "0.0.0.0") -> None:
    """Serve this host's counts on ``port`` (a thread of this process): for a worker or beat host without a web
    process; the state gauges are the web's ``/metrics``."""
    start_http_server(port, addr=addr, registry=registry())


@worker_init.connect
@beat_init.connect
def _serve_from_celery(sender: Any = None, **_kw: Any) -> None:
    port = int(getattr(getattr(sender, "app", None), "conf", {}).get("slowspades_metrics_port") or 0)
    if port:
        serve(port)

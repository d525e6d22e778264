"""gunicorn's configuration for the web process (``gunicorn -c python:service.gunicorn_conf ...``, the Procfile's):
no control socket; its own log lines (the arbiter's, its workers' and the access log) as JSON lines without
addresses in clear, like the service's (:mod:`service.logs`, ``SLOWSPADES_LOG_FORMAT``); and, with ``PROMETHEUS_MULTIPROC_DIR``, a worker's
live gauges dropped when it exits (:mod:`service.metrics`)."""

from __future__ import annotations

import logging
import os
from typing import Any

from service import logs
from service.config import config_or_exit

_config = config_or_exit()  # a bad setting: one line naming it, and gunicorn does not start
logs.set_key(_config)

# gunicorn 25.1+ opens a control socket at one path per user ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl): two
# services of one user on a host shared it. The service is managed by its supervisor and signals: none.
control_socket_disable = True

if logs.json_lines(_config):
    logging.captureWarnings(True)  # a library's warnings as JSON lines too (py.warnings, below)
    logconfig_dict: dict[str, Any] = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "service.logs.JsonFormatter"}},
        "handlers": {
            "error": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        },
        "root": {"level": str(_config.get("LOG_LEVEL") or "INFO").upper(), "handlers": ["error"]},  # the service's
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["error"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
            "py.warnings": {"level": "WARNING", "handlers": ["error"], "propagate": False},
        },
    }


def child_exit(_server: Any, worker: Any) -> None:
    """A worker exited: its live gauges are no longer counted (multiprocess mode)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # only in multiprocess mode: the directory must be set first

        multiprocess.mark_process_dead(worker.pid)

"""The settings as an operator meets them (issue 44): a misspelt ``SLOWSPADES_*`` name or a value that does not read
stops the web, the worker and the CLI with one line naming the variable (not a traceback, not silently ignored); the
CLI says in one line that Redis does not answer, and prints its version; a forget ledger needs a key of its own.
The real processes are started (gunicorn, a Celery worker, the ``slowspades`` command)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.config import load_config
from tests.safety.redis_proc import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def run(*argv: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    """A command of the service, with ``env`` added to an environment without the tests' own settings."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLOWSPADES_")}
    return subprocess.run(argv, cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=timeout)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


WEB = (str(BIN / "gunicorn"), "--config", "python:service.gunicorn_conf", "--bind", "127.0.0.1:0", "service:create_app()")
WORKER = (str(BIN / "celery"), "-A", "workers.celery_app:celery", "worker", "--loglevel=INFO", "--pool=solo")


@pytest.mark.parametrize("argv", [WEB, WORKER], ids=["web", "worker"])
def test_a_misspelt_setting_stops_the_process_naming_it(argv: tuple[str, ...]) -> None:
    done = run(*argv, SLOWSPADES_SMS_DAILYCAP="5")  # once silently ignored: the cap stayed at its default
    assert done.returncode != 0
    line = one_line(done)
    assert "SLOWSPADES_SMS_DAILYCAP is not a setting" in line and "did you mean SLOWSPADES_SMS_DAILY_CAP?" in line


@pytest.mark.parametrize("argv", [WEB, WORKER], ids=["web", "worker"])
def test_a_value_that_does_not_read_stops_the_process_naming_it(argv: tuple[str, ...]) -> None:
    done = run(*argv, SLOWSPADES_SMTP_PORT="587x")
    assert done.returncode == 78  # sysexits' EX_CONFIG: starting it again cannot help
    assert one_line(done) == "slowspades: not started: SLOWSPADES_SMTP_PORT='587x' is not a whole number"


def test_the_supervisor_does_not_restart_a_process_refused_for_its_settings() -> None:
    """The Procfile's web line, as deployed: the refusal is said once and the supervisor exits, rather than
    starting it again every few seconds."""
    line = next(x.split(":", 1)[1] for x in (ROOT / "Procfile").read_text().splitlines() if x.startswith("web:"))
    done = run("sh", "-c", line, timeout=30, PATH=f"{BIN}:{os.environ.get('PATH', '')}", SLOWSPADES_SMTP_PORT="587x")
    assert done.returncode == 78
    said = [x for x in done.stderr.splitlines() if "SLOWSPADES_SMTP_PORT='587x' is not a whole number" in x]
    assert len(said) == 1, done.stderr


def test_each_kind_of_value_is_checked_and_typed() -> None:
    bad = {"SLOWSPADES_SMTP_STARTTLS": "maybe", "SLOWSPADES_BOT_DELAY": "soon", "SLOWSPADES_LOG_FORMAT": "xml",
           "SLOWSPADES_LIMIT_INVITES_PER_DAY": "ten"}  # the service's own, the lifecycle's, the limits'
    with pytest.raises(ValueError) as refused:
        load_config(environ=bad)
    said = str(refused.value)
    assert "\n" not in said
    for name in bad:
        assert name in said, said
    assert "true or false" in said and "'json' or 'text'" in said
    cfg = load_config(environ={"SLOWSPADES_SMTP_STARTTLS": "off", "SLOWSPADES_BOT_DELAY": "1.5",
                               "SLOWSPADES_SMS_DAILY_CAP": "7", "SLOWSPADES_SMTP_PORT": ""})
    assert (cfg["SMTP_STARTTLS"], cfg["BOT_DELAY"], cfg["SMS_DAILY_CAP"], cfg["SMTP_PORT"]) == (False, 1.5, 7, 587)


def test_the_cli_says_a_bad_setting_and_a_redis_down_in_one_line() -> None:
    slowspades = str(BIN / "slowspades")
    done = run(slowspades, "games", "list", SLOWSPADES_SMTP_PORT="abc")
    assert done.returncode == 2 and one_line(done) == "error: SLOWSPADES_SMTP_PORT='abc' is not a whole number"
    nobody = f"redis://127.0.0.1:{free_port()}/0"  # a port nothing listens on
    done = run(slowspades, "games", "list", "--redis-url", nobody)
    assert done.returncode == 3, done.stderr
    line = one_line(done)
    assert line.startswith("error: Redis does not answer") and nobody not in line
    done = run(slowspades, "--version")
    assert done.returncode == 0 and done.stdout.strip() == "slowspades, version 0.1.0"


def test_a_forget_ledger_needs_a_key_of_its_own(tmp_path: Path) -> None:
    """Without ``SLOWSPADES_LOG_HASH_KEY`` the ledger was keyed by the Twilio and Mailgun secrets: after a token
    rotation a ledger replayed into a restored backup forgot nobody. Now the key is required with a ledger."""
    ledger = tmp_path / "forgotten.ledger"
    ledger.write_text("0" * 64 + "\n")
    with pytest.raises(ValueError, match="SLOWSPADES_LOG_HASH_KEY is required with a forget ledger"):
        load_config(environ={"SLOWSPADES_FORGET_LEDGER": str(ledger), "SLOWSPADES_TWILIO_AUTH_TOKEN": "a-token"})
    assert load_config(environ={"SLOWSPADES_FORGET_LEDGER": str(ledger), "SLOWSPADES_LOG_HASH_KEY": "k" * 32})
    done = run(str(BIN / "slowspades"), "players", "forget-ledger", "--ledger", str(ledger),
               "--redis-url", f"redis://127.0.0.1:{free_port()}/0")
    assert done.returncode == 2 and "SLOWSPADES_LOG_HASH_KEY is required" in one_line(done)

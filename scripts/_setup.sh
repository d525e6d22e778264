# Shared by scripts/run-local and scripts/test: a venv with the project installed, and redis-server present.
# Sourced, not run. Works on a fresh Debian with python3.11 (installs python3-venv / redis-server with apt).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Each module is compiled once and its bytecode kept (in __pycache__, ignored by git), whatever the machine's
# PYTHONDONTWRITEBYTECODE says: with it, every process the service or the tests start (a worker, the web, a CLI, a
# bench) compiled again what it imports, 0.3 s of CPU a process for the project's modules alone
unset PYTHONDONTWRITEBYTECODE

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi
apt_install() {
  echo ">> apt-get install $*" >&2
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.11 python3; do command -v "$c" >/dev/null && { PY="$c"; break; }; done
fi
[ -n "$PY" ] || { echo "python3.11 is needed" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
  if ! "$PY" -m venv .venv 2>/dev/null; then
    rm -rf .venv
    apt_install "python3-venv" || apt_install "python$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv"
    "$PY" -m venv .venv
  fi
fi
# The locked versions (requirements/dev.txt: the runtime's, the tests' and run-local's, each with its hashes; made
# from pyproject.toml by uv pip compile, requirements/README.md), then the project itself without dependencies.
LOCK=requirements/dev.txt
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ] || [ "$LOCK" -nt .venv/.installed ]; then
  # uv installs the same versions as pip (compared with pip freeze) in a fraction of the time: about 21 s against
  # 50 s here, which is most of a fresh clone's set-up; pip does it if uv cannot be had. Not compiled here:
  # compiling every installed package took 10 s of a fresh clone's set-up, and each module is compiled and
  # cached the first time a process imports it (PYTHONDONTWRITEBYTECODE is unset above)
  .venv/bin/python -m pip install -q "uv>=0.13,<0.14" \
    && .venv/bin/uv pip install -q --python .venv/bin/python --require-hashes -r "$LOCK" \
    && .venv/bin/uv pip install -q --python .venv/bin/python --no-deps -e . \
    || { .venv/bin/python -m pip install -q --upgrade pip \
         && .venv/bin/python -m pip install -q --require-hashes -r "$LOCK" \
         && .venv/bin/python -m pip install -q --no-deps -e .; }
  touch .venv/.installed
fi

if ! command -v redis-server >/dev/null; then
  apt_install redis-server
fi
if ! command -v redis-cli >/dev/null; then  # the cluster tests join their nodes with redis-cli --cluster create
  apt_install redis-tools
fi
if ! command -v promtool >/dev/null; then  # tests/ops checks and unit-tests the alert rules (ops/alerts.yml)
  apt_install --no-install-recommends prometheus
fi

# RabbitMQ on 127.0.0.1:5672, for the tests of a worker on RabbitMQ (tests/service/test_cluster_rabbitmq.py):
# installed and started (rabbitmq-server -detached) if it does not answer; returns 1 if it still does not.
rabbitmq_answers() { (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; }
ensure_rabbitmq() {
  rabbitmq_answers && return 0
  if ! command -v rabbitmq-server >/dev/null && [ ! -x /usr/sbin/rabbitmq-server ]; then
    apt_install rabbitmq-server || true
  fi
  local exe; exe="$(command -v rabbitmq-server || echo /usr/sbin/rabbitmq-server)"
  if [ -x "$exe" ]; then
    echo ">> starting RabbitMQ ($exe -detached)" >&2
    $SUDO "$exe" -detached >/dev/null 2>&1 || true
    for _ in $(seq 1 120); do rabbitmq_answers && return 0; sleep 0.5; done
  fi
  echo ">> RabbitMQ does NOT answer on 127.0.0.1:5672 (could not install or start it)" >&2
  return 1
}

# Shared by scripts/run-local and scripts/test: a venv with the project installed, and redis-server present.
# Sourced, not run. Works on a fresh Debian with python3.11 (installs python3-venv / redis-server with apt).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

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
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test]"
  touch .venv/.installed
fi

if ! command -v redis-server >/dev/null; then
  apt_install redis-server
fi

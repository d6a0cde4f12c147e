#!/usr/bin/env bash
# Bring the site up on a fresh machine, in the embedded mode (SQLite, in-memory channel
# layer, bot turns and timeouts on the server's own event loop):
#
#   bash scripts/dev.sh
#
# Creates .venv, installs requirements.txt, migrates, collects static files, prepares the
# demo (player demo / demo-password with a practice table against three bots) and serves
# http://127.0.0.1:8000 with Daphne until Ctrl-C. HOST and PORT change the address;
# DATABASE_URL and REDIS_URL, when set, are used as in production.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
export DEBUG="${DEBUG:-1}"

if [ ! -x .venv/bin/python ]; then
  echo "Creating the virtual environment in .venv"
  "$PYTHON" -m venv .venv
fi
echo "Installing Python packages (requirements.txt)"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
.venv/bin/python manage.py demo --base-url "http://${HOST}:${PORT}"

echo "Serving http://${HOST}:${PORT}/ (Ctrl-C stops)"
exec .venv/bin/daphne --no-server-name -b "$HOST" -p "$PORT" guandan_site.asgi:application

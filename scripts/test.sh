#!/usr/bin/env bash
# Install everything the tests need on a fresh machine and run them all:
#
#   bash scripts/test.sh            # any pytest arguments may follow, e.g. -k lobby
#
# Creates .venv, installs requirements.txt, installs Debian's chromium with apt-get when
# /usr/bin/chromium is missing (browser tests drive it; no browser is ever downloaded by
# Playwright) and Debian's gettext when xgettext is missing (the translation catalogue's
# test extracts every marked string), installs axe-core from npm (package-lock.json) when
# node_modules lacks it, then runs pytest. On the embedded default with nothing set; with
# DATABASE_URL=postgres://... and REDIS_URL=redis://... the same tests run against
# PostgreSQL and Redis, plus those marked postgres and celery.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  echo "Creating the virtual environment in .venv"
  "$PYTHON" -m venv .venv
fi
echo "Installing Python packages (requirements.txt)"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
MISSING=""
if [ ! -x /usr/bin/chromium ]; then MISSING="$MISSING chromium"; fi
# gettext's xgettext and msgmerge: the catalogue test runs makemessages over the site.
if ! command -v xgettext >/dev/null || ! command -v msgmerge >/dev/null; then MISSING="$MISSING gettext"; fi
if [ -n "$MISSING" ]; then
  echo "Installing Debian's$MISSING for the tests"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $MISSING
fi

if [ ! -f node_modules/axe-core/axe.min.js ]; then
  # axe-core (pinned in package.json and package-lock.json) for the accessibility test.
  if ! command -v npm >/dev/null; then
    echo "Installing Debian's npm for the accessibility test"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm
  fi
  npm ci --no-audit --no-fund
fi

exec .venv/bin/pytest "$@"

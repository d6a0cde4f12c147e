"""The realtime benchmark runs briefly end to end on the production setup and exits by
itself, with both of its scripted players' processes choosing moves.

Its forked player processes used to inherit the script's Celery broker connection; one
of them then blocked in kombu's after-fork cleanup, never chose a move, and kept the
script from exiting. A hang here is a failure, not a slow machine: the run takes well
under a minute, so the timeout is generous.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

pytestmark = [pytest.mark.postgres, pytest.mark.celery]

ROOT = Path(__file__).resolve().parents[2]


def _server_url(database_url: str) -> str:
    parts = urlsplit(database_url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def _redis_db(redis_url: str, db: int) -> str:
    parts = urlsplit(redis_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


def test_the_benchmark_runs_briefly_and_exits_by_itself():
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE",)}
    command = [
        sys.executable, "scripts/bench_live.py", "--skip-one-table", "--tables", "3", "--bots", "0",
        "--seconds", "8", "--warmup", "2",
        "--postgres", _server_url(os.environ["DATABASE_URL"]),
        "--redis", _redis_db(os.environ["REDIS_URL"], 12),
    ]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    processes = re.search(r"player processes \(moves chosen by each\)\s+(\d+) \(([\d, ]+)\)", out)
    assert processes, out
    counts = [int(n) for n in processes.group(2).split(",")]
    assert int(processes.group(1)) == 2 and len(counts) == 2 and min(counts) > 0, out
    assert re.search(r"lost updates / doubled updates\s+0 / 0", out), out
    assert re.search(r"bytes a step sends each socket\s+median [\d,]+, p95 [\d,]+", out), out

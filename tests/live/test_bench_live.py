"""The realtime benchmark runs briefly end to end on the production setup and exits by
itself, with both of its scripted players' processes started (each answers before anything
is measured) and moves chosen.

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


def _bench(*arguments: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE",)}
    command = [
        sys.executable, "scripts/bench_live.py", "--skip-one-table", "--bots", "0", *arguments,
        "--postgres", _server_url(os.environ["DATABASE_URL"]),
        "--redis", _redis_db(os.environ["REDIS_URL"], 12),
    ]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)


def test_the_benchmark_runs_briefly_and_exits_by_itself():
    done = _bench("--tables", "3", "--seconds", "8", "--warmup", "2")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    processes = re.search(r"player processes \(moves chosen by each\)\s+(\d+) \(([\d, ]+)\)", out)
    assert processes, out
    counts = [int(n) for n in processes.group(2).split(",")]
    assert int(processes.group(1)) == 2 and len(counts) == 2 and sum(counts) > 0, out
    assert re.search(r"lost updates / doubled updates\s+0 / 0", out), out
    assert re.search(r"bytes a step sends each socket\s+median [\d,]+, p95 [\d,]+", out), out
    assert re.search(r"by region \(share of those bytes\)\s+\w+ \d+%", out), out


def test_the_sweep_reports_the_site_beside_the_floor_within_the_bound():
    """``--sweep`` with ``--floor``: the site and the floor at each table count, then the
    highest rate each sustains within the p95 bound and their ratio."""
    done = _bench("--sweep", "2,3", "--floor", "--seconds", "6", "--warmup", "2", "--p95-limit", "100")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert re.search(r"2 tables\s+[\d.]+/s p95 \d+ ms.* \| [\d.]+/s p95 \d+ ms", out), out
    assert re.search(r"3 tables\s+[\d.]+/s p95 \d+ ms.* \| [\d.]+/s p95 \d+ ms", out), out
    assert re.search(r"site: highest actions/s within the bound\s+[\d.]+", out), out
    assert re.search(r"ratio site / floor\s+\d+\.\d\d", out), out

"""The one-process step benchmark (scripts/bench_step.py) runs end to end on a database of
its own, plays whole deals through the door (settlements and the next deal's opening
included), draws every step for the four pages and prints its figures."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_step_benchmark_plays_deals_and_prints_its_figures():
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL")}
    result = subprocess.run([sys.executable, "scripts/bench_step.py", "--deals", "2", "--rounds", "1"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    out = result.stdout
    assert re.search(r"1 rounds of 2 deals \(\d+ ordinary steps, 2 settlements a round\), SQLite", out), out
    steps, settlement = map(float, re.search(r"statements a step / settlement\s+([\d.]+) / ([\d.]+)", out).groups())
    # The door's lock-and-read and its write; a settlement writes the match, points and records.
    assert steps >= 2 and settlement > steps, out
    for label in ("door, a step, CPU", "opening the next deal, wall", "a page's drawing, CPU", "slowest steps"):
        assert label in out, out
    assert re.search(r"together\s+[\d.]+ / [\d.]+ ms", out), out

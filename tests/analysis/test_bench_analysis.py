"""The analysis benchmark runs and prints its figures (the figures themselves are in the
README, measured; no test times anything)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_prints_a_line_a_deal_and_the_summary():
    run = subprocess.run(
        [sys.executable, "scripts/bench_analysis.py", "--deals", "2", "--samples", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )
    lines = run.stdout.splitlines()
    assert lines[0].startswith("analysis of 2 deals, 2 sampled deals a decision")
    assert sum(line.startswith("deal ") for line in lines) == 2
    assert lines[-1].startswith("median ") and "a deal" in lines[-1]

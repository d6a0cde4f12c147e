"""The conformance command end to end (rules/CONFORMANCE.md), run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_RULES = ROOT.parent / "shared" / "rules"
OWN_OPS = {"readings", "beats", "plays"}


def run_cli(lines: list[str]) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine.conformance"],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True,
        cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(out) == len(lines), proc.stdout
    return out


def test_one_answer_per_line_in_order_and_junk_gets_an_error():
    answers = run_cli([
        json.dumps({"op": "readings", "level": "7", "cards": ["7H", "7H"]}),
        "this is not json",
        json.dumps({"op": "beats", "level": "7", "table": {"shape": "single", "rank": "A"},
                    "cards": ["7S"]}),
        json.dumps([1, 2, 3]),
        json.dumps({"op": "readings", "level": "Z", "cards": ["7H"]}),
        json.dumps({"op": "readings", "level": "7", "cards": ["XX"]}),
        json.dumps({"op": "readings", "level": "7", "cards": ["7S", "7S", "7S"]}),
        json.dumps({"op": "beats", "level": "7", "table": {"shape": "blob"}, "cards": ["7S"]}),
        json.dumps({"op": "nope"}),
        json.dumps({"op": "plays", "level": "7", "hand": ["3S", "3C", "4D", "5S", "6C", "7H"],
                    "table": None}),
    ])
    assert answers[0] == {"readings": [{"shape": "pair", "rank": "7"}]}
    assert "error" in answers[1]
    assert answers[2] == {"beats": True, "readings": [{"shape": "single", "rank": "7"}]}
    for i in (3, 4, 5, 6, 7, 8):
        assert set(answers[i]) == {"error"}, answers[i]
    assert len(answers[9]["plays"]) == 17


def test_plays_cards_are_faces_with_reading_fields():
    [answer] = run_cli([json.dumps({"op": "plays", "level": "7", "hand": ["TD", "JD", "QD", "KD",
                                    "AD", "AS"], "table": {"shape": "straight", "top": "K"}})])
    got = {(tuple(sorted(p["cards"])), p["shape"], p["top"]) for p in answer["plays"]}
    assert got == {
        (("AD", "JD", "KD", "QD", "TD"), "straight_flush", "A"),
        (("AS", "JD", "KD", "QD", "TD"), "straight", "A"),
    }


def test_deal_ops_are_dispatched_or_answered_with_an_error():
    """The deal-level ops live in another module; the command never dies on them."""
    answers = run_cli([
        json.dumps({"op": "settle", "levels": ["2", "2"], "active": "2", "places": [0, 2, 1, 3]}),
        json.dumps({"op": "returns"}),
    ])
    assert all(isinstance(a, dict) and a for a in answers)
    assert "error" in answers[1]


@pytest.mark.skipif(not (SHARED_RULES / "cases.jsonl").exists(), reason="no shared case file")
def test_public_cases_for_readings_beats_and_plays_pass(tmp_path):
    cases = [json.loads(line) for line in (SHARED_RULES / "cases.jsonl").read_text().splitlines()
             if line.strip()]
    own = [c for c in cases if c["request"]["op"] in OWN_OPS]
    assert own
    path = tmp_path / "own.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in own))
    proc = subprocess.run(
        [sys.executable, str(SHARED_RULES / "check.py"), str(path),
         "--cmd", f"{sys.executable} -m games.engine.conformance"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(own)} passed, 0 failed" in proc.stdout

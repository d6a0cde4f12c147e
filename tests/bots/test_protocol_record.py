"""The local protocol arena's record of the games it plays (``scripts/protocol_arena.py
--record``) and the inference measurement over such records
(``scripts/inference_quality.py``)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from games.bots.client import play
from games.engine.deal import apply, new_deal
from games.engine.replay import action_from_json
from tests.live.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import inference_quality  # noqa: E402


def _wait_for(port: int, server: subprocess.Popen) -> None:
    for _ in range(200):
        assert server.poll() is None, server.stderr.read()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the arena did not start")


def test_the_record_replays_to_the_places_it_reports_and_feeds_the_measurement(tmp_path, capsys):
    port = free_port()
    record = tmp_path / "games.jsonl"
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "protocol_arena.py"), "--port", str(port),
         "--deals", "2", "--seed", "7", "--record", str(record)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(port, server)
        clients = [threading.Thread(target=play, args=(f"ws://127.0.0.1:{port}/game/client{n}", "heuristic"),
                                    daemon=True) for n in (1, 2, 3, 4)]
        for client in clients:
            client.start()
        out, err = server.communicate(timeout=120)
    finally:
        server.kill()
    summary = json.loads(out)
    assert summary["games"] == 4 and summary["timeouts_by_seat"] == [0, 0, 0, 0], err
    games = [json.loads(line) for line in record.read_text().splitlines()]
    assert [(g["index"], g["swapped"]) for g in games] == [(0, False), (0, True), (1, False), (1, True)]
    # Deal 1 is a later deal of a match: its returns are in the log (a tribute with one
    # card to choose from is given by the engine itself, R8.3).
    assert games[2]["prev_places"] is not None
    assert {a["kind"] for a in games[2]["actions"]} >= {"return", "play", "pass"}
    wins = 0
    for game in games:
        state = new_deal(hands=game["hands"], level=game["level"], team_levels=(game["level"],) * 2,
                         prev_places=game["prev_places"], seed=game["deal_seed"])
        for data in game["actions"]:
            state = apply(state, action_from_json(data))
        assert state.is_over and list(state.result.places) == game["places"]
        wins += (game["places"][0] & 1) == 0
    assert wins / 4 == summary["team_a_win_rate"]  # team A holds seats 0 and 2

    assert inference_quality.main([str(record), "--deals", "3", "--every", "4"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["positions"] > 10
    for key in ("opponent_chain", "opponent_uniform", "partner_chain", "partner_uniform"):
        assert 20 < report[key] <= 100

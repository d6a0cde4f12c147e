"""The arena: seat-swapped pairs, figures with confidence intervals, crashes apart."""

from __future__ import annotations

from games.bots.arena import deal_setup, main, play_deal, run_arena, summarise
from games.bots.fastsim import level_change


def test_level_change_follows_r7_1():
    assert level_change((0, 2, 1, 3), 0) == 3    # 1-2
    assert level_change((0, 1, 2, 3), 2) == 2    # 1-3
    assert level_change((0, 1, 3, 2), 0) == 1    # 1-4
    assert level_change((1, 3, 0, 2), 0) == -3


def test_swapped_games_use_the_same_cards():
    assert deal_setup(5, 3) == deal_setup(5, 3)
    assert deal_setup(5, 3)[2] is not None and deal_setup(5, 2)[2] is None
    a = play_deal(5, 0, ("greedy", "random"), False, None)
    b = play_deal(5, 0, ("greedy", "random"), True, None)
    assert a.swapped is False and b.swapped is True
    assert a.crashes == {"greedy": 0, "random": 0}


def test_smoke_run_reports_figures():
    report = run_arena("heuristic", "greedy", 3, 1, workers=1, progress=False)
    assert report.pairs == 3 and report.crashed_pairs == 0
    assert 0.0 <= report.win_rate[0] <= 1.0
    text = report.text()
    assert "95% CI" in text and "p95" in text and "crashes" in text


def test_crashes_are_counted_apart(monkeypatch):
    import games.bots.base as base

    def broken(self, seen, rng):
        raise ValueError("R9.1: broken on purpose")

    monkeypatch.setattr(base.GreedyBot, "play", broken)
    outcome = play_deal(2, 0, ("greedy", "random"), False, None)
    assert outcome.crashes["greedy"] > 0
    report = summarise(("greedy", "random"), [(outcome, outcome)], 1.0, None)
    assert report.crashed_pairs == 1 and report.pairs == 1


def test_command_line_runs(capsys):
    assert main(["--a", "greedy", "--b", "random", "--deals", "2", "--workers", "1"]) == 0
    assert "A wins the deal" in capsys.readouterr().out

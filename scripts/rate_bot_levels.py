"""The bots' fixed ratings (R10.10), measured with the site's own team rating model.

    .venv/bin/python scripts/rate_bot_levels.py --deals 300            # play the arena games
    .venv/bin/python scripts/rate_bot_levels.py --result easy:normal:0.135:1000 \\
        --result normal:hard:0.398:1000                                  # or use recorded ones

The levels are the table's bots: easy (greedy), normal (heuristic), hard (expert). Each
pairing's games are seat-swapped arena deals (``games.bots.arena``); ``--result A:B:RATE:PAIRS``
gives one already measured (A's deal win rate over PAIRS deal pairs). The ratings are
those under which openskill's Plackett-Luce model, with the site's parameters
(``games.players.rating.MODEL``) and each bot's small uncertainty, predicts each pairing's
win rate: a weighted least-squares fit of the rating differences, normal held at 1500.
Prints the table for games/bots/README.md and the values for ``rating.BOT_MU``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LEVELS = ("easy", "normal", "hard")
BOTS = {"easy": "greedy", "normal": "heuristic", "hard": "expert"}


def predicted(difference: float) -> float:
    """Team A's deal win chance by the model when each of its two bots is rated
    ``difference`` above each of team B's."""
    from games.players.rating import BOT_SIGMA, Skill, win_chance

    a, b = Skill(1500 + difference, BOT_SIGMA), Skill(1500, BOT_SIGMA)
    return win_chance([a, b, a, b])


def difference_for(rate: float) -> float:
    """The rating difference the model needs to predict ``rate`` (bisection: the model's
    win chance grows with the difference)."""
    rate = min(max(rate, 0.001), 0.999)
    low, high = -3000.0, 3000.0
    for _ in range(100):
        middle = (low + high) / 2
        if predicted(middle) < rate:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def fit(results: list[tuple[str, str, float, int]]) -> dict[str, float]:
    """Ratings of the levels, normal at 1500: least squares over the pairings' rating
    differences, each weighted by its deal pairs."""
    unknown = [level for level in LEVELS if level != "normal"]
    # Normal equations of sum w * (mu_a - mu_b - d)^2 over the unknowns (2 x 2).
    matrix = [[0.0, 0.0], [0.0, 0.0]]
    vector = [0.0, 0.0]
    for a, b, rate, pairs in results:
        d = difference_for(rate)
        row = [(1.0 if u == a else 0.0) - (1.0 if u == b else 0.0) for u in unknown]
        constant = (1500.0 if a == "normal" else 0.0) - (1500.0 if b == "normal" else 0.0)
        for i in range(2):
            for j in range(2):
                matrix[i][j] += pairs * row[i] * row[j]
            vector[i] += pairs * row[i] * (d - constant)
    det = matrix[0][0] * matrix[1][1] - matrix[0][1] * matrix[1][0]
    if abs(det) < 1e-9:
        raise SystemExit("the pairings do not connect easy, normal and hard")
    x0 = (vector[0] * matrix[1][1] - matrix[0][1] * vector[1]) / det
    x1 = (matrix[0][0] * vector[1] - matrix[1][0] * vector[0]) / det
    return {"easy": x0, "normal": 1500.0, "hard": x1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--result", action="append", default=[], help="A:B:RATE:PAIRS, a measured pairing")
    parser.add_argument("--deals", type=int, default=200, help="deal pairs per pairing, when playing them")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--samples", type=int, default=None, help="the expert's sample cap (arena --samples)")
    args = parser.parse_args()
    results = []
    for text in args.result:
        a, b, rate, pairs = text.split(":")
        results.append((a, b, float(rate), int(pairs)))
    if not results:
        from games.bots.arena import run_arena

        for a, b in (("easy", "normal"), ("normal", "hard"), ("easy", "hard")):
            report = run_arena(BOTS[a], BOTS[b], args.deals, args.seed, workers=args.workers, samples=args.samples)
            results.append((a, b, report.win_rate[0], report.pairs - report.crashed_pairs))
            print(report.text(), file=sys.stderr)
    ratings = fit(results)
    print("| pairing | deal pairs | A's deal win rate | the model's, at the fitted ratings |")
    print("| --- | --- | --- | --- |")
    for a, b, rate, pairs in results:
        model = predicted(ratings[a] - ratings[b])
        print(f"| {a} vs {b} | {pairs} | {100 * rate:.1f}% | {100 * model:.1f}% |")
    print()
    print("| level | bot | rating |")
    print("| --- | --- | --- |")
    for level in LEVELS:
        print(f"| {level} | {BOTS[level]} | {round(ratings[level])} |")
    print("\nBOT_MU = {" + ", ".join(f'"{level}": {round(ratings[level])}.0' for level in LEVELS) + "}")


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")
    main()

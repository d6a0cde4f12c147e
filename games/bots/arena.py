"""Bot against bot over many deals, each played twice with the teams swapped.

    python -m games.bots.arena --a expert --b heuristic --deals 1000 --seed 1

Deal ``i`` deals the cards of a seed drawn from ``--seed``, at a level drawn from the
same seed; every other deal is played as a later deal of a match (a previous finishing
order drawn from the seed), so tribute and return (R8) are played too. Each deal is
played twice with the same cards: bot A in seats 1 and 3, then in seats 2 and 4. Bots
see only their seat's view (``engine.views.view_for``).

Printed per pairing: A's deal win rate ("beats in a deal": A's team takes 1st, R6.6),
A's mean level change per deal (R7.1: +3/+2/+1 for a win, the negative for a loss),
each with a 95% confidence interval over the seat-swapped pairs, and each bot's move
time p50 / p95 / max (play decisions, tribute and return included). A bot that raises or
returns an illegal action is a crash: the engine's automatic action is played instead,
and the deal is counted apart (not as a loss).

Runs on ``--workers`` processes (default 2), prints progress to stderr, and stops
early (reporting what it has) after ``--max-minutes``.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field

from games.engine.deal import apply, deal_hands, new_deal, timeout_action
from games.engine.errors import RuleError
from games.engine.views import view_for

from .registry import get_bot
from .fastsim import level_change

__all__ = ["DealOutcome", "play_deal", "run_arena", "main", "deal_setup"]


@dataclass(slots=True)
class DealOutcome:
    """One deal played once: A's level change and win, move times, crashes."""

    index: int
    swapped: bool
    a_change: int
    a_won: bool
    crashes: dict[str, int] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)


def deal_setup(seed: int, index: int) -> tuple[tuple, int, tuple | None, int]:
    """Cards, level, previous places (or None) and the deal's own seed for deal ``index``."""
    deal_seed = random.Random(seed * 1_000_003 + index).getrandbits(48)
    rng = random.Random(deal_seed ^ 0x5A5A)
    level = rng.randrange(13)
    prev = None
    if index % 2 == 1:
        order = [0, 1, 2, 3]
        rng.shuffle(order)
        prev = tuple(order)
    return deal_hands(deal_seed), level, prev, deal_seed


def play_deal(seed: int, index: int, names: tuple[str, str], swapped: bool,
              budget_ms: float | None, samples: int | None = None) -> DealOutcome:
    """Play deal ``index`` once; bot A (``names[0]``) sits in seats 0 and 2, or 1 and 3
    when ``swapped``."""
    hands, level, prev, deal_seed = deal_setup(seed, index)
    bots = {name: get_bot(name, budget_ms=budget_ms, samples=samples) for name in names}
    seat_name = [names[(s + (1 if swapped else 0)) % 2] for s in range(4)]
    state = new_deal(hands=hands, level=level, team_levels=(level, level), prev_places=prev,
                     seed=deal_seed)
    outcome = DealOutcome(index, swapped, 0, False, {n: 0 for n in names}, {n: [] for n in names})
    move_no = 0
    while not state.is_over:
        seat = state.to_act[0]
        name = seat_name[seat]
        view = view_for(state, seat)
        started = time.perf_counter()
        try:
            action = bots[name].choose(view, rng_seed=deal_seed + move_no)
            elapsed = time.perf_counter() - started
            new_state = apply(state, action)
        except (RuleError, ValueError, AssertionError, KeyError, IndexError, TypeError) as error:
            elapsed = time.perf_counter() - started
            outcome.crashes[name] += 1
            print(f"crash: {name} on deal {index} seat {seat}: {error!r}", file=sys.stderr)
            new_state = apply(state, timeout_action(state, seat))
        outcome.times[name].append(elapsed)
        state = new_state
        move_no += 1
    places = state.result.places  # type: ignore[union-attr]
    a_seat = 1 if swapped else 0
    outcome.a_change = level_change(places, a_seat)
    outcome.a_won = (places[0] & 1) == (a_seat & 1)
    return outcome


def _pair_task(args: tuple) -> tuple[DealOutcome, DealOutcome]:
    seed, index, names, budget_ms, samples = args
    return (play_deal(seed, index, names, False, budget_ms, samples),
            play_deal(seed, index, names, True, budget_ms, samples))


def _mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal confidence interval."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(slots=True)
class ArenaReport:
    names: tuple[str, str]
    pairs: int
    crashed_pairs: int
    win_rate: tuple[float, float]
    level_change: tuple[float, float]
    crashes: dict[str, int]
    times: dict[str, tuple[float, float, float, int]]
    seconds: float
    budget_ms: float | None
    samples: int | None = None

    def text(self) -> str:
        a, b = self.names
        lines = [
            f"{a} (A) vs {b} (B): {self.pairs} deals, each played twice with the teams "
            f"swapped ({2 * self.pairs} games)"
            + ("" if "expert" not in self.names and "hard" not in self.names else
               f"; expert budget {'none' if self.budget_ms is None else f'{self.budget_ms:g} ms'} a move"
               + ("" if self.samples is None else f", at most {self.samples} sampled deals a move")),
            f"A wins the deal: {100 * self.win_rate[0]:.1f}% +/- {100 * self.win_rate[1]:.1f}% (95% CI)",
            f"A mean level change per deal: {self.level_change[0]:+.3f} +/- {self.level_change[1]:.3f} (95% CI)",
            "crashes: " + ", ".join(f"{n} {c}" for n, c in self.crashes.items())
            + f" (deal pairs with a crash, left out of the figures: {self.crashed_pairs})",
        ]
        for name, (p50, p95, most, count) in self.times.items():
            lines.append(f"move time {name}: p50 {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, "
                         f"max {most * 1000:.2f} ms over {count} moves")
        lines.append(f"wall time {self.seconds:.0f} s")
        return "\n".join(lines)


def run_arena(a: str, b: str, deals: int, seed: int, *, workers: int = 2,
              budget_ms: float | None = None, max_minutes: float | None = None,
              progress: bool = True, samples: int | None = None) -> ArenaReport:
    """Play ``deals`` seat-swapped deal pairs and summarise (module doc)."""
    names = (a, b)
    started = time.perf_counter()
    tasks = [(seed, i, names, budget_ms, samples) for i in range(deals)]
    results: list[tuple[DealOutcome, DealOutcome]] = []
    step = max(1, deals // 20)
    if workers > 1:
        ctx = multiprocessing.get_context("fork")
        pool = ctx.Pool(workers)
        iterator = pool.imap_unordered(_pair_task, tasks)
    else:
        pool = None
        iterator = map(_pair_task, tasks)
    try:
        for pair in iterator:
            results.append(pair)
            elapsed = time.perf_counter() - started
            if progress and (len(results) % step == 0 or len(results) == deals):
                wins = sum(o.a_won for p in results for o in p)
                print(f"[{len(results)}/{deals}] {elapsed:.0f}s A won {wins}/{2 * len(results)} games",
                      file=sys.stderr, flush=True)
            if max_minutes is not None and elapsed > max_minutes * 60:
                print(f"stopping after {max_minutes} minutes", file=sys.stderr, flush=True)
                break
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return summarise(names, results, time.perf_counter() - started, budget_ms, samples)


def summarise(names: tuple[str, str], results: list[tuple[DealOutcome, DealOutcome]],
              seconds: float, budget_ms: float | None, samples: int | None = None) -> ArenaReport:
    crashes = {n: 0 for n in names}
    times: dict[str, list[float]] = {n: [] for n in names}
    wins: list[float] = []
    changes: list[float] = []
    crashed_pairs = 0
    for pair in results:
        crashed = False
        for outcome in pair:
            for n in names:
                crashes[n] += outcome.crashes.get(n, 0)
                times[n].extend(outcome.times.get(n, []))
                crashed = crashed or outcome.crashes.get(n, 0) > 0
        if crashed:
            crashed_pairs += 1
            continue
        wins.append(sum(o.a_won for o in pair) / 2)
        changes.append(sum(o.a_change for o in pair) / 2)
    summary = {n: (_percentile(v, 0.5), _percentile(v, 0.95), max(v) if v else 0.0, len(v))
               for n, v in times.items()}
    if names[0] == names[1]:
        summary = {names[0]: summary[names[0]]}
    return ArenaReport(names, len(results), crashed_pairs, _mean_ci(wins), _mean_ci(changes),
                       crashes, summary, seconds, budget_ms, samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="bot A (random, greedy, heuristic, expert, or easy/normal/hard)")
    parser.add_argument("--b", required=True, help="bot B")
    parser.add_argument("--deals", type=int, default=100, help="deals, each played twice (seats swapped)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget-ms", type=float, default=300.0, help="expert time per move")
    parser.add_argument("--samples", type=int, default=None,
                        help="expert: at most this many sampled deals a move (with the budget)")
    parser.add_argument("--max-minutes", type=float, default=None, help="stop early after this long")
    args = parser.parse_args(argv)
    report = run_arena(args.a, args.b, args.deals, args.seed, workers=args.workers,
                       budget_ms=args.budget_ms, max_minutes=args.max_minutes,
                       samples=args.samples)
    print(report.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

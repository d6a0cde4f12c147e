"""How long one deal's analysis (复盘) takes, on one core.

    taskset -c 0 .venv/bin/python scripts/bench_analysis.py --deals 10

Plays ``--deals`` deals with the heuristic bot (one seat careless: a random legal move in
play, so there are mistakes to find, as in a real deal), half of them later deals with
tribute and return, then analyses each with the site's default evaluation
(``games.bots.analysis.analyse``, the samples the replay's analysis uses) and prints, per
deal, its decisions, how many were judged and the time taken (wall and CPU), then the
median and the maximum. The analysis runs in one thread: ``taskset -c 0`` keeps it, and
anything else this script does, on one core.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots.advice import ADVICE_SAMPLES
from games.bots.analysis import analyse
from games.bots.registry import get_bot
from games.engine.deal import apply, legal_actions
from games.engine.views import view_for
from tests.bots.helpers import deal_state


def played_deal(seed: int):
    state = deal_state(seed, tribute=seed % 2 == 1)
    bot, rng = get_bot("normal"), random.Random(seed)
    states, actions = [], []
    while not state.is_over:
        seat = state.to_act[0]
        if seat == seed % 4 and state.phase == "play":
            action = rng.choice(legal_actions(state, seat))
        else:
            action = bot.choose(view_for(state, seat), rng_seed=len(actions))
        states.append(state)
        actions.append(action)
        state = apply(state, action)
    return states, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=ADVICE_SAMPLES)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"analysis of {args.deals} deals, {args.samples} sampled deals a decision, on {cores} core(s)")
    walls, cpus = [], []
    for number in range(args.deals):
        seed = args.seed + number
        states, actions = played_deal(seed)
        wall, cpu = time.perf_counter(), time.process_time()
        result = analyse(states, actions, samples=args.samples, rng_seed=0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        walls.append(wall)
        cpus.append(cpu)
        judged = sum(d.mark != "only" for d in result.decisions)
        marks = sum(d.mark in ("mistake", "blunder") for d in result.decisions)
        print(f"deal {seed}: {len(actions)} decisions, {judged} judged, {marks} mistakes or blunders: "
              f"{wall:.2f} s ({cpu:.2f} s CPU)")
    print(f"median {statistics.median(walls):.2f} s, max {max(walls):.2f} s a deal "
          f"(CPU median {statistics.median(cpus):.2f} s, max {max(cpus):.2f} s)")


if __name__ == "__main__":
    main()

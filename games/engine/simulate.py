"""Whole deals and matches between simple legal agents, for tests and measurements.

    python -m games.engine.simulate --matches 20 --seed 1

The agents are deliberately simple: a seat in the play phase picks uniformly among
``plays.lean_plays`` (the lean generator covers every reading) and, when following,
passes now and then even when it could beat (R6.2 allows it). Tributes and returns make
the automatic choice of ``deal.timeout_action`` (R8.3, R8.4). Every action goes through
``deal.apply``, so a simulation is also a long consistency check of the engine.

>>> final = simulate_deal(3)
>>> final.is_over, sorted(final.result.places)
(True, [0, 1, 2, 3])
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from typing import Sequence

from .deal import (
    BOT, PASS, PHASE_PLAY, PLAY, Action, DealState, apply, deal_hands, new_deal,
    partner_of, timeout_action,
)
from .match import Match, next_deal, record, start_match
from .plays import lean_plays

__all__ = ["agent_action", "play_out", "simulate_deal", "simulate_match", "main"]

# How often a follower passes although it holds a beating play (R6.2).
PASS_RATE = 0.25
# A match between these agents ends well before this; the bound only guards the loop.
MAX_DEALS = 10_000


def agent_action(state: DealState, seat: int, rng: random.Random,
                 pass_rate: float = PASS_RATE) -> Action:
    """The simple agent's action for ``seat`` (which must be one of ``state.to_act``)."""
    if state.phase != PHASE_PLAY:
        return timeout_action(state, seat).as_actor(BOT)
    top = state.top.reading if state.top is not None else None
    plays = lean_plays(state.hands[seat], state.level, top)
    if top is not None and (not plays or rng.random() < pass_rate):
        return Action(PASS, seat, actor=BOT)
    play = plays[rng.randrange(len(plays))]
    return Action(PLAY, seat, play.cards, play.reading, actor=BOT)


def play_out(state: DealState, rng: random.Random,
             pass_rate: float = PASS_RATE) -> tuple[DealState, list[Action]]:
    """Play ``state`` to the end with the simple agents; return the final state and the
    action log that leads there from ``state``."""
    log: list[Action] = []
    while not state.is_over:
        seat = state.to_act[0]
        action = agent_action(state, seat, rng, pass_rate)
        state = apply(state, action)
        log.append(action)
    return state, log


def simulate_deal(seed: int) -> DealState:
    """Deal ``seed`` as a match's first deal and play it out (lean generator); return the
    final state. Used by the engine benchmark."""
    state = new_deal(hands=deal_hands(seed), level=0, team_levels=(0, 0),
                     prev_places=None, seed=seed)
    final, _ = play_out(state, random.Random(seed))
    return final


def simulate_match(seed: int) -> Match:
    """Play a whole match from ``seed`` with the simple agents; return the final match."""
    match = start_match(seed)
    rng = random.Random(seed)
    while not match.is_over:
        if match.deals_played >= MAX_DEALS:
            raise RuntimeError("the match did not end")
        final, _ = play_out(next_deal(match), rng)
        match = record(match, final)
    return match


def _summary(matches: Sequence[Match], seconds: float) -> str:
    deals = sum(m.deals_played for m in matches)
    wins = Counter(m.winner for m in matches)
    finishes: Counter[str] = Counter()
    first_seat: Counter[int] = Counter()
    for m in matches:
        for result in m.results:
            first = result.places[0]
            first_seat[first] += 1
            finishes[f"1-{result.places.index(partner_of(first)) + 1}"] += 1
    lines = [
        f"matches: {len(matches)}   deals: {deals}   time: {seconds:.2f} s   "
        f"deals/second: {deals / seconds if seconds else float('inf'):.1f}   "
        f"ms/deal: {1000 * seconds / deals if deals else 0:.2f}",
        f"matches won: team A {wins[0]}, team B {wins[1]}",
        f"mean deals per match: {deals / len(matches) if matches else 0:.1f}",
        "finishes (1st and partner): " + ", ".join(
            f"{k} {finishes[k]} ({100 * finishes[k] / deals if deals else 0:.0f}%)"
            for k in ("1-2", "1-3", "1-4")),
        "1st place by seat: " + ", ".join(f"seat {s + 1} {first_seat[s]}" for s in range(4)),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10, help="how many matches to play")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first match")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    matches = [simulate_match(args.seed + i) for i in range(args.matches)]
    seconds = time.perf_counter() - start
    print(_summary(matches, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())

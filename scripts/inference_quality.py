#!/usr/bin/env python
"""How close the expert's sampled deals come to the real hidden hands, over recorded games.

    .venv/bin/python scripts/inference_quality.py GAMES.jsonl [--seats 0,2] [--deals 10] [--every 3]

``GAMES.jsonl`` is what ``scripts/protocol_arena.py --record`` writes (the setup and the
actions of every game). Each game is replayed with the engine; at every ``--every``-th
play decision of the seats named by ``--seats`` (team A's seats, 0 and 2, by default), the
seat's own view is handed to ``inference.DealSampler`` and ``--deals`` deals are drawn, as
the expert would draw them. For each other seat, the share of its real cards the sampled
hand holds, rank by rank (natural cards per rank, and heart level cards as a rank of their
own): the sum over ranks of the smaller of the two counts, over the hand's size. Printed
per kind of seat (the opponents, the partner) for the chain and for uniform deals of the
same cards (what the expert drew before inference), with the positions counted and the
seconds the chain took. Different likelihoods or settings are compared on the same
records, so the figures differ only by the sampler.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.bots import inference  # noqa: E402
from games.bots.expert import sample_deal  # noqa: E402
from games.bots.model import rank_counts  # noqa: E402
from games.bots.view import Seen  # noqa: E402
from games.engine.deal import apply, new_deal  # noqa: E402
from games.engine.replay import action_from_json  # noqa: E402
from games.engine.views import view_for  # noqa: E402


def share(sampled: list[int], real: list[int], level: int) -> float:
    """The share of ``real`` that ``sampled`` holds, rank by rank (wilds as a rank)."""
    if not real:
        return 1.0
    a, aw = rank_counts(sampled, level)
    b, bw = rank_counts(real, level)
    common = sum(min(x, y) for x, y in zip(a, b)) + min(aw, bw)
    return common / len(real)


def positions(path: str, seats: set[int], every: int):
    """(Seen, real hands) at every ``every``-th play decision of ``seats``."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            game = json.loads(line)
            state = new_deal(hands=game["hands"], level=game["level"],
                             team_levels=(game["level"], game["level"]),
                             prev_places=game["prev_places"], seed=game["deal_seed"])
            count = 0
            for data in game["actions"]:
                action = action_from_json(data)
                if state.phase == "play" and action.seat in seats:
                    count += 1
                    if count % every == 0:
                        seen = Seen.from_view(view_for(state, action.seat))
                        if any(m.seat != action.seat for m in seen.history):
                            yield seen, [list(h) for h in state.hands]
                state = apply(state, action)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games")
    parser.add_argument("--seats", default="0,2", help="the seats whose decisions are sampled")
    parser.add_argument("--deals", type=int, default=10, help="sampled deals per position")
    parser.add_argument("--every", type=int, default=3, help="sample every N-th decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--beta", type=float, default=inference.BETA)
    args = parser.parse_args(argv)
    seats = {int(s) for s in args.seats.split(",")}
    rng = random.Random(args.seed)
    sums = {(kind, how): [0.0, 0] for kind in ("opponent", "partner") for how in ("chain", "uniform")}
    chain_seconds = 0.0
    n_positions = 0
    for seen, real in positions(args.games, seats, args.every):
        n_positions += 1
        started = time.perf_counter()
        sampler = inference.DealSampler(seen, rng, beta=args.beta)
        chain = [sampler.next_deal() for _ in range(args.deals)]
        chain_seconds += time.perf_counter() - started
        uniform = [sample_deal(seen, rng) for _ in range(args.deals)]
        for s in range(4):
            if s == seen.seat or not real[s]:
                continue
            kind = "partner" if s == seen.partner else "opponent"
            for how, deals in (("chain", chain), ("uniform", uniform)):
                acc = sums[(kind, how)]
                for deal in deals:
                    acc[0] += share(deal[s], real[s], seen.level)
                    acc[1] += 1
    report = {"positions": n_positions, "deals_per_position": args.deals, "beta": args.beta,
              "chain_ms_per_position": round(1000 * chain_seconds / max(1, n_positions), 1)}
    for (kind, how), (total, n) in sums.items():
        report[f"{kind}_{how}"] = round(100 * total / max(1, n), 2)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

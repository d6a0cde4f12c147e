"""Speed figures of the combination core.

    python -m games.engine.bench [--quick] [--seed N]

Prints medians over many timed runs (the whole run stays well under a minute; ``--quick``
is a smoke run of a second or two):

- readings per second of ``readings_of`` on random selections of 1-10 cards holding 0-2
  wilds, and on selections that are legal plays (the slower, accepted path);
- milliseconds to list every distinct lead of a random 27-card hand (``legal_plays``);
- milliseconds to list the plays that beat a random top play (``legal_plays``);
- milliseconds to list the lean leads (``lean_plays``);
- milliseconds per full simulated deal with the lean generator, when
  ``games.engine.simulate`` is available.

Targets: at least 50,000 readings per second; a full lead list in 10 ms or less.
Figures depend on the machine; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Callable

from .combos import readings_of, wild_ids
from .plays import lean_plays, legal_plays
from .reading import Reading

_clock = time.perf_counter


def _random_selection(rng: random.Random) -> tuple[list[int], int]:
    """1-10 distinct cards, 0-2 of them the level's wilds."""
    level = rng.randrange(13)
    wilds = list(wild_ids(level))
    n_wild = rng.randint(0, 2)
    size = rng.randint(max(1, n_wild), 10)
    others = [i for i in range(108) if i not in wilds]
    cards = rng.sample(others, size - n_wild) + wilds[:n_wild]
    rng.shuffle(cards)
    return cards, level


def _random_hand(rng: random.Random) -> tuple[list[int], int]:
    return rng.sample(range(108), 27), rng.randrange(13)


def _rate(batch: list[tuple[list[int], int]], runs: int) -> float:
    """Median calls per second of readings_of over ``runs`` passes of the batch."""
    rates = []
    for _ in range(runs):
        start = _clock()
        for cards, level in batch:
            readings_of(cards, level)
        rates.append(len(batch) / (_clock() - start))
    return statistics.median(rates)


def _median_ms(samples: list[Callable[[], object]], repeat: int = 3) -> tuple[float, float]:
    """Median and 90th-percentile milliseconds per call (each sample timed ``repeat``
    times, keeping its best, so a stray pause does not count against the code)."""
    times = []
    for call in samples:
        best = float("inf")
        for _ in range(repeat):
            start = _clock()
            call()
            best = min(best, _clock() - start)
        times.append(best * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


def _random_top(rng: random.Random) -> tuple[Reading, int]:
    """A top play as a trick would show it: a random lead of a random hand."""
    hand, level = _random_hand(rng)
    plays = legal_plays(hand, level, None)
    return rng.choice(plays).reading, level


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--seed", type=int, default=20240501)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    quick = args.quick
    hands = 30 if quick else 400
    runs = 3 if quick else 15

    print(f"python {sys.version.split()[0]}, seed {args.seed}{', quick' if quick else ''}")

    batch = [_random_selection(rng) for _ in range(2000 if quick else 20000)]
    print(f"readings_of, random 1-10 cards, 0-2 wilds: {_rate(batch, runs):,.0f} per second")
    legal_batch = []
    while len(legal_batch) < (500 if quick else 5000):
        hand, level = _random_hand(rng)
        plays = legal_plays(hand, level, None)
        for play in rng.sample(plays, min(20, len(plays))):
            legal_batch.append((list(play.cards), level))
    print(f"readings_of, selections that are legal plays: {_rate(legal_batch, runs):,.0f} per second")

    deals = [_random_hand(rng) for _ in range(hands)]
    counts = [len(legal_plays(h, lv, None)) for h, lv in deals]
    med, p90 = _median_ms([lambda h=h, lv=lv: legal_plays(h, lv, None) for h, lv in deals])
    print(f"legal_plays, every distinct lead of a 27-card hand: median {med:.2f} ms, "
          f"p90 {p90:.2f} ms ({statistics.median(counts):.0f} plays median, {max(counts)} max)")

    follows = []
    for hand, level in deals:
        top, _ = _random_top(rng)
        follows.append((hand, level, top))
    med, p90 = _median_ms([lambda h=h, lv=lv, t=t: legal_plays(h, lv, t) for h, lv, t in follows])
    print(f"legal_plays, plays beating a random top play: median {med:.3f} ms, p90 {p90:.3f} ms")

    lean_counts = [len(lean_plays(h, lv, None)) for h, lv in deals]
    med, p90 = _median_ms([lambda h=h, lv=lv: lean_plays(h, lv, None) for h, lv in deals])
    print(f"lean_plays, leads of a 27-card hand: median {med:.2f} ms, p90 {p90:.2f} ms "
          f"({statistics.median(lean_counts):.0f} plays median)")
    med, p90 = _median_ms([lambda h=h, lv=lv, t=t: lean_plays(h, lv, t) for h, lv, t in follows])
    print(f"lean_plays, plays beating a random top play: median {med:.3f} ms, p90 {p90:.3f} ms")

    try:
        from .simulate import simulate_deal
    except ImportError:
        print("simulated deal with lean plays: n/a (simulate not available)")
        return 0
    seeds = list(range(3 if quick else 40))
    budget_end = _clock() + (5 if quick else 30)
    times = []
    for seed in seeds:
        start = _clock()
        simulate_deal(seed)
        times.append((_clock() - start) * 1000)
        if _clock() > budget_end:
            break
    print(f"simulated deal with lean plays: median {statistics.median(times):.1f} ms per deal "
          f"({len(times)} deals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

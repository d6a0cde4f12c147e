"""Pairing a round (R13.3), as plain Python over entrant ids.

Round 1 is drawn at random from the tournament's seed; later rounds are Swiss: pairs
with the closest totals meet, and no two pairs meet twice while that can be avoided. An
odd pair out plays the bot pair (R13.1), which is ranked below everyone, so in a Swiss
round it meets the lowest pair that has not met it yet.

Each table is ``(ns, ew)``: ``ns`` sits in seats 1 and 3, ``ew`` in seats 2 and 4. The
higher ranked pair takes seats 1 and 3 unless it has sat there more often than its
opponent, so directions even out over the rounds.

>>> first_round([1, 2, 3, 4, 5], seed=3, bot=99)
[(2, 3), (4, 1), (5, 99)]
>>> swiss([1, 2, 3, 4], met={frozenset((1, 2)), frozenset((3, 4))})
[(1, 3), (2, 4)]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["first_round", "swiss", "PairingError"]

# Candidates tried before the search gives up on a round with no repeat meeting and
# falls back to the fewest repeats (a search this long has never been needed in
# practice: see tests/tournaments/test_pairing.py).
SEARCH_BUDGET = 200_000


class PairingError(ValueError):
    """The entrants cannot be paired (an odd number with no bot pair)."""


def _orient(pairs: Iterable[tuple[int, int]], ns_count: Mapping[int, int]) -> list[tuple[int, int]]:
    out = []
    for high, low in pairs:
        if ns_count.get(high, 0) > ns_count.get(low, 0):
            high, low = low, high
        out.append((high, low))
    return out


def first_round(entrants: Sequence[int], *, seed: int, bot: int | None = None) -> list[tuple[int, int]]:
    """Round 1 (R13.3): the entrants in an order drawn from ``seed``, met two by two; with
    an odd number the last one drawn plays the bot pair (R13.1)."""
    order = list(entrants)
    random.Random(f"pairing:{seed}:1").shuffle(order)
    if len(order) % 2:
        if bot is None:
            raise PairingError("R13.1: an odd number of pairs needs the bot pair")
        order.append(bot)
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)]


def swiss(ranking: Sequence[int], *, met: set[frozenset[int]], bot: int | None = None,
          ns_count: Mapping[int, int] | None = None) -> list[tuple[int, int]]:
    """A Swiss round (R13.3): ``ranking`` lists the entrants best first; each meets the
    closest one below it it has not met (``met``: pairs of ids that met already),
    searching further down, and back up the list, only as far as needed to avoid a
    repeat. When no pairing without a repeat exists, the one closest to the ranking with
    the fewest repeats is taken. The bot pair (R13.1) goes last."""
    order = list(ranking)
    if len(order) % 2:
        if bot is None:
            raise PairingError("R13.1: an odd number of pairs needs the bot pair")
        order.append(bot)
    counts = ns_count or {}
    found = _without_repeats(order, met)
    if found is None:
        found = _fewest_repeats(order, met)
    return _orient(found, counts)


class _OutOfBudget(Exception):
    pass


def _without_repeats(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """The first pairing in ranking order (each entrant with the closest one allowed)
    that repeats no meeting, or None when none exists (or the search ran too long)."""
    budget = [SEARCH_BUDGET]

    def search(remaining: list[int]) -> list[tuple[int, int]] | None:
        if not remaining:
            return []
        first = remaining[0]
        for index in range(1, len(remaining)):
            other = remaining[index]
            budget[0] -= 1
            if budget[0] < 0:
                raise _OutOfBudget
            if frozenset((first, other)) in met:
                continue
            rest = search(remaining[1:index] + remaining[index + 1:])
            if rest is not None:
                return [(first, other), *rest]
        return None

    try:
        return search(order)
    except _OutOfBudget:
        return None


def _fewest_repeats(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]]:
    """Top down, each entrant meets the closest one below it it has not met, else the
    closest one (a repeat that could not be avoided)."""
    remaining = list(order)
    out = []
    while remaining:
        first = remaining.pop(0)
        index = next((i for i, other in enumerate(remaining) if frozenset((first, other)) not in met), 0)
        out.append((first, remaining.pop(index)))
    return out

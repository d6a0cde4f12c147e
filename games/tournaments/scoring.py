"""Scoring a tournament (R13.4) and its standings, as a pure function of the stored board
results. Plain Python: no Django, no database; ``games.tournaments.selectors`` reads the
results from the deals the tables played.

A pair's result on a board is R7.1's level change from its side, signed: +3, +2 or +1
when it took 1st (partner 2nd, 3rd or 4th), -3, -2 or -1 when its opponents did.

Duplicate pairs: on each board a pair is compared with every pair that held the same
seats' cards at the other tables: 2 match points for each one it outscored, 1 for each
tie. Its score is its match points as a percentage of the most it could have had.
Plain pairs: its score is the sum of its signed results.

Standings: by score, then the sum of the scores of the opponents met (one term per
meeting), then head to head (the signed results against the other pairs of the tie, on
the boards played against them); pairs still equal share the place. The bot pair
(R13.1) is scored like any pair, so it counts as a comparison and as an opponent, but
it is not ranked.

The worked example of the rules page, one board at four tables:

>>> results = [BoardResult(1, 1, 1, ns=1, ew=2, ns_score=3), BoardResult(1, 1, 2, ns=3, ew=4, ns_score=1),
...            BoardResult(1, 1, 3, ns=5, ew=6, ns_score=1), BoardResult(1, 1, 4, ns=7, ew=8, ns_score=-2)]
>>> [(c.entrant, c.score, c.match_points) for c in compare(results)[(1, 1)] if c.direction == "ns"]
[(1, 3, 6), (3, 1, 3), (5, 1, 3), (7, -2, 0)]
>>> [(s.entrant, s.rank, str(s.score)) for s in standings(results, range(1, 9))][:3]
[(1, 1, '100'), (8, 1, '100'), (3, 3, '50')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

__all__ = ["DUPLICATE", "PLAIN", "BoardResult", "Comparison", "Standing", "compare", "standings"]

DUPLICATE = "duplicate"
PLAIN = "plain"
POINTS_OUTSCORED = 2  # R13.4: match points for each pair outscored
POINTS_TIED = 1  # R13.4: ... and for each tie
NO_COMPARISON = Fraction(50)  # the percentage of a pair that had no one to be compared with


@dataclass(frozen=True)
class BoardResult:
    """One table's result on one board: which pairs sat where and the signed result of
    the pair in seats 1 and 3 (R13.4). ``marked``: the pairs the autopilot played on the
    board (R13.5): their results count, and the pages mark them."""

    round: int
    board: int
    table: int
    ns: int
    ew: int
    ns_score: int
    marked: frozenset[int] = field(default=frozenset())

    def __post_init__(self):
        if self.ns_score not in (-3, -2, -1, 1, 2, 3):
            raise ValueError(f"R13.4: a board's result is +3, +2, +1, -1, -2 or -3, not {self.ns_score!r}")
        if self.ns == self.ew:
            raise ValueError("R13.3: a pair does not meet itself")


@dataclass(frozen=True)
class Comparison:
    """One pair's result on one board, compared with the same seats at the other tables
    (duplicate), or alone (plain: ``match_points`` and ``top`` are 0)."""

    round: int
    board: int
    table: int
    entrant: int
    opponent: int
    direction: str  # "ns" (seats 1 and 3) or "ew" (seats 2 and 4)
    score: int
    match_points: int
    top: int
    marked: bool


@dataclass(frozen=True)
class Standing:
    """One ranked pair: its place (pairs still equal share it), score (a percentage for
    duplicate, the sum of signed results for plain), match points and the most it could
    have had (duplicate), the tie-breaks, and how many boards it played."""

    entrant: int
    rank: int
    score: Fraction
    match_points: int
    top: int
    opponents_score: Fraction
    head_to_head: int
    boards: int
    shared: bool = False


def compare(results: Iterable[BoardResult], fmt: str = DUPLICATE) -> dict[tuple[int, int], list[Comparison]]:
    """Every board's comparisons, keyed by (round, board), tables in order, each table's
    pair in seats 1 and 3 then the pair in seats 2 and 4."""
    if fmt not in (DUPLICATE, PLAIN):
        raise ValueError(f"R13.1: the format is duplicate or plain, not {fmt!r}")
    by_board: dict[tuple[int, int], list[BoardResult]] = defaultdict(list)
    for result in results:
        by_board[(result.round, result.board)].append(result)
    out: dict[tuple[int, int], list[Comparison]] = {}
    for key in sorted(by_board):
        rows = sorted(by_board[key], key=lambda r: r.table)
        if len({r.table for r in rows}) != len(rows):
            raise ValueError(f"R13.2: round {key[0]} board {key[1]} has two results at one table")
        ns_scores = [r.ns_score for r in rows]
        compared = []
        for result in rows:
            for direction, entrant, opponent, score, field_scores in (
                ("ns", result.ns, result.ew, result.ns_score, ns_scores),
                ("ew", result.ew, result.ns, -result.ns_score, [-s for s in ns_scores]),
            ):
                points = top = 0
                if fmt == DUPLICATE:
                    others = list(field_scores)
                    others.remove(score)  # the other tables' results in the same seats
                    points = sum(POINTS_OUTSCORED if score > other else POINTS_TIED if score == other else 0
                                 for other in others)
                    top = POINTS_OUTSCORED * len(others)
                compared.append(Comparison(result.round, result.board, result.table, entrant, opponent, direction,
                                           score, points, top, entrant in result.marked))
        out[key] = compared
    return out


def standings(results: Iterable[BoardResult], entrants: Iterable[int], *, fmt: str = DUPLICATE,
              unranked: Iterable[int] = ()) -> list[Standing]:
    """The standings (R13.4) of ``entrants`` from the board results: best first, the
    ``unranked`` (the bot pair, R13.1) scored but left out."""
    results = list(results)
    entrants = list(dict.fromkeys(entrants))
    unranked = set(unranked)
    points: dict[int, int] = defaultdict(int)
    tops: dict[int, int] = defaultdict(int)
    totals: dict[int, int] = defaultdict(int)
    boards: dict[int, int] = defaultdict(int)
    meetings: dict[int, list[int]] = defaultdict(list)  # one entry per round met
    against: dict[tuple[int, int], int] = defaultdict(int)  # signed results of a against b
    seen_meetings: set[tuple[int, int, int]] = set()
    for compared in compare(results, fmt).values():
        for c in compared:
            points[c.entrant] += c.match_points
            tops[c.entrant] += c.top
            totals[c.entrant] += c.score
            boards[c.entrant] += 1
            against[(c.entrant, c.opponent)] += c.score
            if (c.round, c.entrant, c.opponent) not in seen_meetings:
                seen_meetings.add((c.round, c.entrant, c.opponent))
                meetings[c.entrant].append(c.opponent)

    def score_of(entrant: int) -> Fraction:
        if fmt == PLAIN:
            return Fraction(totals[entrant])
        if not tops[entrant]:
            return NO_COMPARISON
        return Fraction(100 * points[entrant], tops[entrant])

    scores = {e: score_of(e) for e in set(entrants) | set(unranked) | set(meetings)}
    opponents = {e: sum((scores.get(o, Fraction(0)) for o in meetings[e]), Fraction(0)) for e in scores}
    ranked = [e for e in entrants if e not in unranked]
    # Head to head among the pairs still equal on score and opponents' scores.
    groups: dict[tuple[Fraction, Fraction], list[int]] = defaultdict(list)
    for e in ranked:
        groups[(scores[e], opponents[e])].append(e)
    head = {e: sum(against[(e, o)] for o in group if o != e) for group in groups.values() for e in group}
    order = sorted(ranked, key=lambda e: (-scores[e], -opponents[e], -head[e], e))
    out = []
    previous_key, rank = None, 0
    keys = [(scores[e], opponents[e], head[e]) for e in order]
    for index, (entrant, key) in enumerate(zip(order, keys)):
        if key != previous_key:
            rank = index + 1
            previous_key = key
        shared = keys.count(key) > 1
        out.append(Standing(entrant, rank, scores[entrant], points[entrant], tops[entrant], opponents[entrant],
                            head[entrant], boards[entrant], shared))
    return out

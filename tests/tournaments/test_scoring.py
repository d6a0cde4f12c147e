"""Scoring (R13.4) as a pure function, against worked examples computed by hand below
(each with its arithmetic written out), and its invariants."""

import doctest
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments import scoring
from games.tournaments.scoring import PLAIN, BoardResult, compare, standings


def test_the_docstring_examples_run():
    result = doctest.testmod(scoring)
    assert result.failed == 0 and result.attempted > 0


def table(entrant_rows):
    return [(s.entrant, s.rank, s.score, s.shared) for s in entrant_rows]


def test_duplicate_with_ties():
    """One board at three tables. Seats 1 & 3 scored +2, +2, -1; seats 2 & 4 therefore
    -2, -2, +1.

    Seats 1 & 3: table 1 ties table 2 (1) and outscores table 3 (2): 3 of 4 = 75%; table
    2 the same; table 3 outscores no one: 0 of 4 = 0%.
    Seats 2 & 4: table 1 ties table 2 (1), is outscored by table 3: 1 of 4 = 25%; table 2
    the same; table 3 outscores both: 4 of 4 = 100%.

    Standings: pair 6 (100%); pairs 1 and 3 (75%, opponents 25% each, never met) share
    2nd; pairs 2 and 4 (25%, opponents 75% each) share 4th; pair 5 (0%) is 6th."""
    results = [BoardResult(1, 1, 1, ns=1, ew=2, ns_score=2), BoardResult(1, 1, 2, ns=3, ew=4, ns_score=2),
               BoardResult(1, 1, 3, ns=5, ew=6, ns_score=-1)]
    points = {(c.entrant): (c.match_points, c.top) for c in compare(results)[(1, 1)]}
    assert points == {1: (3, 4), 3: (3, 4), 5: (0, 4), 2: (1, 4), 4: (1, 4), 6: (4, 4)}
    assert table(standings(results, range(1, 7))) == [
        (6, 1, 100, False), (1, 2, 75, True), (3, 2, 75, True), (2, 4, 25, True), (4, 4, 25, True), (5, 6, 0, False)]


def test_duplicate_with_a_bot_pair():
    """Three pairs and the bot pair (99), two boards at two tables: pairs 1 (seats 1 & 3)
    against 2 at table 1, pair 3 (seats 1 & 3) against the bot pair at table 2.

    Board 1: seats 1 & 3 scored +3 at table 1, +1 at table 2. Pair 1 outscores pair 3:
    2 of 2; pair 3: 0 of 2. Seats 2 & 4 scored -3 and -1: pair 2 0 of 2, the bot pair 2
    of 2.
    Board 2: seats 1 & 3 scored -1 at both tables: pairs 1 and 3 tie, 1 of 2 each; seats
    2 & 4 scored +1 at both: pair 2 and the bot pair 1 of 2 each.

    Pair 1: 3 of 4 = 75%. Pair 2: 1 of 4 = 25%. Pair 3: 1 of 4 = 25%. The bot pair: 3 of
    4 = 75%, not ranked (R13.1), but counted: pair 3's comparisons include pair 1's,
    pair 2's include the bot pair's, and pair 3's opponent score is the bot pair's 75%.
    Pairs 2 and 3 are equal on score (25%) and on opponents (75% each: pair 1, the bot
    pair) and never met: they share 2nd."""
    results = [BoardResult(1, 1, 1, ns=1, ew=2, ns_score=3), BoardResult(1, 1, 2, ns=3, ew=99, ns_score=1),
               BoardResult(1, 2, 1, ns=1, ew=2, ns_score=-1), BoardResult(1, 2, 2, ns=3, ew=99, ns_score=-1)]
    ranked = standings(results, [1, 2, 3, 99], unranked=[99])
    assert table(ranked) == [(1, 1, 75, False), (2, 2, 25, True), (3, 2, 25, True)]
    assert [(s.match_points, s.top, s.opponents_score) for s in ranked] == [(3, 4, 25), (1, 4, 75), (1, 4, 75)]
    assert 99 not in [s.entrant for s in ranked]


def test_plain_totals_break_ties_by_the_opponents_met():
    """Plain pairs, four pairs, two rounds of one board.

    Round 1: pair 1 +2 against pair 2 (-2); pair 3 -1 against pair 4 (+1).
    Round 2: pair 1 -3 against pair 4 (+3); pair 2 +1 against pair 3 (-1).
    Totals: pair 4 +4, pair 1 -1, pair 2 -1, pair 3 -2.
    Pairs 1 and 2 tie on -1: pair 1 met pairs 2 (-1) and 4 (+4): +3; pair 2 met pairs 1
    (-1) and 3 (-2): -3. Pair 1 is 2nd, pair 2 3rd."""
    results = [BoardResult(1, 1, 1, ns=1, ew=2, ns_score=2), BoardResult(1, 1, 2, ns=3, ew=4, ns_score=-1),
               BoardResult(2, 1, 1, ns=1, ew=4, ns_score=-3), BoardResult(2, 1, 2, ns=2, ew=3, ns_score=1)]
    ranked = standings(results, [1, 2, 3, 4], fmt=PLAIN)
    assert table(ranked) == [(4, 1, 4, False), (1, 2, -1, False), (2, 3, -1, False), (3, 4, -2, False)]
    assert [s.opponents_score for s in ranked[1:3]] == [3, -3]


def test_plain_head_to_head_settles_what_the_opponents_do_not():
    """Four pairs, three rounds: everyone meets everyone, so (plain results summing to
    zero) two pairs equal on total are equal on their opponents' totals too.

    Round 1: pair 1 +1 against pair 2; pair 3 +2 against pair 4.
    Round 2: pair 3 +3 against pair 1; pair 2 +2 against pair 4.
    Round 3: pair 1 +2 against pair 4; pair 3 +1 against pair 2.
    Totals: pair 1 +1 -3 +2 = 0; pair 2 -1 +2 -1 = 0; pair 3 +2 +3 +1 = +6; pair 4 -6.
    Opponents: pair 1: 0 + 6 - 6 = 0; pair 2: 0 + 6 - 6 = 0. Head to head: pair 1 beat
    pair 2 by +1: pair 1 is 2nd, pair 2 3rd."""
    results = [BoardResult(1, 1, 1, ns=1, ew=2, ns_score=1), BoardResult(1, 1, 2, ns=3, ew=4, ns_score=2),
               BoardResult(2, 1, 1, ns=3, ew=1, ns_score=3), BoardResult(2, 1, 2, ns=2, ew=4, ns_score=2),
               BoardResult(3, 1, 1, ns=1, ew=4, ns_score=2), BoardResult(3, 1, 2, ns=3, ew=2, ns_score=1)]
    ranked = standings(results, [1, 2, 3, 4], fmt=PLAIN)
    assert table(ranked) == [(3, 1, 6, False), (1, 2, 0, False), (2, 3, 0, False), (4, 4, -6, False)]
    assert (ranked[1].opponents_score, ranked[2].opponents_score) == (0, 0)
    assert (ranked[1].head_to_head, ranked[2].head_to_head) == (1, -1)


def test_marked_results_count_and_stay_marked():
    results = [BoardResult(1, 1, 1, ns=1, ew=2, ns_score=1, marked=frozenset({2})),
               BoardResult(1, 1, 2, ns=3, ew=4, ns_score=-2)]
    compared = {c.entrant: c for c in compare(results)[(1, 1)]}
    assert compared[2].marked and not compared[1].marked
    assert compared[2].match_points == 0 and compared[4].match_points == 2


def test_bad_results_are_refused_with_the_rule():
    with pytest.raises(ValueError, match="R13.4"):
        BoardResult(1, 1, 1, ns=1, ew=2, ns_score=0)
    with pytest.raises(ValueError, match="R13.3"):
        BoardResult(1, 1, 1, ns=1, ew=1, ns_score=1)
    with pytest.raises(ValueError, match="R13.2"):
        compare([BoardResult(1, 1, 1, ns=1, ew=2, ns_score=1), BoardResult(1, 1, 1, ns=3, ew=4, ns_score=1)])
    with pytest.raises(ValueError, match="R13.1"):
        compare([], "swiss")


SCORES = st.sampled_from([-3, -2, -1, 1, 2, 3])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(SCORES, min_size=2, max_size=6), min_size=1, max_size=4))
def test_match_points_are_shared_out_exactly(boards):
    """Each comparison of two tables hands out 2 match points between them (2-0 or 1-1),
    so seats 1 & 3 share T(T-1) points on a board of T tables; percentages stay within
    0-100, and a better score never ranks lower."""
    results = []
    for board, scores in enumerate(boards, start=1):
        for t, score in enumerate(scores, start=1):
            results.append(BoardResult(1, board, t, ns=100 * t + 1, ew=100 * t + 2, ns_score=score))
    compared = compare(results)
    for (round_, board), rows in compared.items():
        tables = len(boards[board - 1])
        for direction in ("ns", "ew"):
            assert sum(c.match_points for c in rows if c.direction == direction) == tables * (tables - 1)
    ranked = standings(results, {r.ns for r in results} | {r.ew for r in results})
    assert all(Fraction(0) <= s.score <= 100 for s in ranked)
    for better, worse in zip(ranked, ranked[1:]):
        assert better.score >= worse.score and better.rank <= worse.rank


def test_the_rules_pages_worked_example_is_what_the_scoring_gives():
    from games.rules.rulebook import DUPLICATE_EXAMPLE, DUPLICATE_EXAMPLE_TOP

    results = [BoardResult(1, 1, t, ns=2 * t - 1, ew=2 * t, ns_score=ns) for t, ns, _p, _ew, _q in DUPLICATE_EXAMPLE]
    compared = {(c.table, c.direction): c for c in compare(results)[(1, 1)]}
    for t, ns, ns_points, ew, ew_points in DUPLICATE_EXAMPLE:
        assert (compared[(t, "ns")].score, compared[(t, "ns")].match_points) == (ns, ns_points)
        assert (compared[(t, "ew")].score, compared[(t, "ew")].match_points) == (ew, ew_points)
        assert compared[(t, "ns")].top == DUPLICATE_EXAMPLE_TOP

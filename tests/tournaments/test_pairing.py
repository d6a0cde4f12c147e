"""Pairing (R13.3): round 1 at random from the seed, then Swiss without repeat meetings
while they can be avoided; the odd pair out plays the bot pair (R13.1)."""

import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments import pairing
from games.tournaments.pairing import PairingError, first_round, swiss


def test_the_docstring_examples_run():
    result = doctest.testmod(pairing)
    assert result.failed == 0 and result.attempted > 0


def everyone_once(tables, entrants):
    seated = [e for table in tables for e in table]
    return sorted(seated) == sorted(entrants)


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=2, max_value=40), st.integers(min_value=0, max_value=10**9))
def test_round_one_is_drawn_from_the_seed(count, seed):
    entrants = list(range(1, count + 1))
    bot = 999 if count % 2 else None
    tables = first_round(entrants, seed=seed, bot=bot)
    assert tables == first_round(entrants, seed=seed, bot=bot)
    assert everyone_once(tables, entrants + ([bot] if bot else []))
    assert sum(bot in t for t in tables) == (1 if bot else 0)


def test_an_odd_number_needs_the_bot_pair():
    with pytest.raises(PairingError, match="R13.1"):
        first_round([1, 2, 3], seed=1)
    with pytest.raises(PairingError, match="R13.1"):
        swiss([1, 2, 3], met=set())


def test_swiss_pairs_neighbours_and_avoids_repeats():
    # 1 and 2 met already: 1 meets 3, and 2 meets 4.
    assert swiss([1, 2, 3, 4], met={frozenset((1, 2))}) == [(1, 3), (2, 4)]
    # The search goes back up the list when the bottom would have to repeat: 3-4 met, so
    # 1-2 then 3-4 is no good; 1-3 and 2-4 is.
    assert swiss([1, 2, 3, 4], met={frozenset((3, 4))}) == [(1, 3), (2, 4)]


def test_a_repeat_is_taken_only_when_unavoidable():
    # Four pairs after three rounds have all met: round 4 must repeat.
    met = {frozenset(p) for p in [(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)]}
    tables = swiss([1, 2, 3, 4], met=met)
    assert everyone_once(tables, [1, 2, 3, 4])


def test_the_bot_pair_meets_the_lowest_pair_it_has_not_met():
    met = {frozenset((5, 99))}
    tables = swiss([1, 2, 3, 4, 5], met=met, bot=99)
    assert (4, 99) in tables or (99, 4) in tables


def test_directions_even_out():
    # Pair 1 has sat in seats 1 & 3 twice, pair 2 never: pair 2 takes them now.
    assert swiss([1, 2], met=set(), ns_count={1: 2, 2: 0}) == [(2, 1)]


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=3, max_value=12), st.integers(min_value=0, max_value=10**6))
def test_swiss_rounds_never_repeat_while_pairs_remain(half, seed):
    """With 2n pairs, n-1 Swiss rounds after a random first can always avoid repeats
    (R13.3), whatever the scores."""
    rng = random.Random(seed)
    entrants = list(range(1, 2 * half + 1))
    met = {frozenset(t) for t in first_round(entrants, seed=seed)}
    for _round in range(half - 1):
        ranking = sorted(entrants, key=lambda _e: rng.random())
        tables = swiss(ranking, met=met)
        assert everyone_once(tables, entrants)
        new = {frozenset(t) for t in tables}
        assert not new & met
        met |= new


def test_five_hundred_and_twelve_pairs_pair_without_repeats():
    entrants = list(range(512))
    met = {frozenset(t) for t in first_round(entrants, seed=4)}
    rng = random.Random(4)
    for _round in range(6):
        tables = swiss(sorted(entrants, key=lambda _e: rng.random()), met=met)
        new = {frozenset(t) for t in tables}
        assert len(new) == 256 and not new & met
        met |= new

"""Settlement (R7, R9.6) and the match: levels, active level, tribute carried (R2.2, R8)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from games.engine.cards import rank_index as r
from games.engine.deal import DealResult, PHASE_OVER, deal_hands, new_deal, settle
from games.engine.match import Match, deal_seed, next_deal, record, start_match
from games.engine.simulate import play_out, simulate_match


def levels(a: str, b: str) -> tuple[int, int]:
    return (r(a), r(b))


# --- R7.1 promotion -------------------------------------------------------------------


@pytest.mark.parametrize("places, advance", [
    ((0, 2, 1, 3), 3),  # partner 2nd: double-down
    ((0, 1, 2, 3), 2),  # partner 3rd
    ((0, 1, 3, 2), 1),  # partner 4th
])
def test_winners_advance_by_partner_place_r7_1(places, advance):
    s = settle(levels("2", "2"), r("2"), places)
    assert s.winner_team == 0 and s.advance == advance
    assert s.levels == (advance, 0) and not s.match_over


def test_winners_advance_from_their_own_level_r7_1():
    s = settle(levels("4", "8"), r("8"), (0, 1, 2, 3))
    assert s.levels == levels("6", "8")
    s = settle(levels("4", "8"), r("8"), (3, 1, 0, 2))  # team B wins 1-2 at its 8
    assert s.levels == levels("4", "J") and s.winner_team == 1


def test_settlement_explains_in_words_r9_6():
    s = settle(levels("8", "5"), r("8"), (2, 0, 1, 3))
    assert s.explanation == "Team A finished 1-2: +3, 8 -> J"
    s = settle(levels("8", "9"), r("9"), (1, 3, 0, 2))
    assert s.explanation == "Team B finished 1-2: +3, 9 -> Q"
    s = settle(levels("T", "9"), r("T"), (0, 1, 3, 2))
    assert s.explanation == "Team A finished 1-4: +1, 10 -> J"


# --- R7.2 cap at A --------------------------------------------------------------------


def test_levels_cap_at_ace_and_reaching_it_is_no_win_r7_2():
    s = settle(levels("K", "5"), r("K"), (0, 2, 1, 3))
    assert s.levels == levels("A", "5") and s.advance == 3 and not s.match_over
    s = settle(levels("K", "5"), r("K"), (0, 1, 2, 3))
    assert s.levels == levels("A", "5") and not s.match_over
    assert s.explanation.endswith("K +2 reaches A, not a match win")


# --- R7.3 winning the match -----------------------------------------------------------


@pytest.mark.parametrize("places", [(0, 2, 1, 3), (0, 1, 2, 3)])
def test_first_with_partner_second_or_third_at_own_ace_wins_r7_3(places):
    s = settle(levels("A", "5"), r("A"), places)
    assert s.match_over and s.levels == levels("A", "5") and s.winner_team == 0
    assert "match won" in s.explanation


def test_one_four_at_ace_stays_on_ace_r7_3():
    s = settle(levels("A", "5"), r("A"), (0, 1, 3, 2))
    assert not s.match_over and s.levels == levels("A", "5") and s.advance == 1
    assert s.explanation.endswith("1-4 at A: stay on A")


def test_at_ace_but_playing_another_level_is_no_win_r7_3():
    s = settle(levels("A", "9"), r("9"), (0, 2, 1, 3))
    assert not s.match_over and s.levels == levels("A", "9")


def test_team_b_wins_the_match_r7_3():
    s = settle(levels("3", "A"), r("A"), (3, 1, 0, 2))
    assert s.match_over and s.winner_team == 1 and s.advance == 3


def test_losers_keep_their_level_r7_1():
    s = settle(levels("A", "Q"), r("Q"), (1, 3, 0, 2))
    assert s.levels == levels("A", "A") and not s.match_over  # B reaches A (R7.2)


def test_settle_refuses_bad_places():
    with pytest.raises(ValueError):
        settle(levels("2", "2"), r("2"), (0, 0, 1, 2))


# --- the match ------------------------------------------------------------------------


def finished(state, places):
    """A deal of ``state`` that ended with these places (the play itself is not the
    point of these tests)."""
    return dataclasses.replace(state, phase=PHASE_OVER, turn=None, result=DealResult(
        places, settle(state.team_levels, state.level, places)))


def test_match_starts_at_two_and_first_deal_has_no_tribute_r2_1_r2_2():
    match = start_match(5)
    assert match.team_levels == (0, 0) and match.active_level == 0 and match.prev_places is None
    state = next_deal(match)
    assert state.level == 0 and state.tribute.kind == "none" and state.seed == deal_seed(match)
    assert state.dealt == deal_hands(deal_seed(match))


def test_next_deal_plays_the_level_of_the_team_that_took_first_r2_2():
    match = start_match(5)
    match = record(match, finished(next_deal(match), (1, 3, 0, 2)))  # team B 1-2: 2 -> 5
    assert match.team_levels == levels("2", "5") and match.active_level == r("5")
    assert match.prev_places == (1, 3, 0, 2)
    state = next_deal(match)
    assert state.level == r("5") and state.team_levels == levels("2", "5")
    # R8.2: places 1-2 last deal, so a double tribute (or resistance) now.
    assert state.tribute.kind == "double"
    match = record(match, finished(state, (0, 1, 3, 2)))  # team A 1-4 at B's level
    assert match.team_levels == levels("3", "5") and match.active_level == r("3")
    assert next_deal(match).tribute.kind == "single"


def test_one_four_at_ace_plays_ace_again_r7_3():
    match = Match(seed=1, team_levels=levels("A", "6"), active_level=r("A"),
                  prev_places=(0, 1, 2, 3))
    match = record(match, finished(next_deal(match, seed=3), (2, 1, 3, 0)))  # 1-4
    assert not match.is_over and match.active_level == r("A") and match.team_levels == levels("A", "6")
    match = record(match, finished(next_deal(match, seed=4), (0, 3, 2, 1)))
    assert match.is_over and match.winner == 0
    with pytest.raises(ValueError):
        next_deal(match)


def test_record_refuses_unfinished_or_foreign_deals_r6_6():
    match = start_match(2)
    state = next_deal(match)
    with pytest.raises(ValueError):
        record(match, state)
    other = new_deal(hands=deal_hands(9), level=r("5"), team_levels=(0, 0), prev_places=None, seed=9)
    with pytest.raises(ValueError):
        record(match, finished(other, (0, 1, 2, 3)))


def test_deal_seeds_are_reproducible():
    assert deal_seed(start_match(3), 4) == deal_seed(start_match(3), 4)
    assert deal_seed(start_match(3), 4) != deal_seed(start_match(3), 5)


def test_a_played_match_is_consistent_r7():
    match = simulate_match(21)
    assert match.is_over and match.results[-1].settlement.match_over
    assert not any(res.settlement.match_over for res in match.results[:-1])
    before = (0, 0)
    for res in match.results:
        assert res.settlement.levels_before == before
        before = res.settlement.levels
    assert match.team_levels == before and match.team_levels[match.winner] == r("A")


def test_a_played_match_replays_deal_by_deal():
    rng = random.Random(4)
    match = start_match(4)
    for _ in range(3):
        state, log = play_out(next_deal(match), rng)
        match = record(match, state)
    assert match.deals_played == 3
    assert all(len(set(res.places)) == 4 for res in match.results)

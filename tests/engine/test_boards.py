"""Boards (R13.2): deals fixed in advance, drawn from one seed, played as single deals."""

import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import boards as boards_module
from games.engine.boards import BOARD_LEVELS, Board, board_deal, make_board, make_boards
from games.engine.cards import ACE
from games.engine.deal import PHASE_PLAY, deal_hands, first_leader, new_deal
from games.engine.replay import fold
from games.engine.simulate import play_out


def test_the_docstring_examples_run():
    result = doctest.testmod(boards_module)
    assert result.failed == 0 and result.attempted > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=1, max_value=12))
def test_boards_are_reproducible_full_deals_with_no_tribute(seed, count):
    drawn = make_boards(seed, count)
    assert drawn == make_boards(seed, count)
    assert [b.number for b in drawn] == list(range(1, count + 1))
    assert len({b.seed for b in drawn}) == count
    for board in drawn:
        assert sorted(c for hand in board.hands for c in hand) == list(range(108))
        assert board.level in BOARD_LEVELS and board.level < ACE  # R13.2: a board is no match at A
        state = board_deal(board)
        # R13.2: no tribute, both teams at the board's level, the board's seat leads.
        assert state.phase == PHASE_PLAY and state.tribute.kind == "none"
        assert state.team_levels == (board.level, board.level) and state.level == board.level
        assert state.turn == board.leader == state.lead_seat
        assert state.prev_places is None


def test_a_board_replays_as_an_ordinary_first_deal():
    """The row a table stores for a board (hands, level, both team levels, no previous
    places, seed) rebuilds the very same first state (R11.1)."""
    board = make_board(12345, 4)
    state = board_deal(board)
    rebuilt = new_deal(hands=board.hands, level=board.level, team_levels=(board.level, board.level),
                       prev_places=None, seed=board.seed)
    assert rebuilt == state
    final, log = play_out(state, random.Random(3))
    assert fold(rebuilt, log) == final and final.is_over


def test_hands_and_lead_follow_the_seed():
    board = make_board(99)
    assert board.hands == deal_hands(99) and board.leader == first_leader(99)


def test_a_board_whose_lead_is_not_its_seeds_is_refused():
    board = make_board(5)
    forged = Board(board.number, board.seed, board.hands, board.level, (board.leader + 1) % 4)
    with pytest.raises(ValueError, match="R13.2"):
        board_deal(forged)


def test_no_boards_is_refused():
    with pytest.raises(ValueError, match="R13.2"):
        make_boards(1, 0)


def test_levels_spread_over_two_to_king():
    levels = {make_board(seed).level for seed in range(400)}
    assert levels == set(BOARD_LEVELS)

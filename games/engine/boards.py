"""Boards: deals fixed in advance for duplicate play (R13.2).

A board is one deal decided before anyone plays it: the four hands, the active level
(both teams play at it) and the seat that leads. Every table of a tournament round plays
the same boards in the same order, each as a single deal with no tribute; R1-R6 and R9
apply as usual.

A board is drawn from its own seed, so a whole tournament's boards come from one
number: the hands are ``deal_hands(seed)``, the lead is the draw that follows the shuffle
(``first_leader(seed)``, exactly as a match's first deal draws it, R8.6), and the level
is drawn from the same seed among 2 to K. (A board at A would read as a match won under
R7.3; a board is not a match, so boards stop at K.) Because the lead comes from the seed,
the deal a table plays is an ordinary first deal (``new_deal`` with no previous places)
and replays need nothing new (R11.1).

>>> boards = make_boards(7, 3)
>>> [b.number for b in boards], boards == make_boards(7, 3)
([1, 2, 3], True)
>>> state = board_deal(boards[0])
>>> state.tribute.kind, state.team_levels == (state.level, state.level), state.turn == boards[0].leader
('none', True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import ACE
from .deal import DealState, deal_hands, first_leader, new_deal

__all__ = ["Board", "make_board", "make_boards", "board_deal", "board_seed", "BOARD_LEVELS"]

# Levels a board may be played at: 2 to K (rank indexes 0-11).
BOARD_LEVELS = tuple(range(ACE))


@dataclass(frozen=True, slots=True)
class Board:
    """One board (R13.2): its number in the tournament (from 1), the seed it was drawn
    from, the four hands (card ids, seats 1-4), the level both teams play at, and the
    seat that leads (0-3)."""

    number: int
    seed: int
    hands: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    level: int
    leader: int


def board_seed(seed: int, number: int) -> int:
    """The seed of board ``number`` (from 1) of the boards drawn from ``seed``."""
    return random.Random(f"board:{seed}:{number}").getrandbits(63)


def make_board(seed: int, number: int = 1) -> Board:
    """The board drawn from ``seed`` (R13.2): hands, lead and level all follow from it."""
    level = BOARD_LEVELS[random.Random(f"level:{seed}").randrange(len(BOARD_LEVELS))]
    return Board(number=number, seed=seed, hands=deal_hands(seed), level=level, leader=first_leader(seed))


def make_boards(seed: int, count: int) -> list[Board]:
    """``count`` boards numbered from 1, drawn from one tournament seed."""
    if count < 1:
        raise ValueError("R13.2: a round plays at least one board")
    return [make_board(board_seed(seed, number), number) for number in range(1, count + 1)]


def board_deal(board: Board) -> DealState:
    """The first state of a board played as a single deal (R13.2): no tribute, both
    teams at the board's level, the board's seat leading."""
    state = new_deal(hands=board.hands, level=board.level, team_levels=(board.level, board.level),
                     prev_places=None, seed=board.seed)
    if state.lead_seat != board.leader:
        raise ValueError("R13.2: the board's lead is drawn from its seed; this board was not drawn from it")
    return state

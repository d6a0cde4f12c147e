"""Playouts: a deal played to its end in rank-count terms, every seat on the heuristic
policy (``policy.choose`` with the quick split), for the expert's sampling.

The trick rules are the engine's, restated for speed on abstract hands: a leader must
play (R6.1); followers beat the top or pass (R6.2); the trick ends when every other seat
still holding cards has passed (R6.3); a seat that has emptied its hand hands the lead
to its partner by the wind (R6.4); the deal ends when 1st's partner finishes or three
seats have finished (R6.6). The score is the level change of R7.1 seen from one team:
+3/+2/+1 when it takes 1st with the partner 2nd/3rd/4th, the negative when the other
team does.
"""

from __future__ import annotations

from typing import Sequence

from games.engine.reading import Reading

from .model import Hand, Move, Split, move_weight
from .policy import Table, choose, quick_split

ADVANCE = {2: 3, 3: 2, 4: 1}
# Bounds a playout; a real deal ends long before (at most 108 plays and passes between).
MAX_STEPS = 600


def level_change(places: Sequence[int], seat: int) -> int:
    """R7.1 level change for ``seat``'s team from the finishing order (1st first)."""
    first = places[0]
    partner = (first + 2) & 3
    advance = ADVANCE[list(places).index(partner) + 1]
    return advance if (first & 1) == (seat & 1) else -advance


def places_from(finished: Sequence[int]) -> list[int]:
    """R6.6: fill the remaining places (their order changes no score)."""
    rest = [s for s in range(4) if s not in finished]
    return list(finished) + rest


def deal_over(finished: Sequence[int]) -> bool:
    return len(finished) >= 3 or (len(finished) >= 2 and ((finished[0] + 2) & 3) in finished)


class Playout:
    """A mutable abstract deal: four hands, the trick in progress, the finishers."""

    __slots__ = ("hands", "splits", "sizes", "level", "turn", "top", "top_seat", "passes",
                 "finished")

    def __init__(self, hands: list[Hand], level: int, turn: int, top: Reading | None,
                 top_seat: int | None, passes: int, finished: list[int]) -> None:
        self.hands = hands
        self.splits: list[Split | None] = [None] * 4
        self.sizes = [h.size for h in hands]
        self.level = level
        self.turn = turn
        self.top = top
        self.top_seat = top_seat
        self.passes = passes
        self.finished = finished

    def _next_holding(self, seat: int) -> int:
        for step in (1, 2, 3):
            nxt = (seat + step) & 3
            if self.sizes[nxt]:
                return nxt
        return seat

    def play(self, seat: int, move: Move | None) -> bool:
        """Apply ``seat``'s move (None passes); True when the deal is over."""
        if move is None:
            self.passes += 1
            top_seat = self.top_seat
            still_in = sum(1 for s in range(4) if s != top_seat and self.sizes[s])
            if self.passes >= still_in:
                # R6.3 the trick ends; R6.4 the wind.
                if self.sizes[top_seat]:
                    leader = top_seat
                elif self.sizes[(top_seat + 2) & 3]:
                    leader = (top_seat + 2) & 3
                else:
                    leader = self._next_holding(top_seat)
                self.top = None
                self.top_seat = None
                self.passes = 0
                self.turn = leader
            else:
                self.turn = self._next_holding(seat)
            return False
        hand = self.hands[seat]
        hand.remove(move)
        split = self.splits[seat]
        if split is not None:
            if move in split.moves:
                moves = list(split.moves)
                moves.remove(move)
                self.splits[seat] = Split(tuple(moves), split.cost - move_weight(move.reading, self.level))
            else:
                self.splits[seat] = None
        self.sizes[seat] -= move.size
        self.top = move.reading
        self.top_seat = seat
        self.passes = 0
        if self.sizes[seat] == 0:
            self.finished.append(seat)
            if deal_over(self.finished):
                return True
        self.turn = self._next_holding(seat)
        return False

    def run(self, seat_of_interest: int) -> int:
        """Play to the end with the policy; the level change for ``seat_of_interest``."""
        level = self.level
        for _ in range(MAX_STEPS):
            seat = self.turn
            split = self.splits[seat]
            if split is None:
                split = quick_split(self.hands[seat])
                self.splits[seat] = split
            table = Table(seat, level, self.sizes, self.top, self.top_seat)
            move = choose(self.hands[seat], split, table, cheap=True)
            if self.play(seat, move):
                return level_change(places_from(self.finished), seat_of_interest)
        # Unreachable in a legal deal; score what is known so the caller never hangs.
        return level_change(places_from(self.finished or [seat_of_interest]), seat_of_interest)

"""A reading: a combination as declared (R3.5, R4), and how readings compare (R5).

A reading is a small immutable value: its shape, its key and its size. The key is a rank
index (see ``cards``): for singles, pairs, triples, full houses (the triple) and rank bombs
it is the rank, compared by strength at the level (R2.3); for straights, pair runs,
triple runs and straight flushes it is the *natural* rank of the top of the run (R2.4:
A2345 tops at 5, TJQKA at A), compared naturally. The joker bomb has key 0.

>>> from games.engine.cards import rank_index as r
>>> beats(Reading(BOMB, r("3"), 4), Reading(STRAIGHT, r("A"), 5), level=r("2"))
True
>>> beats(Reading(FULL_HOUSE, r("K"), 5), Reading(STRAIGHT, r("6"), 5), level=r("2"))
False
>>> Reading(STRAIGHT_FLUSH, r("9"), 5).name
'straight flush 5-9'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import BIG_JOKER, RANKS, SMALL_JOKER, rank_char, rank_index, strength

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
FULL_HOUSE = "full_house"
STRAIGHT = "straight"
PAIR_RUN = "pair_run"
TRIPLE_RUN = "triple_run"
BOMB = "bomb"
STRAIGHT_FLUSH = "straight_flush"
JOKER_BOMB = "joker_bomb"

ORDINARY_SHAPES = (SINGLE, PAIR, TRIPLE, FULL_HOUSE, STRAIGHT, PAIR_RUN, TRIPLE_RUN)
BOMB_SHAPES = (BOMB, STRAIGHT_FLUSH, JOKER_BOMB)
RUN_SHAPES = (STRAIGHT, PAIR_RUN, TRIPLE_RUN, STRAIGHT_FLUSH)
SHAPES = ORDINARY_SHAPES + BOMB_SHAPES

# Fixed sizes of every shape but the rank bomb (4-10 cards).
SHAPE_SIZE = {
    SINGLE: 1, PAIR: 2, TRIPLE: 3, FULL_HOUSE: 5, STRAIGHT: 5, PAIR_RUN: 6,
    TRIPLE_RUN: 6, STRAIGHT_FLUSH: 5, JOKER_BOMB: 4,
}
# Run shapes: how many ranks the run spans and how many cards of each rank.
RUN_LENGTH = {STRAIGHT: 5, PAIR_RUN: 3, TRIPLE_RUN: 2, STRAIGHT_FLUSH: 5}
RUN_WIDTH = {STRAIGHT: 1, PAIR_RUN: 2, TRIPLE_RUN: 3, STRAIGHT_FLUSH: 1}

_SHOWN = {"T": "10"}


def shown_rank(rank: int) -> str:
    """How the UI writes a rank: 10 for T, jokers spelled out (R1.4)."""
    if rank == SMALL_JOKER:
        return "small joker"
    if rank == BIG_JOKER:
        return "big joker"
    return _SHOWN.get(RANKS[rank], RANKS[rank])


def _plural(rank: int) -> str:
    if rank >= SMALL_JOKER:
        return shown_rank(rank) + "s"
    return shown_rank(rank) + "s"


def bomb_rung(reading: "Reading") -> int:
    """R5.2: the rung of a bomb on the ladder; -1 for an ordinary play.

    4-card < 5-card < straight flush < 6 < 7 < 8 < 9 < 10-card < joker bomb.
    """
    if reading.shape == BOMB:
        return reading.size - 4 if reading.size <= 5 else reading.size - 3
    if reading.shape == STRAIGHT_FLUSH:
        return 2
    if reading.shape == JOKER_BOMB:
        return 8
    return -1


@dataclass(frozen=True, slots=True)
class Reading:
    shape: str
    key: int
    size: int

    @property
    def is_bomb(self) -> bool:
        return self.shape in BOMB_SHAPES

    @property
    def name(self) -> str:
        """A readable name: ``straight 5-9``, ``bomb of eight 6s``, ``pair of 10s``."""
        s, k = self.shape, self.key
        if s == SINGLE:
            return f"single {shown_rank(k)}"
        if s == PAIR:
            return f"pair of {_plural(k)}"
        if s == TRIPLE:
            return f"three {_plural(k)}"
        if s == FULL_HOUSE:
            return f"full house, three {_plural(k)}"
        if s == BOMB:
            words = ("four", "five", "six", "seven", "eight", "nine", "ten")
            return f"bomb of {words[self.size - 4]} {_plural(k)}"
        if s == JOKER_BOMB:
            return "joker bomb"
        length = RUN_LENGTH[s]
        low = k - length + 1
        low_text = "A" if low < 0 else shown_rank(low)
        label = {STRAIGHT: "straight", PAIR_RUN: "pair run", TRIPLE_RUN: "triple run",
                 STRAIGHT_FLUSH: "straight flush"}[s]
        return f"{label} {low_text}-{shown_rank(k)}"

    def to_json(self) -> dict[str, Any]:
        """The conformance form (rules/CONFORMANCE.md)."""
        if self.shape == JOKER_BOMB:
            return {"shape": JOKER_BOMB}
        if self.shape == BOMB:
            return {"shape": BOMB, "rank": rank_char(self.key), "size": self.size}
        if self.shape in RUN_SHAPES:
            return {"shape": self.shape, "top": rank_char(self.key)}
        return {"shape": self.shape, "rank": rank_char(self.key)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Reading":
        """Parse the conformance form; raises ValueError on anything malformed."""
        if not isinstance(data, dict):
            raise ValueError("R4.11: a reading must be an object")
        shape = data.get("shape")
        if shape not in SHAPES:
            raise ValueError(f"R4.11: {shape!r} is not a shape")
        if shape == JOKER_BOMB:
            return cls(JOKER_BOMB, 0, 4)
        field = "top" if shape in RUN_SHAPES else "rank"
        value = data.get(field)
        if not isinstance(value, str):
            raise ValueError(f"R4.11: a {shape} needs a {field}")
        key = rank_index(value)
        if shape == BOMB:
            size = data.get("size")
            if not isinstance(size, int) or not 4 <= size <= 10 or key > 12:
                raise ValueError("R4.8: a rank bomb has 4 to 10 cards of one non-joker rank")
            return cls(BOMB, key, size)
        if shape in RUN_SHAPES:
            if key > 12 or key - RUN_LENGTH[shape] + 1 < -1:
                raise ValueError(f"R2.4: no {shape} tops at {value}")
        elif key > 12 and shape not in (SINGLE, PAIR):
            raise ValueError(f"R4.3: no {shape} of jokers")
        return cls(shape, key, SHAPE_SIZE[shape])


def beats(play: Reading, top: Reading, level: int) -> bool:
    """R5: does ``play`` beat ``top`` at this level?

    R5.1 an ordinary play is beaten only by a strictly higher play of the same shape, or by
    any bomb. R5.2 the bomb ladder. R5.3 equal never beats equal; nothing beats the joker
    bomb.
    """
    rung_play, rung_top = bomb_rung(play), bomb_rung(top)
    if rung_play != rung_top:
        return rung_play > rung_top
    if rung_play < 0 and play.shape != top.shape:
        return False
    if play.shape in RUN_SHAPES:
        return play.key > top.key
    if play.shape == JOKER_BOMB:
        return False
    return strength(play.key, level) > strength(top.key, level)


def why_not_beats(play: Reading, top: Reading, level: int) -> str:
    """The reason, citing the rule, that ``play`` does not beat ``top``."""
    if top.shape == JOKER_BOMB:
        return "R5.3: nothing beats the joker bomb"
    if top.is_bomb and not play.is_bomb:
        return f"R5.2: only a higher bomb beats a {top.name}"
    if play.is_bomb or top.is_bomb:
        if bomb_rung(play) < bomb_rung(top):
            return f"R5.2: a {play.name} is lower on the bomb ladder than a {top.name}"
        return f"R5.3: a {play.name} does not beat a {top.name} (equal never beats)"
    if play.shape != top.shape:
        return f"R5.1: a {play.name} cannot beat a {top.name} (different shape)"
    return f"R5.3: a {play.name} is not higher than a {top.name}"

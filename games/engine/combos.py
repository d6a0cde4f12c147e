"""Readings of a selection of physical cards (R3, R4) and the play value.

``readings_of(cards, level)`` answers: which combinations may these exact cards be
declared as when they are led? Wilds are substituted by rule (R3.1-R3.4): the two hearts
of the level rank are wild; alone they are a level single or the level pair; inside a
combination with at least one non-wild card each stands for any non-joker card; a wild
never stands for a joker.

It works on rank counts, not on card substitutions: the naturals (the non-wild cards)
must fit the shape and the wilds fill what is missing. Sequences use precomputed run
windows keyed by the bit mask of the natural ranks they hold (R2.4: ace low or high,
no wrap), so a call is a handful of integer operations.

>>> from games.engine.cards import parse_faces, rank_index as r
>>> [x.name for x in readings_of(parse_faces(["9S", "9C", "9D", "7H", "7H"]), r("7"))]
['full house, three 9s', 'bomb of five 9s']
>>> [x.name for x in readings_of(parse_faces(["TD", "JD", "QD", "KD", "7H"]), r("7"))]
['straight 9-K', 'straight flush 9-K', 'straight 10-A', 'straight flush 10-A']
>>> readings_of(parse_faces(["QS", "KC", "AD", "2S", "3C"]), r("7"))
[]
>>> explain_not_combination(parse_faces(["QS", "KC", "AD", "2S", "3C"]), r("7"))
'R2.4: Q-K-A-2-3 wraps around; the ace ends a run, it never joins K to 2'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .cards import (
    ACE, BIG_JOKER, FACE_OF, HEARTS, RANK_OF, SMALL_JOKER, SUIT_OF, rank_char,
)
from .reading import (
    BOMB, FULL_HOUSE, JOKER_BOMB, PAIR, PAIR_RUN, RUN_LENGTH, SINGLE, STRAIGHT,
    STRAIGHT_FLUSH, TRIPLE, TRIPLE_RUN, Reading, beats, shown_rank,
)

__all__ = [
    "Play", "readings_of", "beating_readings", "explain_not_combination", "wild_ids",
    "is_combination", "run_ranks", "RUN_TOPS", "single_reading", "pair_reading",
    "triple_reading", "full_house_reading", "bomb_reading", "run_reading",
    "JOKER_BOMB_READING",
]

# --------------------------------------------------------------------------------------
# Interned readings: every legal reading exists once, so the hot paths never build one.

_SINGLE = tuple(Reading(SINGLE, r, 1) for r in range(15))
_PAIR = tuple(Reading(PAIR, r, 2) for r in range(15))
_TRIPLE = tuple(Reading(TRIPLE, r, 3) for r in range(13))
_FULL_HOUSE = tuple(Reading(FULL_HOUSE, r, 5) for r in range(13))
# _BOMB[size][rank] for sizes 4-10 (R4.8); smaller indexes are unused.
_BOMB = tuple(
    tuple(Reading(BOMB, r, size) for r in range(13)) if size >= 4 else ()
    for size in range(11)
)
JOKER_BOMB_READING = Reading(JOKER_BOMB, 0, 4)


def _run_readings(shape: str) -> tuple[Reading | None, ...]:
    length = RUN_LENGTH[shape]
    size = 5 if shape in (STRAIGHT, STRAIGHT_FLUSH) else 6
    return tuple(Reading(shape, top, size) if top - length + 1 >= -1 else None for top in range(13))


_STRAIGHT = _run_readings(STRAIGHT)
_PAIR_RUN = _run_readings(PAIR_RUN)
_TRIPLE_RUN = _run_readings(TRIPLE_RUN)
_STRAIGHT_FLUSH = _run_readings(STRAIGHT_FLUSH)
_RUN_READING = {STRAIGHT: _STRAIGHT, PAIR_RUN: _PAIR_RUN, TRIPLE_RUN: _TRIPLE_RUN,
                STRAIGHT_FLUSH: _STRAIGHT_FLUSH}


def single_reading(rank: int) -> Reading:
    return _SINGLE[rank]


def pair_reading(rank: int) -> Reading:
    return _PAIR[rank]


def triple_reading(rank: int) -> Reading:
    return _TRIPLE[rank]


def full_house_reading(rank: int) -> Reading:
    return _FULL_HOUSE[rank]


def bomb_reading(rank: int, size: int) -> Reading:
    return _BOMB[size][rank]


def run_reading(shape: str, top: int) -> Reading:
    reading = _RUN_READING[shape][top]
    if reading is None:
        raise ValueError(f"R2.4: no {shape} tops at {rank_char(top)}")
    return reading


# --------------------------------------------------------------------------------------
# Run windows (R2.4). A run of ``length`` ranks topping at ``top`` covers the natural
# ranks top-length+1 .. top, where -1 is the ace played low. Ace is rank index 12.

def run_ranks(top: int, length: int) -> tuple[int, ...]:
    """The rank indexes a run covers, low to high; the low ace is rank 12 (``ACE``).

    >>> from games.engine.cards import rank_char
    >>> "".join(rank_char(r) for r in run_ranks(3, 5))
    'A2345'
    >>> "".join(rank_char(r) for r in run_ranks(12, 3))
    'QKA'
    """
    return tuple(ACE if r < 0 else r for r in range(top - length + 1, top + 1))


# The tops each run shape may have: straights 5..A, pair runs 3..A, triple runs 2..A.
RUN_TOPS = {shape: tuple(t for t in range(13) if t - RUN_LENGTH[shape] + 1 >= -1)
            for shape in RUN_LENGTH}


def _tops_by_mask(length: int) -> dict[int, tuple[int, ...]]:
    """For every set of ranks (a bit mask) that fits inside some run window: the tops of
    all windows containing it, low to high."""
    found: dict[int, list[int]] = {}
    for top in range(13):
        if top - length + 1 < -1:
            continue
        window = 0
        for r in run_ranks(top, length):
            window |= 1 << r
        sub = window
        while sub:  # every non-empty sub-mask of the window
            found.setdefault(sub, []).append(top)
            sub = (sub - 1) & window
    return {mask: tuple(tops) for mask, tops in found.items()}


_STRAIGHT_TOPS = _tops_by_mask(5)
_PAIR_RUN_TOPS = _tops_by_mask(3)
_TRIPLE_RUN_TOPS = _tops_by_mask(2)


def wild_ids(level: int) -> tuple[int, int]:
    """R3.1: the physical ids of the two wilds (the hearts of the level rank)."""
    return (HEARTS * 13 + level, 54 + HEARTS * 13 + level)


# --------------------------------------------------------------------------------------
# Readings of a selection


def readings_of(card_ids: Sequence[int], level: int) -> list[Reading]:
    """Every legal reading of exactly these physical cards as a lead (R3, R4).

    Distinct readings; ``[]`` when the cards are not a combination (R4.11). The ids must
    be distinct physical cards. Shapes by size: 1 single; 2 pair; 3 triple; 4 rank bomb
    or joker bomb; 5 full house, straight, straight flush or rank bomb; 6 pair run,
    triple run or rank bomb; 7-10 rank bomb.

    Order: ordinary readings before bombs, runs low to high.
    """
    n = len(card_ids)
    if n == 1:
        # A lone wild has its own rank, the level: R3.4 makes it a level single.
        return [_SINGLE[RANK_OF[card_ids[0]]]]
    wild_lo = 13 + level
    wild_hi = 67 + level
    if n == 2:
        a, b = card_ids
        rank_a = RANK_OF[a]
        rank_b = RANK_OF[b]
        if rank_a == rank_b:
            # Same rank: includes SJ SJ, BJ BJ and the two wilds (R3.4 level pair).
            return [_PAIR[rank_a]]
        if a == wild_lo or a == wild_hi:
            return [_PAIR[rank_b]] if rank_b < SMALL_JOKER else []  # R3.3
        if b == wild_lo or b == wild_hi:
            return [_PAIR[rank_a]] if rank_a < SMALL_JOKER else []
        return []
    if n > 10 or n == 0:
        return []

    if wild_lo in card_ids or wild_hi in card_ids:
        naturals = [i for i in card_ids if i != wild_lo and i != wild_hi]
        wilds = n - len(naturals)
    else:
        naturals = card_ids
        wilds = 0
    ranks = [RANK_OF[i] for i in naturals]
    count = len(ranks)
    first = ranks[0]

    if ranks.count(first) == count:
        # One natural rank (wilds fill): triple, rank bomb, or XXX + two wilds.
        if first >= SMALL_JOKER:
            return []  # R3.3: wilds never join jokers; two same jokers are at most a pair
        if n == 3:
            return [_TRIPLE[first]]
        if n == 5 and count == 3:
            # R3.5: XXX + two wilds is a full house (wild pair of any other rank) or a bomb.
            return [_FULL_HOUSE[first], _BOMB[5][first]]
        if n >= 4:
            return [_BOMB[n][first]]
    if n == 3 or n > 6:
        return []
    if n == 4:
        if wilds == 0 and sorted(ranks) == [SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER]:
            return [JOKER_BOMB_READING]
        return []
    if max(ranks) >= SMALL_JOKER:
        return []  # R4.4-R4.7: no jokers in full houses or runs

    mask = 0
    for r in ranks:
        mask |= 1 << r
    distinct = mask.bit_count()

    if n == 5:
        if distinct == 2:
            # R4.4 full house: the triple's rank may be either rank that fits.
            other = (mask & ~(1 << first)).bit_length() - 1
            count_first = ranks.count(first)
            count_other = count - count_first
            out = []
            if count_first <= 3 and count_other <= 2:
                out.append(_FULL_HOUSE[first])
            if count_other <= 3 and count_first <= 2:
                out.append(_FULL_HOUSE[other])
            return out
        if distinct != count:
            return []
        tops = _STRAIGHT_TOPS.get(mask)
        if not tops:
            return []
        suit = SUIT_OF[naturals[0]]
        one_suit = True
        for i in naturals:
            if SUIT_OF[i] != suit:
                one_suit = False
                break
        out = []
        for top in tops:
            # R4.12: five natural cards of one suit are only a straight flush; a wild can
            # always take another suit, so with a wild both readings exist.
            if wilds or not one_suit:
                out.append(_STRAIGHT[top])
            if one_suit:
                out.append(_STRAIGHT_FLUSH[top])
        return out

    # n == 6: pair run (3 ranks, at most 2 each) or triple run (2 ranks, at most 3 each).
    if distinct > 3:
        return []
    most = 0
    for r in range(13):
        if mask >> r & 1:
            c = ranks.count(r)
            if c > most:
                most = c
    out = []
    if most <= 2:
        out = [_PAIR_RUN[top] for top in _PAIR_RUN_TOPS.get(mask, ())]
    if distinct == 2 and most <= 3:
        # XX YY + two wilds is also a triple run (R3.5: the player chooses).
        out.extend(_TRIPLE_RUN[top] for top in _TRIPLE_RUN_TOPS.get(mask, ()))
    return out


def is_combination(card_ids: Sequence[int], level: int) -> bool:
    return bool(readings_of(card_ids, level))


def beating_readings(card_ids: Sequence[int], level: int, top: Reading) -> list[Reading]:
    """The readings of these cards that beat ``top`` (R5)."""
    return [r for r in readings_of(card_ids, level) if beats(r, top, level)]


# --------------------------------------------------------------------------------------
# A play: physical cards with a declared reading


@dataclass(frozen=True, slots=True)
class Play:
    """Physical cards (ids sorted ascending) played as one declared reading (R3.5)."""

    cards: tuple[int, ...]
    reading: Reading

    @property
    def faces(self) -> tuple[str, ...]:
        return tuple(FACE_OF[i] for i in self.cards)

    @property
    def face_key(self) -> tuple[tuple[str, ...], Reading]:
        """What makes two plays the same: the face multiset and the reading."""
        return (tuple(sorted(FACE_OF[i] for i in self.cards)), self.reading)

    def to_json(self) -> dict[str, Any]:
        """The conformance form: ``{"cards": [faces], **reading}``."""
        return {"cards": list(self.faces), **self.reading.to_json()}

    def __str__(self) -> str:
        return f"{' '.join(self.faces)} as {self.reading.name}"


# --------------------------------------------------------------------------------------
# Explaining a refusal


def _seq_text(ranks: Sequence[int]) -> str:
    return "-".join(shown_rank(r) for r in ranks)


def _wrap_run(mask: int, length: int) -> tuple[int, ...] | None:
    """If these ranks fit a run only by going round the corner K-A-2, the ranks of the
    shortest such circular window (from its low end), else None."""
    for start in range(13):
        window = [(start + k) % 13 for k in range(length)]
        bits = 0
        for r in window:
            bits |= 1 << r
        if mask & ~bits == 0 and ACE in window and window[0] != ACE and window[-1] != ACE:
            return tuple(window)
    return None


def explain_not_combination(card_ids: Sequence[int], level: int) -> str:
    """A short reason, citing the rule, why these cards are not a combination.

    Meant for the UI ("R4.11: a triple with a single is not a combination"). When the
    cards are a combination the answer names what they are, citing R4.

    >>> from games.engine.cards import parse_faces, rank_index as r
    >>> explain_not_combination(parse_faces(["9S", "9C", "9D", "JS"]), r("7"))
    'R4.11: a triple with a single is not a combination'
    >>> explain_not_combination(parse_faces(["BJ", "7H"]), r("7"))
    'R3.3: a wild never stands for a joker'
    """
    n = len(card_ids)
    if n == 0:
        return "R6.1: a play needs at least one card"
    readings = readings_of(card_ids, level)
    if readings:
        names = " or ".join(r.name for r in readings)
        return f"R4: these cards are a {names}"
    if n > 10:
        return "R4.8: no combination has more than 10 cards (a bomb of 8 plus 2 wilds)"
    wild = set(wild_ids(level))
    naturals = [i for i in card_ids if i not in wild]
    wilds = n - len(naturals)
    ranks = [RANK_OF[i] for i in naturals]
    jokers = sum(1 for r in ranks if r >= SMALL_JOKER)
    plain = [r for r in ranks if r < SMALL_JOKER]
    counts: dict[int, int] = {}
    for r in plain:
        counts[r] = counts.get(r, 0) + 1
    pattern = sorted(counts.values(), reverse=True)

    if jokers:
        if wilds and jokers == len(ranks):
            return "R3.3: a wild never stands for a joker"
        if n == 2 and jokers == 2:
            return "R4.2: a small and a big joker are not a pair"
        if n == 4 and jokers == 4:
            return "R4.10: the joker bomb is exactly SJ SJ BJ BJ"
        if n == 4 and wilds and jokers + wilds == 4:
            return "R3.3: a wild never joins the joker bomb"
        if n == 5 and jokers == 2 and len(set(ranks) - set(plain)) == 1 and len(counts) <= 1:
            return "R4.4: a full house has no jokers; a joker pair is not its pair"
        if n == 2:
            return "R4.2: a pair needs two cards of one rank"
        return "R4.3: jokers go only in singles, joker pairs and the joker bomb"

    mask = 0
    for r in plain:
        mask |= 1 << r
    if n == 2:
        return "R4.2: a pair needs two cards of one rank"
    if n in (3, 4) and len(counts) == len(plain) and _fits_run(mask, n):
        return "R4.5: a straight has exactly 5 cards"
    if n == 3:
        return "R4.3: a triple needs three cards of one rank"
    if n == 4:
        if pattern == [3, 1] or (wilds == 1 and pattern == [2, 1]):
            return "R4.11: a triple with a single is not a combination"
        if pattern == [2, 2]:
            return "R4.11: two pairs are not a combination; a pair run has 3 pairs (R4.6)"
        return "R4.8: four cards play only as a bomb of one rank"
    if n == 5:
        if pattern[0] + wilds >= 4:
            return "R4.11: four of a kind with a single is not a combination"
        if pattern[0] + wilds == 3 and len(counts) == 3:
            return "R4.11: a triple with two singles is not a combination"
        if len(counts) == len(plain):
            wrap = _wrap_run(mask, 5)
            if wrap:
                return (f"R2.4: {_seq_text(wrap)} wraps around; "
                        "the ace ends a run, it never joins K to 2")
            suits = {SUIT_OF[i] for i in naturals}
            if len(suits) == 1 and wilds == 0:
                return "R4.11: a plain flush is not a combination; a straight flush needs 5 ranks in sequence (R4.9)"
            return "R4.5: a straight needs 5 consecutive ranks"
        if pattern[:2] == [2, 2] or pattern[0] + wilds == 3:
            return "R4.4: a full house is a triple plus a pair of another rank"
        return (f"R4.11: 5 cards of {_count_words(len(counts))} ranks are not a combination")
    kinds = len(counts)
    generic = (f"R4.11: {n} cards of {_count_words(kinds)} ranks are not a combination; "
               f"{n} cards play only as a bomb of one rank (R4.8)")
    if n == 6:
        if kinds == len(plain) and _fits_run(mask, 6):
            return "R4.5: a straight has exactly 5 cards; 6-card straights are not allowed (R4.11)"
        if pattern[0] <= 2 and kinds <= 3:
            wrap = _wrap_run(mask, 3)
            if wrap:
                return (f"R2.4: {_seq_text(wrap)} wraps around; "
                        "the ace ends a run, it never joins K to 2")
            return "R4.6: a pair run is 3 pairs of consecutive ranks"
        if pattern[0] == 3 and kinds == 2:
            wrap = _wrap_run(mask, 2)
            if wrap:
                return (f"R2.4: {_seq_text(wrap)} wraps around; "
                        "the ace ends a run, it never joins K to 2")
            return "R4.7: a triple run is 2 triples of consecutive ranks"
        return generic
    # 7 to 10 cards: only rank bombs; name the longer run the player may have meant.
    if kinds == len(plain) and _fits_run(mask, n):
        return "R4.5: a straight has exactly 5 cards; longer straights are not allowed (R4.11)"
    if n % 2 == 0 and pattern[0] <= 2 and kinds <= n // 2 and _fits_run(mask, n // 2):
        return "R4.11: a pair run has exactly 3 pairs"
    if n % 3 == 0 and pattern[0] <= 3 and kinds <= n // 3 and _fits_run(mask, n // 3):
        return "R4.11: a triple run has exactly 2 triples"
    return generic


def _count_words(k: int) -> str:
    return ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
            "ten")[k] if k <= 10 else str(k)


def _fits_run(mask: int, length: int) -> bool:
    """Whether these ranks fit in one run window of ``length`` ranks (R2.4, no wrap)."""
    for top in range(13):
        if top - length + 1 < -1:
            continue
        window = 0
        for r in run_ranks(top, length):
            window |= 1 << r
        if mask & ~window == 0:
            return True
    return False


def describe_cards(card_ids: Sequence[int]) -> str:
    """Faces joined by spaces, for messages."""
    return " ".join(FACE_OF[i] for i in card_ids)


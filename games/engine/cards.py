"""The 108 physical cards, their faces, and card strength.

R1.3: two full 54-card decks. Each physical card has an id 0-107 so the two copies of a
face differ; the id never changes and never depends on the level.

Layout of an id: ``deck * 54 + k`` with ``k`` in 0-53. For ``k < 52`` the suit is
``k // 13`` (0 spades, 1 hearts, 2 clubs, 3 diamonds) and the rank index is ``k % 13``
(0 is the 2, 12 is the ace). ``k == 52`` is the small (black) joker, ``k == 53`` the
big (red) joker.

Rank indexes: 0-12 are the ordinary ranks ``2 3 4 5 6 7 8 9 T J Q K A`` in natural
order; 13 is the small joker and 14 the big joker. A *level* is the rank index (0-12) of
the active rank (R2.2).

>>> face(0), face(13 + 8), face(52), face(107)
('2S', 'TH', 'SJ', 'BJ')
>>> [card_id for card_id in ids_of_face("7H")]
[18, 72]
>>> strength(rank_index("7"), rank_index("7")) > strength(rank_index("A"), rank_index("7"))
True
"""

from __future__ import annotations

from typing import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "SHCD"
SUIT_NAMES = ("spades", "hearts", "clubs", "diamonds")
SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2663", "\u2666")
HEARTS = 1
SMALL_JOKER = 13
BIG_JOKER = 14
ACE = 12
NUM_CARDS = 108
NUM_RANKS = 15  # 13 ordinary ranks and the two jokers

# Per id, precomputed once: the engine's hot paths index these tuples.
RANK_OF: tuple[int, ...] = tuple(
    (k % 13 if k < 52 else (SMALL_JOKER if k == 52 else BIG_JOKER))
    for k in (i % 54 for i in range(NUM_CARDS))
)
SUIT_OF: tuple[int, ...] = tuple(
    (k // 13 if k < 52 else -1) for k in (i % 54 for i in range(NUM_CARDS))
)


def rank_char(rank: int) -> str:
    """The R1.4 notation of a rank index; jokers are ``SJ`` and ``BJ``."""
    if rank == SMALL_JOKER:
        return "SJ"
    if rank == BIG_JOKER:
        return "BJ"
    return RANKS[rank]


def rank_index(text: str) -> int:
    """Parse a rank character (``"T"``, also ``"10"``) or a joker name to a rank index."""
    if text == "SJ":
        return SMALL_JOKER
    if text == "BJ":
        return BIG_JOKER
    if text == "10":
        return RANKS.index("T")
    if len(text) == 1 and text in RANKS:
        return RANKS.index(text)
    raise ValueError(f"R1.4: {text!r} is not a rank")


def face(card_id: int) -> str:
    """The R1.4 face of a physical card id, for example ``TH`` or ``BJ``."""
    if not 0 <= card_id < NUM_CARDS:
        raise ValueError(f"R1.4: {card_id!r} is not a card id (0-107)")
    rank = RANK_OF[card_id]
    if rank >= SMALL_JOKER:
        return rank_char(rank)
    return RANKS[rank] + SUITS[SUIT_OF[card_id]]


FACE_OF: tuple[str, ...] = tuple(face(i) for i in range(NUM_CARDS))
_IDS_OF_FACE: dict[str, tuple[int, int]] = {}
for _i, _f in enumerate(FACE_OF):
    _IDS_OF_FACE[_f] = _IDS_OF_FACE.get(_f, ()) + (_i,)  # type: ignore[assignment]


def ids_of_face(text: str) -> tuple[int, int]:
    """The two physical ids of a face (``10H`` is accepted for ``TH``)."""
    key = text.strip().upper()
    if key.startswith("10"):
        key = "T" + key[2:]
    try:
        return _IDS_OF_FACE[key]
    except KeyError:
        raise ValueError(f"R1.4: {text!r} is not a card face") from None


def parse_faces(faces: Iterable[str]) -> list[int]:
    """Turn a multiset of faces into distinct physical ids (first copy, then second).

    A face may appear at most twice (R1.3).

    >>> parse_faces(["TH", "TH", "SJ"])
    [21, 75, 52]
    """
    used: dict[str, int] = {}
    out = []
    for text in faces:
        pair = ids_of_face(text)
        n = used.get(pair[0], 0)
        if n >= 2:
            raise ValueError(f"R1.3: {text} appears more than twice")
        used[pair[0]] = n + 1
        out.append(pair[n])
    return out


def faces_of(card_ids: Iterable[int]) -> list[str]:
    return [FACE_OF[i] for i in card_ids]


def is_wild(card_id: int, level: int) -> bool:
    """R3.1: only the two hearts of the active rank are wild."""
    return RANK_OF[card_id] == level and SUIT_OF[card_id] == HEARTS


def strength(rank: int, level: int) -> int:
    """R2.3: the strength of a rank in singles, pairs, triples, full houses and rank bombs.

    BJ > SJ > level rank > A > K > ... > 2 (the level rank lifted out of its place).
    Only the order matters; the numbers are 0-15.
    """
    if rank == BIG_JOKER:
        return 15
    if rank == SMALL_JOKER:
        return 14
    if rank == level:
        return 13
    return rank


def card_strength(card_id: int, level: int) -> int:
    return strength(RANK_OF[card_id], level)


def card_name(card_id: int, level: int | None = None) -> str:
    """An accessible name: ``"10 of hearts, wild"``, ``"big joker"``."""
    rank = RANK_OF[card_id]
    if rank == BIG_JOKER:
        return "big joker"
    if rank == SMALL_JOKER:
        return "small joker"
    shown = "10" if RANKS[rank] == "T" else {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}.get(RANKS[rank], RANKS[rank])
    name = f"{shown} of {SUIT_NAMES[SUIT_OF[card_id]]}"
    if level is not None and is_wild(card_id, level):
        name += ", wild"
    return name


def sort_key(card_id: int, level: int) -> tuple[int, int, int]:
    """Order for showing a hand: by strength, then suit, then id."""
    return (card_strength(card_id, level), SUIT_OF[card_id], card_id)


def full_deck() -> list[int]:
    return list(range(NUM_CARDS))


def rank_counts(card_ids: Sequence[int]) -> list[int]:
    """A 15-long vector: how many cards of each rank index."""
    counts = [0] * NUM_RANKS
    for i in card_ids:
        counts[RANK_OF[i]] += 1
    return counts

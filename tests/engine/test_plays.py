"""Legal-play generation (R3-R5, R6.1-R6.2), lean plays and the R9.2 timeout lead."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.cards import FACE_OF, RANK_OF, SUIT_OF, parse_faces, rank_index
from games.engine.combos import (
    _BOMB, _FULL_HOUSE, _PAIR, _PAIR_RUN, _SINGLE, _STRAIGHT, _STRAIGHT_FLUSH, _TRIPLE,
    _TRIPLE_RUN, JOKER_BOMB_READING, readings_of, wild_ids,
)
from games.engine.plays import has_play_beating, lean_plays, legal_plays, timeout_lead
from games.engine.reading import Reading, beats

ALL_READINGS: list[Reading] = [
    r for table in (_SINGLE, _PAIR, _TRIPLE, _FULL_HOUSE, _STRAIGHT, _PAIR_RUN, _TRIPLE_RUN,
                    _STRAIGHT_FLUSH, *_BOMB[4:])
    for r in table if r is not None
] + [JOKER_BOMB_READING]


def R(data: dict) -> Reading:
    return Reading.from_json(data)


def plays_json(level: str, hand: str, table: dict | None = None) -> list[dict]:
    top = None if table is None else R(table)
    return [p.to_json() for p in legal_plays(parse_faces(hand.split()), rank_index(level), top)]


def canon(play_json: dict) -> tuple:
    return tuple(sorted((k, tuple(sorted(v)) if isinstance(v, list) else v)
                        for k, v in play_json.items()))


def face_key(cards, reading) -> tuple:
    return (tuple(sorted(FACE_OF[c] for c in cards)), reading)


def brute_force(hand: list[int], level: int, top: Reading | None) -> set[tuple]:
    """Every sub-multiset of faces of the hand (lowest ids of each face), read by
    readings_of, filtered by beats: the definition of the distinct legal plays."""
    by_face: dict[str, list[int]] = {}
    for card in sorted(hand):
        by_face.setdefault(FACE_OF[card], []).append(card)
    faces = sorted(by_face)
    found = set()
    for pick in itertools.product(*(range(len(by_face[f]) + 1) for f in faces)):
        cards = [c for f, k in zip(faces, pick) for c in by_face[f][:k]]
        if not cards or len(cards) > 10:
            continue
        for reading in readings_of(cards, level):
            if top is None or beats(reading, top, level):
                found.add((tuple(sorted(cards)), reading))
    return found


@st.composite
def small_hands(draw, max_size: int = 8):
    """Hands of up to 8 cards, often from few ranks or one suit, often with wilds."""
    level = draw(st.integers(0, 12))
    wild = list(wild_ids(level))
    n_wild = draw(st.integers(0, 2))
    pool = [c for c in range(108) if c not in wild]
    style = draw(st.sampled_from(["any", "ranks", "suit"]))
    if style != "any":
        ranks = draw(st.sets(st.integers(0, 14), min_size=1, max_size=6))
        pool = [c for c in pool if RANK_OF[c] in ranks]
        if style == "suit":
            suit = draw(st.integers(0, 3))
            pool = [c for c in pool if SUIT_OF[c] in (suit, -1)] or pool
    size = draw(st.integers(0, max_size - n_wild))
    naturals = draw(st.permutations(pool))[:size]
    hand = list(naturals) + wild[:n_wild]
    if not hand:
        hand = [wild[0]]
    return hand, level


@st.composite
def full_hands(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    level = rng.randrange(13)
    hand = rng.sample(range(108), 27)
    if draw(st.booleans()):  # make sure some hands hold both wilds
        for card in wild_ids(level):
            if card not in hand:
                hand[rng.randrange(27)] = card
        hand = list(dict.fromkeys(hand))
    return hand, level


tops = st.one_of(st.none(), st.sampled_from(ALL_READINGS))


# --------------------------------------------------------------------------------------
# The public conformance cases, as unit tests


def test_r3_plays_small_lead_has_17_distinct_plays():
    got = plays_json("7", "3S 3C 4D 5S 6C 7H")
    assert len(got) == 17
    want = [
        {"cards": ["3C", "3S", "7H"], "shape": "triple", "rank": "3"},
        {"cards": ["3C", "3S"], "shape": "pair", "rank": "3"},
        {"cards": ["3C", "4D", "5S", "6C", "7H"], "shape": "straight", "top": "6"},
        {"cards": ["3C", "4D", "5S", "6C", "7H"], "shape": "straight", "top": "7"},
        {"cards": ["3C", "7H"], "shape": "pair", "rank": "3"},
        {"cards": ["3S", "7H"], "shape": "pair", "rank": "3"},
        {"cards": ["7H"], "shape": "single", "rank": "7"},
    ]
    have = {canon(p) for p in got}
    assert all(canon(p) in have for p in want)


def test_r5_1_plays_small_follow_pair():
    got = plays_json("7", "3S 3C 4D 5S 6C 7H", {"shape": "pair", "rank": "2"})
    assert {canon(p) for p in got} == {canon(p) for p in [
        {"cards": ["3C", "3S"], "shape": "pair", "rank": "3"},
        {"cards": ["3C", "7H"], "shape": "pair", "rank": "3"},
        {"cards": ["3S", "7H"], "shape": "pair", "rank": "3"},
        {"cards": ["4D", "7H"], "shape": "pair", "rank": "4"},
        {"cards": ["5S", "7H"], "shape": "pair", "rank": "5"},
        {"cards": ["6C", "7H"], "shape": "pair", "rank": "6"},
    ]}


def test_r4_plays_bombs_and_wilds_count():
    got = plays_json("7", "9S 9C 9D 9H 7H 7H SJ BJ")
    assert len(got) == 53
    have = {canon(p) for p in got}
    assert canon({"cards": ["7H", "7H", "9C", "9D", "9H", "9S"], "shape": "bomb", "rank": "9",
                  "size": 6}) in have
    assert canon({"cards": ["7H", "7H", "9C", "9D", "9H"], "shape": "full_house",
                  "rank": "9"}) in have
    assert canon({"cards": ["7H", "7H"], "shape": "pair", "rank": "7"}) in have


def test_r5_2_only_the_joker_bomb_beats_an_8_bomb():
    got = plays_json("2", "SJ SJ BJ BJ 2H 5S", {"shape": "bomb", "rank": "A", "size": 8})
    assert [canon(p) for p in got] == [canon({"cards": ["SJ", "SJ", "BJ", "BJ"],
                                              "shape": "joker_bomb"})]


def test_r4_12_follow_straight_offers_flush_and_straight():
    got = plays_json("7", "TD JD QD KD AD AS", {"shape": "straight", "top": "K"})
    assert {canon(p) for p in got} == {canon(p) for p in [
        {"cards": ["AD", "JD", "KD", "QD", "TD"], "shape": "straight_flush", "top": "A"},
        {"cards": ["AS", "JD", "KD", "QD", "TD"], "shape": "straight", "top": "A"},
    ]}


def test_r6_1_leader_always_has_a_play():
    assert legal_plays(parse_faces(["2S"]), 0, None)
    assert has_play_beating(parse_faces(["BJ"]), 0, Reading("single", 13, 1))
    assert not has_play_beating(parse_faces(["SJ"]), 0, Reading("single", 13, 1))


def test_r3_2_wild_fills_any_position_of_a_straight_flush_and_stands_as_itself():
    # 5H 6H 8H 9H + 7H at level 7: the wild is the 7 of hearts itself, or any 4/T.
    got = plays_json("7", "5H 6H 8H 9H 7H")
    sf = {p["top"] for p in got if p["shape"] == "straight_flush"}
    st_ = {p["top"] for p in got if p["shape"] == "straight"}
    assert sf == {"9"} and st_ == {"9"}
    assert len([p for p in got if len(p["cards"]) == 5]) == 2


def test_two_physical_copies_are_one_face():
    """Two plays are the same when they use the same multiset of faces (CONFORMANCE)."""
    hand = parse_faces("7S 7S 8C".split())
    got = legal_plays(hand, rank_index("2"), None)
    assert [p.faces for p in got if p.reading.shape == "single"] == [("7S",), ("8C",)]
    assert got[0].cards == (min(hand[:2]),)  # the lowest id of the face


# --------------------------------------------------------------------------------------
# Properties


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_hands(), tops)
def test_legal_plays_equal_brute_force_over_sub_multisets(hand_level, top):
    """Every sub-multiset of a small hand read by readings_of gives exactly legal_plays,
    physical ids included (lowest of each face)."""
    hand, level = hand_level
    got = [(p.cards, p.reading) for p in legal_plays(hand, level, top)]
    assert len(got) == len(set(got))
    assert set(got) == brute_force(hand, level, top)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(full_hands(), tops)
def test_every_play_is_legal_and_distinct(hand_level, top):
    hand, level = hand_level
    plays = legal_plays(hand, level, top)
    keys = [face_key(p.cards, p.reading) for p in plays]
    assert len(keys) == len(set(keys))
    held = set(hand)
    for p in plays:
        assert list(p.cards) == sorted(p.cards) and set(p.cards) <= held
        assert p.reading in readings_of(p.cards, level)
        assert top is None or beats(p.reading, top, level)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(full_hands(), tops)
def test_lean_plays_are_legal_and_cover_every_reading(hand_level, top):
    hand, level = hand_level
    full = legal_plays(hand, level, top)
    lean = lean_plays(hand, level, top)
    full_keys = {face_key(p.cards, p.reading) for p in full}
    lean_keys = [face_key(p.cards, p.reading) for p in lean]
    assert len(lean_keys) == len(set(lean_keys))
    assert set(lean_keys) <= full_keys
    assert {p.reading for p in lean} == {p.reading for p in full}
    if top is not None:
        assert has_play_beating(hand, level, top) == bool(full)


@settings(max_examples=150, deadline=None)
@given(small_hands(), tops)
def test_lean_plays_on_small_hands(hand_level, top):
    hand, level = hand_level
    full = {face_key(c, r) for c, r in brute_force(hand, level, top)}
    lean = lean_plays(hand, level, top)
    assert {face_key(p.cards, p.reading) for p in lean} <= full
    assert {p.reading for p in lean} == {r for _, r in full}


@settings(max_examples=100, deadline=None)
@given(full_hands(), tops, st.randoms(use_true_random=False))
def test_plays_do_not_depend_on_physical_copy(hand_level, top, rnd):
    """R1.3: swapping a card for the other copy of its face changes no face key."""
    hand, level = hand_level
    swapped = [c + 54 if c < 54 else c - 54 for c in hand]
    rnd.shuffle(swapped)
    a = {face_key(p.cards, p.reading) for p in legal_plays(hand, level, top)}
    b = {face_key(p.cards, p.reading) for p in legal_plays(swapped, level, top)}
    assert a == b


# --------------------------------------------------------------------------------------
# R9.2 timeout lead


def lead(level: str, hand: str) -> str:
    return FACE_OF[timeout_lead(parse_faces(hand.split()), rank_index(level)).cards[0]]


def test_r9_2_lowest_single_that_breaks_no_bomb():
    assert lead("7", "3S 3C 3D 3H 5D 9C KS") == "5D"
    assert lead("7", "3S 3C 3D 7H 5D 9C KS") == "5D"   # 3 threes + wild is a bomb


def test_r9_2_does_not_break_a_run_without_wilds():
    assert lead("2", "3S 4C 5D 6S 7C 9D KC") == "9D"
    assert lead("2", "3S 3C 4S 4C 5D 5S 9C") == "9C"
    assert lead("2", "3S 3C 3D 4S 4C 4D 8C") == "8C"


def test_r9_2_does_not_break_a_straight_flush_even_with_wilds():
    assert lead("2", "3H 4H 5H 6H 2H 8C") == "8C"
    assert lead("2", "3D 4D 6D 2H 2H 9S") == "9S"


def test_r9_2_the_level_rank_is_high():
    assert lead("5", "5S 6D") == "6D"


def test_r9_2_everything_breaks_something_plays_the_lowest_single():
    assert lead("7", "3C 3S 3D 3H") == "3S"
    assert lead("7", "SJ SJ BJ BJ 9S 9C 9D 9H") == "9S"


def test_r9_2_a_wild_only_when_nothing_else():
    """A wild is never the safe choice: a safe natural goes first, even a stronger one."""
    assert lead("2", "2H 2S") == "2S"
    assert lead("2", "2H") == "2H"
    assert lead("2", "2H SJ") == "SJ"
    assert lead("2", "2H SJ SJ BJ BJ") == "2H"  # every joker breaks the joker bomb


def test_r9_2_the_lead_is_always_a_legal_single():
    rng = random.Random(7)
    for _ in range(200):
        level = rng.randrange(13)
        hand = rng.sample(range(108), rng.randint(1, 27))
        play = timeout_lead(hand, level)
        assert len(play.cards) == 1 and play.cards[0] in hand
        assert play.reading in readings_of(play.cards, level)
        assert timeout_lead(list(reversed(hand)), level) == play


def test_timeout_lead_needs_cards():
    with pytest.raises(ValueError):
        timeout_lead([], 0)


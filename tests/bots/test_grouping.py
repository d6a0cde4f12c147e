"""``group_hand``: the hand in the heuristic's plays, every card once, bombs whole."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots.grouping import group_hand
from games.engine.cards import HEARTS, RANK_OF, SUIT_OF, faces_of, parse_faces
from games.engine.cards import rank_index as r
from games.engine.combos import readings_of

hands = st.tuples(
    st.lists(st.integers(0, 107), min_size=0, max_size=27, unique=True),
    st.integers(0, 12),
)


def _wild(card, level):
    return RANK_OF[card] == level and SUIT_OF[card] == HEARTS


@settings(max_examples=300, deadline=None)
@given(hands)
def test_every_card_exactly_once(case):
    hand, level = case
    groups = group_hand(hand, level)
    flat = [c for g in groups for c in g]
    assert sorted(flat) == sorted(hand)
    assert all(groups), "no empty group"


@settings(max_examples=300, deadline=None)
@given(hands)
def test_groups_are_plays_and_bombs_stay_whole(case):
    hand, level = case
    groups = group_hand(hand, level)
    for g in groups:
        # Every group is a combination (R4), wilds alone included (R3.4).
        assert readings_of(g, level), faces_of(g)
    group_of = {c: i for i, g in enumerate(groups) for c in g}
    # Four jokers: one group (R4.10).
    jokers = [c for c in hand if RANK_OF[c] >= 13]
    if len([c for c in jokers if RANK_OF[c] == 13]) == 2 and len([c for c in jokers if RANK_OF[c] == 14]) == 2:
        assert len({group_of[c] for c in jokers}) == 1
    # A rank bomb (R4.8) is never spread over plays: naturals of a rank held 4 or more
    # times sit in one group, except cards a straight flush (R4.9) took.
    for rank in range(13):
        naturals = [c for c in hand if RANK_OF[c] == rank and not _wild(c, level)]
        if len(naturals) < 4:
            continue
        homes = {group_of[c] for c in naturals}
        flush_homes = {i for i in homes if len(groups[i]) == 5
                       and any(x.shape == "straight_flush" for x in readings_of(groups[i], level))}
        assert len(homes - flush_homes) == 1, [faces_of(g) for g in groups]


def test_deterministic_and_independent_of_input_order():
    rng = random.Random(4)
    for _ in range(50):
        hand = rng.sample(range(108), 27)
        level = rng.randrange(13)
        first = group_hand(hand, level)
        shuffled = list(hand)
        rng.shuffle(shuffled)
        assert group_hand(shuffled, level) == first == group_hand(hand, level)


def test_weakest_first_then_bombs_low_to_high():
    # Level 7: the two 7 of hearts are wild (R3.1) and make the pair of 5s a bomb.
    hand = parse_faces("3S 9D KC 5S 5D QS QH QC QD 7H 7H".split())
    groups = [faces_of(g) for g in group_hand(hand, r("7"))]
    assert groups == [["3S"], ["9D"], ["KC"], ["5S", "5D", "7H", "7H"],
                      ["QS", "QH", "QC", "QD"]]


@settings(max_examples=200, deadline=None)
@given(hands)
def test_wilds_kept_as_themselves_come_last(case):
    hand, level = case
    groups = group_hand(hand, level)
    for i, g in enumerate(groups):
        if all(_wild(c, level) for c in g):
            assert i == len(groups) - 1


def test_straight_and_full_house_read_in_order():
    hand = parse_faces("9S 9H 9C 8D 8S 3S 4H 5C 6D 7S KD".split())
    groups = [faces_of(g) for g in group_hand(hand, r("2"))]
    assert groups == [["KD"], ["9S", "9H", "9C", "8S", "8D"], ["3S", "4H", "5C", "6D", "7S"]]


def test_wild_sits_in_the_play_it_completes():
    # Level 2: 2H is wild (R3.1) and completes the triple of 9s into a four-card bomb.
    hand = parse_faces("9S 9D 9C 2H 4S".split())
    groups = [faces_of(g) for g in group_hand(hand, r("2"))]
    assert groups == [["4S"], ["9S", "9C", "9D", "2H"]]


def test_empty_hand():
    assert group_hand([], 0) == []

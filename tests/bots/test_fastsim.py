"""The expert's lean playouts: hands, splits, the beats rule and whole deals."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import fastsim as fs
from games.bots.model import Hand
from games.engine.deal import deal_hands
from games.engine.plays import lean_plays
from games.engine.reading import beats

hands = st.tuples(
    st.lists(st.integers(0, 107), min_size=1, max_size=27, unique=True),
    st.integers(0, 12),
)


@settings(max_examples=300, deadline=None)
@given(hands)
def test_lean_hand_matches_the_hand_model(case):
    cards, level = case
    counts, wilds, flushes = fs.lean_hand(cards, level)
    ref = fs.hand_state(Hand.from_cards(cards, level, quick=True))
    assert (counts, wilds, sorted(flushes)) == (ref[0], ref[1], sorted(ref[2]))


@settings(max_examples=300, deadline=None)
@given(hands)
def test_quick_plan_uses_every_card_once(case):
    cards, level = case
    counts, wilds, flushes = fs.lean_hand(cards, level)
    for planner in (fs.quick_plan, fs.full_plan):
        plan = planner(counts, wilds, level, flushes)
        used = [0] * 15
        used_wilds = 0
        for play in plan:
            if play[fs.FLUSH]:
                continue
            taken = sum(n for _, n in play[fs.TAKE]) + play[fs.WILDS]
            assert taken == play[fs.SIZE], play
            for r, n in play[fs.TAKE]:
                used[r] += n
            used_wilds += play[fs.WILDS]
        assert used == counts and used_wilds == wilds
        assert sum(p[fs.SIZE] for p in plan) == len(cards)


def test_beats_agrees_with_the_engine():
    """R5.1-R5.3 on lean plays, against ``engine.reading.beats`` on real readings."""
    rng = random.Random(8)
    for _ in range(40):
        level = rng.randrange(13)
        cards = rng.sample(range(108), 27)
        readings = list({p.reading for p in lean_plays(cards, level, None)})
        rng.shuffle(readings)
        for a in readings[:25]:
            for b in readings[:25]:
                lean_a = fs.play_of_reading(a, level)
                lean_b = fs.play_of_reading(b, level)
                assert fs.beats(lean_a, lean_b) == beats(a, b, level), (a, b, level)


def test_whole_deals_end_with_a_r7_1_score():
    rng = random.Random(3)
    for seed in range(30):
        level = rng.randrange(13)
        dealt = deal_hands(seed)
        states = [fs.lean_hand(h, level) for h in dealt]
        deal = fs.FastDeal(states, level, seed % 4, None, None, 0, [])
        score = deal.run(0)
        assert score in (-3, -2, -1, 1, 2, 3)
        assert all(c >= 0 for counts in deal.counts for c in counts)
        assert all(w >= 0 for w in deal.wilds)
        finished = deal.finished
        # R6.6: the deal ends when 1st's partner is out or three seats are out.
        assert len(finished) == 3 or (finished[0] + 2) % 4 in finished
        # The same deal plays out the same way.
        again = fs.FastDeal(states, level, seed % 4, None, None, 0, [])
        assert again.run(0) == score and again.finished == finished


def test_playout_to_the_first_finisher_stops_there():
    """``finish(first_only=True)`` stops as soon as one seat is out (1st decides the
    winner, R6.6) and agrees with the full playout on who that is."""
    rng = random.Random(4)
    for seed in range(30):
        level = rng.randrange(13)
        states = [fs.lean_hand(h, level) for h in deal_hands(seed)]
        short = fs.FastDeal(states, level, seed % 4, None, None, 0, [])
        short.finish(first_only=True)
        full = fs.FastDeal(states, level, seed % 4, None, None, 0, [])
        full.finish()
        assert len(short.finished) == 1
        assert short.finished[0] == full.finished[0]
        assert len(full.finished) >= 2

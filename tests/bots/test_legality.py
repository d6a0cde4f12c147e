"""Every bot action is legal (R9.1) over thousands of positions from seeded deals,
tribute and return included (R8)."""

from __future__ import annotations

import random

import pytest

from games.bots.registry import get_bot
from games.engine.deal import is_legal
from games.engine.deal import apply
from games.engine.views import view_for

from .helpers import deal_state

CHEAP = ("random", "greedy", "heuristic")


def _walk(decider, seeds, positions_wanted, rng):
    """Play deals where ``decider`` acts for every seat; check each action it makes."""
    checked = 0
    for seed in seeds:
        state = deal_state(seed, tribute=seed % 2 == 1)
        move_no = 0
        while not state.is_over:
            seat = state.to_act[0]
            action = decider(view_for(state, seat), move_no)
            assert action.seat == seat
            assert is_legal(state, action), (seed, move_no, action)
            state = apply(state, action)
            checked += 1
            move_no += 1
        if checked >= positions_wanted:
            break
    return checked


@pytest.mark.parametrize("name", CHEAP)
def test_cheap_bots_only_make_legal_actions(name):
    bot = get_bot(name)
    rng = random.Random(1)
    checked = _walk(lambda view, n: bot.choose(view, rng_seed=n), range(1, 400), 3000, rng)
    assert checked >= 3000


def test_mixed_tables_only_make_legal_actions():
    # Each seat a different bot, so positions arise that no single policy would reach.
    bots = [get_bot(n) for n in ("random", "greedy", "heuristic", "random")]
    checked = 0
    for seed in range(500, 540):
        state = deal_state(seed, tribute=True)
        n = 0
        while not state.is_over:
            seat = state.to_act[0]
            action = bots[seat].choose(view_for(state, seat), rng_seed=n)
            assert is_legal(state, action), (seed, n, action)
            state = apply(state, action)
            n += 1
            checked += 1
    assert checked > 1000


def test_expert_only_makes_legal_actions():
    # Fixed samples instead of a clock keep the test fast and reproducible.
    expert = get_bot("expert", budget_ms=None)
    expert.samples = 2
    heuristic = get_bot("heuristic")
    checked = 0
    for seed in range(900, 904):
        state = deal_state(seed, tribute=seed % 2 == 0)
        n = 0
        while not state.is_over:
            seat = state.to_act[0]
            bot = expert if seat in (0, 1) else heuristic
            action = bot.choose(view_for(state, seat), rng_seed=n)
            assert is_legal(state, action), (seed, n, action)
            state = apply(state, action)
            n += 1
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("name", ("random", "greedy", "heuristic", "expert"))
def test_same_view_and_seed_give_the_same_action(name):
    bot = get_bot(name, budget_ms=None)
    if name == "expert":
        bot.samples = 3
    state = deal_state(42)
    view = view_for(state, state.to_act[0])
    assert bot.choose(view, rng_seed=5) == bot.choose(view, rng_seed=5)

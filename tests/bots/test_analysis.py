"""Analysis of a finished deal: a mark on every decision, the better move where one lost,
the same verdict as the coach, deterministic."""

from __future__ import annotations

import random

from games.bots.advice import coach_review
from games.bots.analysis import BLUNDER, INACCURACY, MISTAKE, accuracy_of, analyse, mark_of
from games.bots.registry import get_bot
from games.engine.deal import PASS, PLAY, apply, legal_actions
from games.engine.views import view_for

from .helpers import deal_state

SAMPLES = 8


def _played_deal(seed: int, *, careless: int = 0):
    """A deal played to its end by the heuristic; seat ``careless`` plays a random legal
    action instead (a source of mistakes)."""
    state = deal_state(seed, tribute=True)
    bot = get_bot("normal")
    rng = random.Random(seed)
    states, actions = [], []
    n = 0
    while not state.is_over:
        seat = state.to_act[0]
        if seat == careless and state.phase == "play":
            action = rng.choice(legal_actions(state, seat))
        else:
            action = bot.choose(view_for(state, seat), rng_seed=n)
        states.append(state)
        actions.append(action)
        state = apply(state, action)
        n += 1
    return states, actions


def test_marks_by_loss():
    assert mark_of(0.0, is_best=True) == "best"
    assert mark_of(INACCURACY - 0.01, is_best=False) == "good"
    assert mark_of(INACCURACY, is_best=False) == "inaccuracy"
    assert mark_of(MISTAKE, is_best=False) == "mistake"
    assert mark_of(BLUNDER, is_best=False) == "blunder"
    assert accuracy_of([0.0, 0.0]) == 100.0
    assert accuracy_of([]) is None
    assert 36 < accuracy_of([1.0]) < 37


def test_every_decision_gets_a_verdict_and_losses_name_the_better_move():
    states, actions = _played_deal(21)
    result = analyse(states, actions, samples=SAMPLES, rng_seed=21)
    assert [d.index for d in result.decisions] == list(range(len(actions)))
    for decision, action in zip(result.decisions, actions):
        assert decision.seat == action.seat and decision.kind == action.kind
        assert decision.mark in ("only", "best", "good", "inaccuracy", "mistake", "blunder")
        if decision.mark in ("mistake", "blunder"):
            assert decision.better and decision.reason and decision.loss >= MISTAKE
        if decision.mark == "best":
            assert decision.loss == 0.0 and decision.better is None
        if decision.win_chance_a is not None:
            assert 0.0 <= decision.win_chance_a <= 1.0
    careless = [d for d in result.decisions if d.seat == 0 and d.mark != "only"]
    assert careless and result.accuracy[0] is not None and 0 <= result.accuracy[0] <= 100
    assert result.to_json()["decisions"][0]["index"] == 0


def test_the_analysis_says_what_the_coach_says():
    states, actions = _played_deal(33)
    result = analyse(states, actions, samples=SAMPLES, rng_seed=33)
    for decision, state, action in zip(result.decisions, states, actions):
        if action.kind not in (PLAY, PASS) or decision.mark == "only":
            continue
        highlight = coach_review(view_for(state, action.seat), action, samples=SAMPLES, rng_seed=33)
        if decision.mark in ("mistake", "blunder"):
            assert highlight is not None and highlight.better.cards == tuple(decision.better_cards)
        if decision.mark == "best":
            assert highlight is None


def test_the_same_deal_gives_the_same_analysis():
    states, actions = _played_deal(5)
    first = analyse(states[:30], actions[:30], samples=SAMPLES, rng_seed=5).to_json()
    again = analyse(states[:30], actions[:30], samples=SAMPLES, rng_seed=5).to_json()
    assert first == again


def test_progress_is_reported_after_every_decision():
    states, actions = _played_deal(8)
    seen = []
    analyse(states[:12], actions[:12], samples=SAMPLES, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(n, 12) for n in range(1, 13)]


def test_the_plot_ends_at_the_result_and_moves_little_at_a_time():
    """The chance after the last action is the result (1 when team A took 1st, else 0),
    whichever side won; every other point is the table's view (the mean of the seats'
    latest estimates), so a decision judged best, good or forced moves it by at most a
    quarter, and its stated 95% error stays small."""
    from games.engine.deal import team_of

    winners = set()
    for seed in (21, 22, 23, 24):
        states, actions = _played_deal(seed, careless=seed % 4)
        result = analyse(states, actions, samples=20, rng_seed=seed)
        final = apply(states[-1], actions[-1])
        winners.add(team_of(final.finished[0]))
        last = result.decisions[-1]
        assert last.win_chance_a == (1.0 if team_of(final.finished[0]) == 0 else 0.0)
        assert last.win_chance_error == 0.0
        before = 0.5
        for decision in result.decisions[:-1]:
            assert 0.0 <= decision.win_chance_a <= 1.0
            assert decision.win_chance_error is not None and decision.win_chance_error <= 1.96 * (0.25 / 20) ** 0.5 / 2 + 1e-9
            if decision.mark in ("best", "good", "only"):
                assert abs(decision.win_chance_a - before) <= 0.25 + 1e-9, (seed, decision.index, before, decision.win_chance_a)
            before = decision.win_chance_a
    assert winners == {0, 1}, "deals won by either side end at their result"

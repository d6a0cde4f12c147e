"""Replays and storage: the fold of the log is the live state (R11.1)."""

from __future__ import annotations

import json
import random

import pytest

from games.engine.deal import (
    PASS, PLAY, TRIBUTE, Action, apply, deal_hands, new_deal, timeout_action,
)
from games.engine.errors import RuleError
from games.engine.reading import Reading
from games.engine.replay import (
    action_from_json, action_to_json, fold, log_from_json, log_to_json, match_from_json,
    match_to_json, state_from_json, state_to_json, states,
)
from games.engine.simulate import agent_action, play_out, simulate_match


def through_json(data):
    return json.loads(json.dumps(data))


def test_fold_of_the_log_is_the_live_state_r11_1():
    first = new_deal(hands=deal_hands(31), level=0, team_levels=(0, 0), prev_places=None, seed=31)
    final, log = play_out(first, random.Random(31))
    assert fold(first, log) == final
    every = states(first, log)
    assert every[0] == first and every[-1] == final and len(every) == len(log) + 1
    assert [s.step for s in every] == list(range(len(log) + 1))


def test_fold_with_tribute_timeouts_and_autopilot_r11_1_r9_2():
    rng = random.Random(8)
    first = new_deal(hands=deal_hands(8), level=5, team_levels=(5, 2), prev_places=(0, 3, 2, 1), seed=8)
    state, log = first, []
    while not state.is_over:
        seat = state.to_act[0]
        if state.autopilot[seat]:
            action = agent_action(state, seat, rng).as_actor("autopilot")
        elif rng.random() < 0.3:
            action = timeout_action(state, seat)
        else:
            action = agent_action(state, seat, rng).as_actor("human")
        state = apply(state, action)
        log.append(action)
    assert fold(first, log) == state
    assert fold(first, log_from_json(through_json(log_to_json(log)))) == state
    assert any(a.actor == "timeout" for a in log)


def test_a_log_that_drops_the_actor_does_not_replay_the_state_r9_2():
    first = new_deal(hands=deal_hands(2), level=0, team_levels=(0, 0), prev_places=None, seed=2)
    action = timeout_action(first, first.turn)
    live = apply(first, action)
    assert fold(first, [action.as_actor("human")]) != live  # the timeout count differs


def test_state_json_round_trips_r11_1():
    first = new_deal(hands=deal_hands(17), level=3, team_levels=(3, 7), prev_places=(1, 3, 0, 2), seed=17)
    final, log = play_out(first, random.Random(17))
    for state in states(first, log)[:: max(1, len(log) // 20)] + [final]:
        assert state_from_json(through_json(state_to_json(state))) == state


def test_state_json_since_an_earlier_state_is_the_same_json():
    """The door writes each step's JSON from the previous step's (``since``): it must
    equal the JSON written from scratch, whatever lies between, and fall back to a full
    write for a state that is not a later step of the same deal."""
    first = new_deal(hands=deal_hands(23), level=4, team_levels=(4, 1), prev_places=(2, 0, 3, 1), seed=23)
    final, log = play_out(first, random.Random(23))
    every = states(first, log)
    for earlier, later in zip(every, every[1:]):
        # As the door does: the earlier state read back from its stored JSON.
        stored = through_json(state_to_json(earlier))
        read = state_from_json(stored)
        later_from_read = apply(read, log[earlier.step])
        written = state_to_json(later_from_read, since=(read, stored))
        assert written == state_to_json(later)
        if earlier.history:  # the shared moves were taken, not written again
            assert written["history"][0] is stored["history"][0]
    other = new_deal(hands=deal_hands(24), level=0, team_levels=(0, 0), prev_places=None, seed=24)
    final_other, _log = play_out(other, random.Random(24))
    assert state_to_json(final, since=(final_other, state_to_json(final_other))) == state_to_json(final)
    assert state_to_json(every[5], since=(final, state_to_json(final))) == state_to_json(every[5])


def test_state_read_since_an_earlier_state_is_the_state_read_whole():
    """A reader holding an earlier step of the deal takes its moves instead of reading
    them again: the state read equals the state read whole, and it shares the moves;
    an earlier state of another deal, or a later one, lends nothing."""
    first = new_deal(hands=deal_hands(29), level=6, team_levels=(6, 2), prev_places=(3, 1, 0, 2), seed=29)
    final, log = play_out(first, random.Random(29))
    every = states(first, log)
    for earlier, later in zip(every, every[3:]):
        read = state_from_json(through_json(state_to_json(later)), since=earlier)
        assert read == later == state_from_json(through_json(state_to_json(later)))
        assert read.dealt is earlier.dealt
        if earlier.history:
            assert all(a is b for a, b in zip(read.history, earlier.history))
    other = new_deal(hands=deal_hands(30), level=6, team_levels=(6, 2), prev_places=(3, 1, 0, 2), seed=30)
    final_other, log_other = play_out(other, random.Random(30))
    mid = every[len(every) // 2]
    # Another deal at the same number of moves, and this deal's last step.
    other_mid = next(s for s in states(other, log_other) if len(s.history) == len(mid.history))
    for since in (other_mid, final):
        read = state_from_json(through_json(state_to_json(mid)), since=since)
        assert read == mid
        assert read.history[0] is not since.history[0]
    assert state_from_json(through_json(state_to_json(mid)), since=other_mid).dealt is not other_mid.dealt


def test_action_json_round_trips():
    for action in (Action(PASS, 2), Action(TRIBUTE, 1, (53,), actor="timeout"),
                   Action(PLAY, 0, (3, 57, 12), Reading("bomb", 3, 4), "autopilot"),
                   Action(PLAY, 3, (52, 106, 53, 107), Reading("joker_bomb", 0, 4), "bot")):
        assert action_from_json(through_json(action_to_json(action))) == action


@pytest.mark.parametrize("data", [
    None, [], {"kind": "fly", "seat": 0}, {"kind": "play", "seat": 4, "cards": [1]},
    {"kind": "play", "seat": 0, "cards": [108]}, {"kind": "play", "seat": 0, "cards": "3S"},
    {"kind": "play", "seat": 0, "cards": [1], "reading": {"shape": "square"}},
    {"kind": "pass", "seat": 0, "actor": "ghost"}, {"kind": "play", "seat": True, "cards": [1]},
])
def test_malformed_actions_are_refused_r9_1(data):
    with pytest.raises(RuleError):
        action_from_json(data)


def test_match_json_round_trips():
    match = simulate_match(6)
    assert match_from_json(through_json(match_to_json(match))) == match

"""Drills: at least 12, each reachable from its start state, with checks that pass on
the right move and fail on a wrong one."""

from __future__ import annotations

import pytest

from games.bots.drills import DRILLS, HUMAN_SEAT, get_drill
from games.bots.registry import get_bot
from games.engine.cards import FACE_OF
from games.engine.combos import readings_of
from games.engine.deal import PASS, PLAY, RETURN, TRIBUTE, Action, apply, is_legal
from games.engine.reading import Reading
from games.engine.views import view_for


def _cards(state, faces: str) -> tuple[int, ...]:
    chosen: list[int] = []
    for text in faces.split():
        chosen.append(next(c for c in state.hands[HUMAN_SEAT] if FACE_OF[c] == text and c not in chosen))
    return tuple(chosen)


def _play(state, faces: str, reading: dict | None = None) -> Action:
    cards = _cards(state, faces)
    declared = Reading.from_json(reading) if reading else None
    if declared is None:
        options = readings_of(cards, state.level)
        if state.top is not None:
            from games.engine.reading import beats
            options = [r for r in options if beats(r, state.top.reading, state.level)]
        declared = options[0]
    return Action(PLAY, HUMAN_SEAT, cards, declared)


def _run(drill, human_moves):
    """Play the drill: the human's scripted moves (a function of the state), the other
    seats on the heuristic bot. Returns the human's actions and the state at the end."""
    bot = get_bot("heuristic")
    state = drill.start_state()
    actions: list[Action] = []
    n = 0
    while not drill.done(actions, state):
        seat = state.to_act[0]
        if seat == HUMAN_SEAT:
            action = human_moves(state, len(actions))
            actions.append(action)
        else:
            action = bot.choose(view_for(state, seat), rng_seed=n)
        assert is_legal(state, action), (drill.id, action)
        state = apply(state, action)
        n += 1
    return actions, state


# drill id -> (a right move, a wrong move), each a function (state, index) -> Action.
SCRIPTS = {
    "finish-in-three": (
        lambda s, i: _play(s, ["3S 4H 5C 6D 7S", "9S 9H 9C 8D 8S", "QS QH"][i]),
        lambda s, i: _play(s, ["3S", "4H", "5C", "6D", "7S", "QS QH", "9S 9H 9C 8D 8S"][i])
        if s.top is None else Action(PASS, HUMAN_SEAT),
    ),
    "wild-straight-flush": (
        lambda s, i: _play(s, "TD JD QD KD 7H", {"shape": "straight_flush", "top": "A"}),
        lambda s, i: _play(s, "TD JD QD KD 7H", {"shape": "straight_flush", "top": "K"}),
    ),
    "wild-five-bomb": (
        lambda s, i: _play(s, "9S 9C 9D 5H 5H", {"shape": "bomb", "rank": "9", "size": 5}),
        lambda s, i: Action(PASS, HUMAN_SEAT),
    ),
    "pass-for-partner": (
        lambda s, i: Action(PASS, HUMAN_SEAT),
        lambda s, i: _play(s, "AS AC"),
    ),
    "right-bomb": (
        lambda s, i: _play(s, "4S 4H 4C 4D"),
        lambda s, i: _play(s, "QS QH QC QD QS QH"),
    ),
    "stop-the-runner": (
        lambda s, i: _play(s, "5S 5H 5C 5D"),
        lambda s, i: Action(PASS, HUMAN_SEAT),
    ),
    "feed-partner": (
        lambda s, i: _play(s, "3C"),
        lambda s, i: _play(s, "QH QC"),
    ),
    "keep-the-bomb": (
        lambda s, i: _play(s, "QC"),
        lambda s, i: _play(s, "8S"),
    ),
    "winner-first": (
        lambda s, i: _play(s, ["BJ BJ", "3S"][i]),
        lambda s, i: _play(s, "3S") if i == 0 else (
            _play(s, "BJ BJ") if s.top is None else Action(PASS, HUMAN_SEAT)),
    ),
    "wind": (
        lambda s, i: Action(PASS, HUMAN_SEAT),
        lambda s, i: _play(s, "BJ"),
    ),
    "low-return": (
        lambda s, i: Action(RETURN, HUMAN_SEAT, _cards(s, "3C")),
        lambda s, i: Action(RETURN, HUMAN_SEAT, _cards(s, "9S")),
    ),
    "tribute-keeps-flush": (
        lambda s, i: Action(TRIBUTE, HUMAN_SEAT, _cards(s, "AD")),
        lambda s, i: Action(TRIBUTE, HUMAN_SEAT, _cards(s, "AH")),
    ),
}


def test_there_are_at_least_twelve_drills_with_unique_ids():
    assert len(DRILLS) >= 12
    assert len({d.id for d in DRILLS}) == len(DRILLS)
    assert set(SCRIPTS) == {d.id for d in DRILLS}
    for drill in DRILLS:
        assert drill.title and drill.goal and drill.rule.startswith("R")
        assert get_drill(drill.id) is drill


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_start_state_puts_the_human_to_act(drill):
    state = drill.start_state()
    assert HUMAN_SEAT in state.to_act
    assert not drill.done([], state)
    assert drill.check([], state).passed is False


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_right_move_passes(drill):
    right, _ = SCRIPTS[drill.id]
    actions, state = _run(drill, right)
    result = drill.check(actions, state)
    assert result.passed, result.message
    assert result.message


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_wrong_move_fails_with_a_reason_citing_a_rule(drill):
    _, wrong = SCRIPTS[drill.id]
    actions, state = _run(drill, wrong)
    result = drill.check(actions, state)
    assert not result.passed
    assert "(R" in result.message


def test_unknown_drill_is_an_error():
    with pytest.raises(ValueError):
        get_drill("no-such-drill")

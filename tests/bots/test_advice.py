"""Suggestions with reasons, and coach highlights that fire on a clearly bad play and
not on the best one."""

from __future__ import annotations

from games.bots.advice import coach_review, suggest
from games.bots.drills import HUMAN_SEAT, get_drill
from games.engine.cards import FACE_OF
from games.engine.deal import PASS, PLAY, Action, is_legal
from games.engine.views import view_for

FAST = {"budget_ms": None, "samples": 30}


def _cards(state, faces):
    chosen = []
    for text in faces.split():
        chosen.append(next(c for c in state.hands[HUMAN_SEAT] if FACE_OF[c] == text and c not in chosen))
    return tuple(chosen)


def test_suggestion_passes_on_partner_and_says_why():
    state = get_drill("pass-for-partner").start_state()
    suggestion = suggest(view_for(state, HUMAN_SEAT), **FAST)
    assert suggestion.action.kind == PASS
    assert "partner keep the lead" in suggestion.reason
    assert suggestion.to_json()["name"] == "pass"


def test_suggestion_is_legal_and_names_the_kept_bomb():
    state = get_drill("keep-the-bomb").start_state()
    suggestion = suggest(view_for(state, HUMAN_SEAT), **FAST)
    assert is_legal(state, suggestion.action)
    assert [FACE_OF[c] for c in suggestion.cards] == ["QC"]
    assert "keeps your bomb of four 8s" in suggestion.reason


def test_suggestion_counts_plays_left():
    state = get_drill("finish-in-three").start_state()
    suggestion = suggest(view_for(state, HUMAN_SEAT), **FAST)
    assert is_legal(state, suggestion.action)
    assert suggestion.action.kind == PLAY
    assert "plays" in suggestion.reason


def test_suggestion_for_a_return_cites_r8_4():
    state = get_drill("low-return").start_state()
    suggestion = suggest(view_for(state, HUMAN_SEAT), **FAST)
    assert [FACE_OF[c] for c in suggestion.cards] == ["3C"]
    assert suggestion.reason.startswith("R8.4")


def test_coach_flags_bombing_your_partner():
    state = get_drill("pass-for-partner").start_state()
    view = view_for(state, HUMAN_SEAT)
    bad = Action(PLAY, HUMAN_SEAT, _cards(state, "AS AC"))
    highlight = coach_review(view, bad, **FAST)
    assert highlight is not None
    assert highlight.better.kind == PASS
    assert "partner" in highlight.reason
    assert highlight.to_json()["better"] == "pass"


def test_coach_is_quiet_on_the_best_play():
    state = get_drill("pass-for-partner").start_state()
    view = view_for(state, HUMAN_SEAT)
    assert coach_review(view, Action(PASS, HUMAN_SEAT), **FAST) is None


def test_coach_flags_a_costly_return_and_not_the_right_one():
    state = get_drill("low-return").start_state()
    view = view_for(state, HUMAN_SEAT)
    from games.engine.deal import RETURN
    assert coach_review(view, Action(RETURN, HUMAN_SEAT, _cards(state, "3C")), **FAST) is None
    highlight = coach_review(view, Action(RETURN, HUMAN_SEAT, _cards(state, "9S")), **FAST)
    assert highlight is not None and [FACE_OF[c] for c in highlight.better.cards] == ["3C"]

"""The expert's sampling: candidates, the paired pick, pruning, and a fixed-sample run
being reproducible."""

from __future__ import annotations

import random

from games.bots.drills import HUMAN_SEAT, get_drill
from games.bots.expert import _pick, _prune, evaluate
from games.bots.view import Seen
from games.engine.views import view_for


def _seen(drill_id):
    return Seen.from_view(view_for(get_drill(drill_id).start_state(), HUMAN_SEAT))


def test_no_bomb_candidates_when_the_heuristic_holds_its_bombs():
    result = evaluate(_seen("keep-the-bomb"), random.Random(1), budget_ms=None, samples=8)
    assert result.candidates[0] is not None and not result.candidates[0].is_bomb
    assert not any(m is not None and m.is_bomb for m in result.candidates)
    assert result.samples == 8


def test_same_seed_same_evaluation():
    seen = _seen("keep-the-bomb")
    a = evaluate(seen, random.Random(5), budget_ms=None, samples=12)
    b = evaluate(seen, random.Random(5), budget_ms=None, samples=12)
    assert a.scores == b.scores and a.best == b.best


def test_pick_keeps_the_heuristic_move_unless_clearly_better():
    base = [1, -1, 2, 1, -2, 3, 1, 1]
    noisy = [3, -3, 2, 1, 1, 3, -1, 1]       # +0.25 on average, very noisy
    better = [2, 1, 3, 2, 1, 3, 2, 2]        # +1.5 on every deal but one
    assert _pick([base, noisy], margin=0.3) == 0
    assert _pick([base, better], margin=0.3) == 1
    assert _pick([base, noisy, better], margin=0.3) == 2
    # Too few samples decide nothing.
    assert _pick([base[:2], better[:2]], margin=0.3) == 0


def test_prune_drops_only_clearly_worse_candidates():
    base = [1, 1, 2, 1, 1, 2, 1, 1]
    worse = [-2, -1, -1, -2, -3, -1, -2, -1]
    close = [1, 2, 2, 0, 1, 2, 1, 2]
    assert _prune([base, worse, close], [0, 1, 2]) == [0, 2]


def test_outcome_score_weights_the_win_and_the_levels():
    from games.bots.expert import outcome_score
    # Seat 0's team 1st with the partner 2nd: won, +3 levels (R7.1).
    assert outcome_score([0, 2], 0, 1.0, 0.0) == 1.0
    assert outcome_score([0, 2], 1, 1.0, 0.0) == -1.0
    assert outcome_score([0, 2], 0, 0.0, 1.0) == 3
    assert outcome_score([1, 0, 3], 2, 1.0, 0.5) == -1.0 - 0.5 * 2
    # 1-4 for seat 1's team: won, +1.
    assert outcome_score([1, 0, 2], 3, 2.0, 1.0) == 3.0


def test_the_bot_scores_playouts_by_winning_the_deal():
    """The bot's own objective: +-1 per playout (win or lose the deal) while 1st is not
    decided; the coach's default stays R7.1 level change."""
    from games.bots import expert
    seen = _seen("keep-the-bomb")
    assert not seen.finished
    result = evaluate(seen, random.Random(3), budget_ms=None, samples=8,
                      win_weight=expert.WIN_WEIGHT, level_weight=expert.LEVEL_WEIGHT,
                      prune=False)
    if len(result.candidates) > 1:
        assert all(v in (-1.0, 1.0) for row in result.scores for v in row)
    levels = evaluate(seen, random.Random(3), budget_ms=None, samples=8, prune=False)
    if len(levels.candidates) > 1:
        assert all(v in (-3, -2, -1, 1, 2, 3) for row in levels.scores for v in row)


def _lead_seen(faces, level="2"):
    from games.engine.cards import parse_faces, rank_index
    from games.engine.deal import start_play
    every = parse_faces([f for h in faces for f in h.split()])
    hands, at = [], 0
    for h in faces:
        hands.append(every[at:at + len(h.split())])
        at += len(h.split())
    state = start_play(hands=hands, level=rank_index(level), leader=0)
    return Seen.from_view(view_for(state, 0))


def test_last_ordinary_play_is_led_before_the_bomb():
    """With one ordinary play that can be beaten and a bomb, the heuristic leads the
    bomb; the expert leads the ordinary play first (the bomb can still win the lead
    back) and keeps that move unless sampling finds a clearly better one."""
    from games.bots.model import Hand, split_hand
    from games.bots.policy import choose
    seen = _lead_seen(("8S 8H 8C 8D 3S", "KS QS JD", "4C 5C 6D", "AS 9D TD"))
    hand = Hand.from_cards(seen.hand, seen.level)
    assert choose(hand, split_hand(hand), seen.table()).is_bomb
    result = evaluate(seen, random.Random(2), budget_ms=None, samples=8, last_play_first=True)
    first = result.candidates[0]
    assert first is not None and not first.is_bomb and first.reading.shape == "single"
    assert any(m is not None and m.is_bomb for m in result.candidates)
    plain = evaluate(seen, random.Random(2), budget_ms=None, samples=8)
    assert plain.candidates[0].is_bomb


def test_no_break_candidates_when_the_split_has_a_play():
    """``breaks=False`` (the bot's setting) drops candidates that break a group of the
    split when the heuristic's own move is a play of the split or a pass."""
    from games.engine.cards import FACE_OF, parse_faces, rank_index
    from games.engine.deal import PLAY, Action, apply, start_play
    faces = ("QC 3S 3H 9S 9H 9D", "KS QS JD", "4C 6C 6D", "AS 5D TD")
    every = parse_faces([f for h in faces for f in h.split()])
    hands, at = [], 0
    for h in faces:
        hands.append(every[at:at + len(h.split())])
        at += len(h.split())
    state = start_play(hands=hands, level=rank_index("2"), leader=3)
    five = next(c for c in state.hands[3] if FACE_OF[c] == "5D")
    state = apply(state, Action(PLAY, 3, (five,)))
    seen = Seen.from_view(view_for(state, 0))
    with_breaks = evaluate(seen, random.Random(1), budget_ms=None, samples=4)
    split_moves = set(with_breaks.split.moves)
    assert with_breaks.candidates[0] in split_moves
    assert any(m is not None and m not in split_moves for m in with_breaks.candidates)
    without = evaluate(seen, random.Random(1), budget_ms=None, samples=4, breaks=False)
    assert without.candidates[0] == with_breaks.candidates[0]
    assert all(m is None or m in split_moves for m in without.candidates)

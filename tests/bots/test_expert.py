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

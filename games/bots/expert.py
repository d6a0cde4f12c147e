"""The expert bot (table level "hard"): determinized sampling over the heuristic.

For each decision it:

1. takes a handful of candidate moves from the heuristic (``policy.candidate_moves``:
   the heuristic's own choice first, then the other sensible leads, or pass / the
   weakest beating plays / the lowest bomb when following);
2. deals the cards it has not seen to the other three seats, consistent with everything
   public: cards played, exact card counts (``view.Seen``), tribute gifts still held by
   their recipient (R8), and passes where they say something: of two candidate deals
   it keeps the one where fewer seats held an unbroken play that beat a top they passed
   on (R6.2 allows passing, so this is a preference, not a rule);
3. plays each candidate to the end of the deal in every sampled deal (``sim.Playout``,
   every seat on the heuristic policy) and scores it by the level change of R7.1 for its
   team;
4. keeps the candidate with the best mean, preferring the heuristic's own choice unless
   another is better by a margin.

It stops sampling when its time budget (default 300 ms a move) is spent, so a slow
machine gets fewer samples, not a slower bot. With ``budget_ms=None`` it takes exactly
``samples`` samples, and the same view and seed always give the same move.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from games.engine.deal import Action
from games.engine.reading import Reading

from .base import move_to_action
from .heuristic import HeuristicBot
from .model import Hand, Move, Split, split_hand
from .model import strength_of
from .policy import Table, candidate_moves, quick_split
from .sim import Playout, level_change, places_from
from .view import Seen

__all__ = ["ExpertBot", "Evaluation", "evaluate", "DEFAULT_BUDGET_MS"]

DEFAULT_BUDGET_MS = 300.0
DEFAULT_SAMPLES = 400
# How much better (in levels) another candidate's mean must be to replace the
# heuristic's own choice: sampling noise should not make the expert erratic.
MARGIN = 0.1
PASS_CHECKS = 6


@dataclass(slots=True)
class Evaluation:
    """The expert's comparison of candidates: mean level change per candidate."""

    hand: Hand
    split: Split
    table: Table
    candidates: list[Move | None]
    means: list[float]
    samples: int
    best: int

    @property
    def best_move(self) -> Move | None:
        return self.candidates[self.best]

    def mean_of(self, move: Move | None) -> float | None:
        for cand, mean in zip(self.candidates, self.means):
            if cand == move:
                return mean
        return None


def _pass_checks(seen: Seen) -> list[tuple[int, Reading, list[int]]]:
    """Informative passes: (seat, top it passed on, cards it played afterwards).

    Only passes on an opponent's single, pair or triple count (passing on a partner
    says nothing), the latest few of them.
    """
    out = []
    top: tuple[int, Reading] | None = None
    history = seen.history
    for index, m in enumerate(history):
        if m.reading is not None:
            top = (m.seat, m.reading)
            continue
        if top is None or m.seat == seen.seat or ((m.seat ^ top[0]) & 1) == 0:
            continue
        if top[1].shape not in ("single", "pair", "triple"):
            continue
        later = [c for x in history[index + 1:] if x.seat == m.seat for c in x.cards]
        out.append((m.seat, top[1], later))
    return out[-PASS_CHECKS:]


def _violations(hands: dict[int, list[int]], checks, level: int) -> int:
    bad = 0
    for seat, top, later in checks:
        then = Hand.from_cards(hands[seat] + later, level, find_flushes=False)
        for move in quick_split(then).moves:
            if not move.is_bomb and move.reading.shape == top.shape and \
                    _beats_same(move.reading, top, level):
                bad += 1
                break
    return bad


def _beats_same(play: Reading, top: Reading, level: int) -> bool:
    return strength_of(play.key, level) > strength_of(top.key, level)


def sample_deal(seen: Seen, rng: random.Random, checks=None) -> dict[int, list[int]]:
    """One deal of the unseen cards to the other seats (see the module doc, step 2)."""
    others = [s for s in range(4) if s != seen.seat]
    known: dict[int, list[int]] = {s: [] for s in others}
    for card, holder in seen.known_held.items():
        if holder in known:
            known[holder].append(card)
    pinned = set(seen.known_held)
    pool = [c for c in seen.unseen_cards() if c not in pinned]
    needs = {s: max(0, seen.counts[s] - len(known[s])) for s in others}
    best: dict[int, list[int]] | None = None
    best_bad = None
    tries = 2 if checks else 1
    for _ in range(tries):
        rng.shuffle(pool)
        hands: dict[int, list[int]] = {}
        at = 0
        for s in others:
            n = needs[s]
            hands[s] = known[s] + pool[at:at + n]
            at += n
        if not checks:
            return hands
        bad = _violations(hands, checks, seen.level)
        if best_bad is None or bad < best_bad:
            best, best_bad = hands, bad
            if bad == 0:
                break
    assert best is not None
    return best


def evaluate(seen: Seen, rng: random.Random, *, budget_ms: float | None = DEFAULT_BUDGET_MS,
             samples: int = DEFAULT_SAMPLES, candidates: list[Move | None] | None = None,
             margin: float = MARGIN, hand: Hand | None = None) -> Evaluation:
    """Compare candidate moves by playouts over sampled deals (module doc).

    ``hand`` overrides the seat's hand model (for a move that uses cards of a straight
    flush the splitter keeps aside)."""
    start = time.perf_counter()
    level = seen.level
    if hand is None:
        hand = Hand.from_cards(seen.hand, level)
    split = split_hand(hand)
    table = seen.table()
    if candidates is None:
        candidates = candidate_moves(hand, split, table)
    scores: list[list[int]] = [[] for _ in candidates]
    done = 0
    if len(candidates) > 1:
        deadline = None if budget_ms is None else start + budget_ms * 0.85 / 1000.0
        checks = _pass_checks(seen)
        passes = len(seen.passes_since_top())
        while done < samples:
            if deadline is not None and time.perf_counter() > deadline and done > 0:
                break
            deal = sample_deal(seen, rng, checks)
            others = {s: Hand.from_cards(cards, level, quick=True) for s, cards in deal.items()}
            for index, move in enumerate(candidates):
                hands = [hand.copy() if s == seen.seat else others[s].copy() for s in range(4)]
                playout = Playout(hands, level, seen.seat, seen.top, seen.top_seat, passes,
                                  list(seen.finished))
                if playout.play(seen.seat, move):
                    scores[index].append(level_change(places_from(playout.finished), seen.seat))
                else:
                    scores[index].append(playout.run(seen.seat))
            done += 1
    means = [sum(v) / done if done else 0.0 for v in scores]
    best = _pick(scores, margin)
    return Evaluation(hand, split, table, candidates, means, done, best)


def _pick(scores: list[list[int]], margin: float) -> int:
    """The candidate to play: the heuristic's own (index 0) unless another beats it on
    the same sampled deals by more than ``margin`` levels on average and by more than
    1.64 standard errors of the paired differences (a one-sided 95% test), so that
    sampling noise does not make the expert erratic."""
    best, best_gain = 0, 0.0
    base = scores[0]
    n = len(base)
    if n < 2:
        return 0
    for index in range(1, len(scores)):
        diffs = [a - b for a, b in zip(scores[index], base)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        stderr = (var / n) ** 0.5
        if mean > margin and mean - 1.64 * stderr > 0 and mean > best_gain:
            best, best_gain = index, mean
    return best


class ExpertBot(HeuristicBot):
    """Determinized sampling (module doc); tribute and return as the heuristic."""

    name = "expert"

    def __init__(self, budget_ms: float | None = DEFAULT_BUDGET_MS, samples: int = DEFAULT_SAMPLES,
                 margin: float = MARGIN) -> None:
        self.budget_ms = budget_ms
        self.samples = samples
        self.margin = margin

    def play(self, seen: Seen, rng: random.Random) -> Action:
        result = evaluate(seen, rng, budget_ms=self.budget_ms, samples=self.samples,
                          margin=self.margin)
        return move_to_action(seen, result.best_move, result.hand)

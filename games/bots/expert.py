"""The expert bot (table level "hard"): determinized sampling over the heuristic.

For each decision it:

1. takes a handful of candidate moves from the heuristic (``policy.candidate_moves``:
   the heuristic's own choice first, then the other sensible leads, or pass / the
   weakest beating plays when following; bombs only when the heuristic's own choice
   is a bomb). The bot leaves out plays that break a group of its split unless the
   heuristic's own move is such a play (played out on the real hidden cards, switches
   to them gained about nothing), and where the heuristic would lead a bomb while one
   ordinary play that can be beaten is left, its own choice is that ordinary play
   instead (the bomb led first only comes back to the same last play; kept, it can
   win the lead back);
2. deals the cards it has not seen to the other three seats, consistent with everything
   public: cards played, exact card counts (``view.Seen``) and tribute gifts still held
   by their recipient (R8), and drawn in proportion to how well each deal explains what
   the other seats did (``inference.DealSampler``: a deal under which the heuristic's
   policy would not have made a seat's past play or pass is e^5 times less likely per
   such decision). With ``INFER`` off it deals uniformly instead, keeping of two deals
   the one that fewer informative passes contradict;
3. plays each candidate on in every sampled deal with lean rank-count playouts
   (``fastsim.FastDeal``: every seat on the heuristic's policy, the expert's own seat
   starting from the heuristic's searched split of its hand) and scores it
   (``outcome_score``). The bot scores winning the deal (its team takes 1st, R6.6):
   +1 or -1, so a playout stops as soon as one seat is out; once 1st is decided, the
   level change of R7.1 scores instead. The coach and suggestions (``advice``) keep
   R7.1's level change as the score, since they speak in levels. All candidates are
   played on the same sampled deals (common random numbers), so their differences are
   measured with far less noise than their values; every few samples, candidates
   already clearly worse than the heuristic's choice stop being sampled;
4. keeps the heuristic's own choice unless another candidate beats it on the same deals
   by more than a margin on average and by more than ``z`` standard errors of the
   paired differences (the bot: ``BOT_MARGIN`` = 0.1 of a win, ``BOT_PICK_Z`` = 2;
   looser tests switched on noise and lost to the heuristic).

It stops sampling when its time budget (default 300 ms a move) is spent or when it has
``samples`` sampled deals, so a slow machine gets fewer samples, not a slower bot. With
``budget_ms=None`` it takes exactly ``samples`` samples, and the same view and seed
always give the same move.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from games.engine.deal import Action
from games.engine.reading import Reading

from .base import move_to_action
from .heuristic import HeuristicBot
from .inference import DealSampler
from .fastsim import (
    SHAPE_CODE, FastDeal, full_plan, hand_state, lean_hand, play_of_move, play_of_reading,
    quick_plan,
)
from .fastsim import level_change as fast_level_change
from .model import Hand, Move, Split, split_hand, strength_of
from .policy import Table, candidate_moves
from .view import Seen

__all__ = ["ExpertBot", "Evaluation", "evaluate", "DEFAULT_BUDGET_MS"]

DEFAULT_BUDGET_MS = 300.0
DEFAULT_SAMPLES = 400
# How much better (in levels) another candidate's mean must be to replace the
# heuristic's own choice: sampling noise should not make the expert erratic.
MARGIN = 0.3
PASS_CHECKS = 6
# Deals drawn per sample; the one fewest past passes contradict is kept (``sample_deal``).
SAMPLE_TRIES = 2
# Paired test for leaving the heuristic's choice (see ``_pick``).
PICK_Z = 1.0
MIN_SAMPLES = 4
# The other seats start a playout from the heuristic's searched split of their sampled
# hand (True) or from the quick split (False: about twice the samples in the same time).
FULL_PLANS = False
# Every few samples, candidates clearly worse than the heuristic's choice stop being
# sampled: those whose paired mean plus PRUNE_Z standard errors is below -PRUNE_FLOOR.
PRUNE_EVERY = 4
PRUNE_Z = 1.0
PRUNE_FLOOR = 0.2
# The bot's own settings (module doc; the coach and suggestions keep the defaults of
# ``evaluate``: level scoring, MARGIN, PICK_Z). A playout scores WIN_WEIGHT for winning
# the deal (minus for losing it) plus LEVEL_WEIGHT times the level change; the margin
# and the prune floor are in those units (0.1 = a tenth of a win).
WIN_WEIGHT = 1.0
LEVEL_WEIGHT = 0.0
BOT_MARGIN = 0.1
BOT_PICK_Z = 2.0
BOT_PRUNE_FLOOR = 0.1
BOT_BREAKS = False
BOT_LAST_PLAY_FIRST = True
# Deals drawn from what the history says (``inference.DealSampler``), not uniformly.
INFER = True


@dataclass(slots=True)
class Evaluation:
    """The expert's comparison of candidates: mean playout score per candidate (level
    change by default, ``evaluate``)."""

    hand: Hand
    split: Split
    table: Table
    candidates: list[Move | None]
    means: list[float]
    samples: int
    best: int
    # Per candidate, its playout score on each sampled deal (the same deals for all).
    scores: list[list[float]] | None = None

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
    """How many informative passes a sampled deal contradicts: the seat's hand then
    (its sampled cards plus what it played later) split into a play of the top's shape
    that beat it (R5.1), yet it passed."""
    bad = 0
    for seat, top, later in checks:
        counts, wilds, _ = lean_hand(hands[seat] + later, level)
        shape = SHAPE_CODE[top.shape]
        key = strength_of(top.key, level)
        for play in quick_plan(counts, wilds, level, ()):
            if play[0] == shape and play[1] > key:
                bad += 1
                break
    return bad


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
    tries = SAMPLE_TRIES if checks else 1
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


def outcome_score(finished: list[int], seat: int, win_weight: float, level_weight: float) -> float:
    """A playout's score for ``seat``'s team: ``win_weight`` for winning the deal (its
    team has 1st, R6.6; minus that for losing it) plus ``level_weight`` times R7.1's
    level change."""
    if not finished:
        return 0.0
    score = win_weight if (finished[0] & 1) == (seat & 1) else -win_weight
    if level_weight:
        score += level_weight * fast_level_change(finished, seat)
    return score


def evaluate(seen: Seen, rng: random.Random, *, budget_ms: float | None = DEFAULT_BUDGET_MS,
             samples: int = DEFAULT_SAMPLES, candidates: list[Move | None] | None = None,
             margin: float = MARGIN, hand: Hand | None = None,
             pick_z: float | None = None, prune: bool = True,
             win_weight: float = 0.0, level_weight: float = 1.0,
             prune_floor: float = PRUNE_FLOOR, breaks: bool = True,
             last_play_first: bool = False, infer: bool | None = None) -> Evaluation:
    """Compare candidate moves by playouts over sampled deals (module doc).

    ``hand`` overrides the seat's hand model (for a move that uses cards of a straight
    flush the splitter keeps aside). ``prune=False`` samples every candidate on every
    deal (so all means cover the same deals, as the coach's comparison needs);
    ``pick_z`` overrides ``PICK_Z``. ``win_weight``/``level_weight`` set the playout
    score (``outcome_score``; the default is R7.1's level change), ``prune_floor`` the
    pruning floor in the same units; ``breaks=False`` leaves out plays that break a
    group of the split, ``last_play_first`` leads the last ordinary play before a bomb
    (step 1 of the module doc); ``infer`` overrides ``INFER`` (step 2)."""
    start = time.perf_counter()
    level = seen.level
    if hand is None:
        hand = Hand.from_cards(seen.hand, level)
    split = split_hand(hand)
    table = seen.table()
    if candidates is None:
        candidates = candidate_moves(hand, split, table)
        first = candidates[0]
        if first is None or not first.is_bomb:
            # Bombing where the heuristic holds its bombs back did no better than the
            # heuristic's own move on average (worse late in a deal) when candidates
            # were checked against the real deal played out to its end; the sampling
            # then only adds noise there, so a bomb is compared only when the
            # heuristic itself bombs.
            candidates = [m for m in candidates if m is None or not m.is_bomb]
        if last_play_first and table.top is None and first is not None and first.is_bomb:
            ordinary = [m for m in split.moves if not m.is_bomb]
            if len(ordinary) == 1:
                # Leading the bomb first only spends it: the lead comes back to the same
                # last ordinary play. Lead that play; a bomb can still win the lead back.
                candidates = [ordinary[0]] + [m for m in candidates if m != ordinary[0]]
                first = candidates[0]
        if not breaks and (first is None or first in split.moves):
            # Plays that break a group of the split (``policy.candidate_moves``).
            candidates = [m for m in candidates if m is None or m in split.moves]
    scores: list[list[float]] = [[] for _ in candidates]
    done = 0
    if len(candidates) > 1:
        deadline = None if budget_ms is None else start + budget_ms * 0.85 / 1000.0
        passes = len(seen.passes_since_top())
        seat = seen.seat
        own = hand_state(hand)
        own_plan = [play_of_move(m, hand) for m in split.moves]
        top = play_of_reading(seen.top, level) if seen.top is not None else None
        lean = [None if move is None else play_of_move(move, hand) for move in candidates]
        active = list(range(len(candidates)))
        planner = full_plan if FULL_PLANS else quick_plan
        win_w, level_w = win_weight, level_weight
        if seen.finished:
            # Who wins the deal is settled: only the places still count.
            win_w, level_w = 0.0, 1.0
        # Without a level term, a playout is over once some seat has finished.
        first_only = not level_w
        infer = INFER if infer is None else infer
        sampler: DealSampler | None = None  # built on the first sample (its chain costs)
        checks = None if infer else _pass_checks(seen)
        while done < samples and len(active) > 1:
            if deadline is not None and time.perf_counter() > deadline and done > 0:
                break
            if infer:
                if sampler is None:
                    sampler = DealSampler(seen, rng)
                deal = sampler.next_deal()
            else:
                deal = sample_deal(seen, rng, checks)
            states = [own if s == seat else lean_hand(deal[s], level) for s in range(4)]
            plans = [own_plan if s == seat else
                     planner(states[s][0], states[s][1], level, states[s][2])
                     for s in range(4)]
            for index in active:
                playout = FastDeal(states, level, seat, top, seen.top_seat, passes,
                                   list(seen.finished), plans)
                if not playout.play(seat, lean[index]):
                    playout.finish(first_only)
                scores[index].append(outcome_score(playout.finished, seat, win_w, level_w))
            done += 1
            if prune and done % PRUNE_EVERY == 0:
                active = _prune(scores, active, prune_floor)
    means = [sum(v) / len(v) if v else 0.0 for v in scores]
    best = _pick(scores, margin, PICK_Z if pick_z is None else pick_z)
    return Evaluation(hand, split, table, candidates, means, done, best, scores)


def _paired(scores: list[list[float]], index: int) -> tuple[float, float, int]:
    """Mean and standard error of candidate ``index`` minus the heuristic's choice, over
    the sampled deals both were played on (common random numbers)."""
    diffs = [a - b for a, b in zip(scores[index], scores[0])]
    n = len(diffs)
    if n < 2:
        return 0.0, float("inf"), n
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5, n


def _prune(scores: list[list[float]], active: list[int], floor: float = PRUNE_FLOOR) -> list[int]:
    """Stop sampling candidates already clearly worse than the heuristic's choice, so
    the time goes to the ones still in contention."""
    keep = [0]
    for index in active:
        if index == 0:
            continue
        mean, stderr, _ = _paired(scores, index)
        if mean + PRUNE_Z * stderr > -floor:
            keep.append(index)
    return keep


def _pick(scores: list[list[float]], margin: float, z: float = PICK_Z) -> int:
    """The candidate to play: the heuristic's own (index 0) unless another beats it on
    the same sampled deals by more than ``margin`` levels on average and by more than
    ``z`` standard errors of the paired differences, so that sampling noise does not
    make the expert erratic."""
    best, best_gain = 0, 0.0
    for index in range(1, len(scores)):
        mean, stderr, n = _paired(scores, index)
        if n >= MIN_SAMPLES and mean > margin and mean - z * stderr > 0 \
                and mean > best_gain:
            best, best_gain = index, mean
    return best


class ExpertBot(HeuristicBot):
    """Determinized sampling (module doc); tribute and return as the heuristic."""

    name = "expert"

    def __init__(self, budget_ms: float | None = DEFAULT_BUDGET_MS, samples: int = DEFAULT_SAMPLES,
                 margin: float | None = None) -> None:
        self.budget_ms = budget_ms
        self.samples = samples
        self.margin = BOT_MARGIN if margin is None else margin

    def play(self, seen: Seen, rng: random.Random) -> Action:
        result = evaluate(seen, rng, budget_ms=self.budget_ms, samples=self.samples,
                          margin=self.margin, pick_z=BOT_PICK_Z, win_weight=WIN_WEIGHT,
                          level_weight=LEVEL_WEIGHT, prune_floor=BOT_PRUNE_FLOOR,
                          breaks=BOT_BREAKS, last_play_first=BOT_LAST_PLAY_FIRST)
        return move_to_action(seen, result.best_move, result.hand)

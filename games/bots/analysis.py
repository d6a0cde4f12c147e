"""Analysis of a finished deal (复盘): the expert's verdict on every decision.

``analyse(states, actions)`` takes a deal as its replay gives it (``states[i]`` is the
state before ``actions[i]``) and judges each decision of each seat with the same
evaluation as the suggestion and the coach (``advice.assess``: the same candidates on
the same sampled deals, the same seed for a position), so the analysis, the suggestion
and the coach can never disagree about a position.

For each decision:

- a play or a pass with more than one legal choice: the expected level change (R7.1,
  from the acting seat's side) of the move played and of the best move (the
  suggestion), their difference (``loss``), the better move and its reason, and the
  acting team's chance of winning the deal (taking 1st, R6.6) after the move played;
- a tribute or a return (R8): the heuristic's choice as the better card, and the loss as
  the difference of what the card costs the hand (``heuristic.hand_cost_without``, in
  the same units as the coach's); no chance of winning;
- a decision with one legal choice is marked ``only`` and not evaluated.

Marks by the loss in levels (documented in games/bots/README.md): ``best`` (the
suggestion itself), ``good`` (< 0.2), ``inaccuracy`` (>= 0.2), ``mistake`` (>= 0.5, the
coach's threshold) and ``blunder`` (>= 1.0). A seat's accuracy is the mean over its
evaluated decisions of 100 x e^(-loss): 100 for playing the suggestion throughout,
about 82 for a loss of 0.2 a decision, 61 for 0.5, 37 for 1.

Team A's chance of winning after each step (``win_chance_a``, the replay's plot) is the
table's view rather than the acting seat's alone: each seat judges the position from its
own hand (sampled deals of the cards it has not seen), so one seat's estimate and the
next one's may differ by tens of points without anything having happened. The plotted
chance is the mean of every seat's latest estimate (0.5 as dealt, for a seat that has not
yet been judged), so one decision moves it by at most a quarter of its own estimate's
change, and its 95% sampling error is given (``win_chance_error``). After the deal's last
action the chance is its result: 1 when team A took 1st (R6.6), else 0.

Plain Python (no Django); ``progress(done, total)`` is called after every decision.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from games.engine.deal import PASS, PLAY, RETURN, TRIBUTE, Action, DealState, apply, legal_actions, team_of
from games.engine.views import view_for

from .advice import ADVICE_SAMPLES, CLEARLY_WORSE, _action_name, _tribute_reason, assess, same_action
from .heuristic import HeuristicBot, hand_cost_without
from .view import Seen

__all__ = ["ANALYSIS_VERSION", "INACCURACY", "MISTAKE", "BLUNDER", "Decision", "DealAnalysis", "analyse",
           "mark_of", "accuracy_of"]

# Bumped whenever the evaluation changes, so stored analyses can be told apart and redone.
# 2: the chance of winning is the table's view with its error, and the result at the end.
# 3: sampled deals never give a tribute's donor a card above its gift (``inference``).
ANALYSIS_VERSION = 3
INACCURACY = 0.2
MISTAKE = CLEARLY_WORSE  # 0.5: the coach speaks up from here
BLUNDER = 1.0


def mark_of(loss: float, *, is_best: bool) -> str:
    if is_best:
        return "best"
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return "good"


def accuracy_of(losses: Sequence[float]) -> float | None:
    """Mean of 100 x e^(-loss) over the decisions (module doc); None without any."""
    if not losses:
        return None
    return sum(100.0 * math.exp(-max(0.0, loss)) for loss in losses) / len(losses)


@dataclass(slots=True)
class Decision:
    index: int  # the action's place in the log (its seq is index + 1)
    seat: int
    kind: str
    played: str  # the action's name ("pair of 8s", "pass", "tribute KS")
    played_cards: list[int]
    mark: str
    loss: float = 0.0
    played_value: float | None = None
    best_value: float | None = None
    better: str | None = None  # the better action's name, when the played one was not it
    better_cards: list[int] = field(default_factory=list)
    reason: str = ""  # why the better action (or, for the best, why it is best)
    win_chance_a: float | None = None  # team A's (seats 1 and 3) chance after the action
    actor: str = "human"
    win_chance_error: float | None = None  # the 95% sampling error of ``win_chance_a``

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("loss", "played_value", "best_value", "win_chance_a", "win_chance_error"):
            if data[key] is not None:
                data[key] = round(data[key], 3)
        return data


@dataclass(slots=True)
class DealAnalysis:
    version: int
    samples: int
    decisions: list[Decision]
    accuracy: list[float | None]  # per seat

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "samples": self.samples,
            "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
            "decisions": [d.to_json() for d in self.decisions],
            "accuracy": [None if a is None else round(a, 1) for a in self.accuracy],
        }


def _rounded(loss: float) -> float:
    """A loss as stored (3 decimals), so that the mark read from the stored figure is the
    mark given: 0.4996 is stored as 0.5 and marked a mistake, not an inaccuracy."""
    return round(loss, 3)


def _decide(state: DealState, action: Action, index: int, samples: int, rng_seed: int,
            last_chance: float | None) -> tuple[Decision, tuple[float, int] | None]:
    """The verdict on one decision, and the acting seat's estimate of team A's chance
    after it with the number of deals it was sampled on (None when not judged)."""
    seat = action.seat
    base = dict(index=index, seat=seat, kind=action.kind, played=_action_name(action),
                played_cards=list(action.cards), actor=action.actor)
    options = legal_actions(state, seat)
    if len(options) <= 1:
        return Decision(mark="only", win_chance_a=last_chance, **base), None
    view = view_for(state, seat)
    if action.kind in (TRIBUTE, RETURN):
        seen = Seen.from_view(view)
        best = HeuristicBot().choose(view, rng_seed=rng_seed)
        if best.cards == action.cards:
            return Decision(mark="best", reason=_tribute_reason(seen, best.cards[0]), win_chance_a=last_chance,
                            **base), None
        loss = _rounded(max(0.0, hand_cost_without(seen, action.cards[0]) - hand_cost_without(seen, best.cards[0])))
        return Decision(mark=mark_of(loss, is_best=False), loss=loss, better=_action_name(best),
                        better_cards=list(best.cards), reason=_tribute_reason(seen, best.cards[0]),
                        win_chance_a=last_chance, **base), None
    if action.kind not in (PLAY, PASS):
        return Decision(mark="only", win_chance_a=last_chance, **base), None
    assessment = assess(view, action, samples=samples, rng_seed=rng_seed)
    if assessment is None:
        return Decision(mark="only", win_chance_a=last_chance, **base), None
    is_best = same_action(assessment.action, action) or assessment.taken_index == assessment.pick
    loss = 0.0 if is_best else _rounded(assessment.loss)
    chance = assessment.win_chance(assessment.taken_index)
    chance_a = chance if team_of(seat) == 0 else 1.0 - chance
    decision = Decision(
        mark=mark_of(loss, is_best=is_best), loss=loss, played_value=assessment.taken_value,
        best_value=assessment.best_value, reason=assessment.reason, win_chance_a=chance_a, **base,
    )
    if not is_best:
        decision.better = _action_name(assessment.action)
        decision.better_cards = list(assessment.action.cards)
    sampled = len((assessment.evaluation.scores or [[]])[assessment.taken_index]) if assessment.evaluation.scores else 0
    return decision, (chance_a, sampled)


def table_chance(estimates: Sequence[tuple[float, int]]) -> tuple[float, float]:
    """The mean of the seats' estimates of team A's chance and its 95% sampling error
    (each estimate a share of ``n`` sampled deals; the prior, ``n`` = 0, has none)."""
    mean = sum(p for p, _n in estimates) / len(estimates)
    variance = sum(p * (1.0 - p) / n for p, n in estimates if n) / len(estimates) ** 2
    return mean, 1.96 * math.sqrt(variance)


def analyse(states: Sequence[DealState], actions: Sequence[Action], *, samples: int = ADVICE_SAMPLES,
            rng_seed: int = 0, progress: Callable[[int, int], None] | None = None) -> DealAnalysis:
    """Judge every decision of a finished deal (module doc). ``states[i]`` is the state
    before ``actions[i]``."""
    if len(states) < len(actions):
        raise ValueError("a state is needed before every action")
    decisions: list[Decision] = []
    # Each seat's latest estimate of team A's chance, with the deals it was sampled on
    # (0 for the even prior as dealt): the plotted chance is their mean (module doc).
    estimates: list[tuple[float, int]] = [(0.5, 0)] * 4
    chance, error = 0.5, 0.0
    total = len(actions)
    for index, action in enumerate(actions):
        decision, estimate = _decide(states[index], action, index, samples, rng_seed, chance)
        if estimate is not None:
            estimates[action.seat] = estimate
            chance, error = table_chance(estimates)
        decision.win_chance_a, decision.win_chance_error = chance, error
        decisions.append(decision)
        if progress is not None:
            progress(index + 1, total)
    if decisions:
        # After the last action the chance is no estimate: it is the deal's result.
        final = states[len(actions)] if len(states) > len(actions) else apply(states[len(actions) - 1], actions[-1])
        if final.is_over:
            decisions[-1].win_chance_a = 1.0 if team_of(final.finished[0]) == 0 else 0.0
            decisions[-1].win_chance_error = 0.0
    losses: list[list[float]] = [[], [], [], []]
    for decision in decisions:
        if decision.mark != "only":
            losses[decision.seat].append(decision.loss)
    return DealAnalysis(ANALYSIS_VERSION, samples, decisions, [accuracy_of(seat) for seat in losses])

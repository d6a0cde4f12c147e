"""Suggestions for a human and coach highlights, with reasons in words.

``suggest(view)`` gives the play the expert would make (``Suggestion.action``, whose
cards the page selects in the hand) and a short reason ("keeps your bomb of 8s", "lets
your partner keep the lead", "leaves you 4 plays instead of 6").

``coach_review(view_before, action_taken)`` compares a human's action with the best the
expert finds on the same sampled deals; when the action is clearly worse it returns a
``Highlight`` saying what was better and why, else None. It never blocks play: the page
shows it beside the table after the action has been applied.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.engine.cards import RANK_OF, card_name, face, is_wild
from games.engine.combos import readings_of
from games.engine.deal import PASS, PLAY, RETURN, TRIBUTE, Action
from games.engine.plays import legal_plays
from games.engine.reading import beats

from .base import move_to_action
from .expert import Evaluation, _pick, evaluate
from .heuristic import HeuristicBot, hand_cost_without
from .model import Hand, Move, split_hand
from .policy import STOP_COUNT
from .view import Seen

__all__ = ["Suggestion", "Highlight", "Assessment", "assess", "suggest", "coach_review", "explain_move",
           "move_of_action", "same_action", "CLEARLY_WORSE", "ADVICE_SAMPLES"]

# A human action is "clearly worse" when the expert expects it to cost at least this
# many levels (R7.1) more than its best move, on the same sampled deals.
CLEARLY_WORSE = 0.5
# How much better (levels, standard errors) the expert's sampling must find another move
# before a suggestion leaves the heuristic's own choice.
SUGGEST_MARGIN = 0.5
SUGGEST_Z = 1.64


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The suggested action and why, in a short sentence."""

    action: Action
    reason: str

    @property
    def cards(self) -> tuple[int, ...]:
        return self.action.cards

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.action.kind, "cards": list(self.action.cards),
                "reading": self.action.reading.to_json() if self.action.reading else None,
                "name": _action_name(self.action), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Highlight:
    """A coach note: the action taken, the better one, why, and the expected cost."""

    played: Action
    better: Action
    reason: str
    loss: float
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"played": _action_name(self.played), "better": _action_name(self.better),
                "better_cards": list(self.better.cards), "reason": self.reason,
                "loss": round(self.loss, 2), "message": self.message}


def _action_name(action: Action) -> str:
    if action.kind == PASS:
        return "pass"
    if action.kind in (TRIBUTE, RETURN):
        return f"{action.kind} {face(action.cards[0])}"
    return action.reading.name if action.reading else " ".join(face(c) for c in action.cards)


# --------------------------------------------------------------------------------------
# Reasons


def _plays_after(hand: Hand, move: Move | None) -> int:
    after = hand.copy()
    if move is not None:
        after.remove(move)
    return split_hand(after).plays if after.size else 0


def explain_move(seen: Seen, hand: Hand, move: Move | None,
                 alternatives: list[Move | None]) -> str:
    """A short reason for ``move`` (rules cited where one decides it).

    Every claim is checked on the position before it is said: "keeps your bomb" only
    when the hand left after the play still holds that bomb, "the opponent is far from
    finishing" only when the seat on top holds more than ``STOP_COUNT`` cards, "the
    lowest bomb that beats" only when no lower bomb in the hand beats the top play, and
    so on (``tests/bots/test_advice_reasons.py`` checks them again independently)."""
    partner = seen.partner
    reasons: list[str] = []
    if move is None:
        if seen.top_seat == partner:
            if seen.counts[partner] == 0:
                return ("your partner has gone out: pass, and if nobody beats that play "
                        "the lead comes to you by the wind (R6.4)")
            return "lets your partner keep the lead (R6.2: passing is always allowed)"
        if seen.top is not None and seen.top.is_bomb:
            return f"keeps your cards: beating a {seen.top.name} would cost a bigger bomb (R5.2)"
        if seen.top_seat is not None and seen.counts[seen.top_seat] > STOP_COUNT:
            return "saves your strong cards: the opponent is far from finishing (R6.2)"
        return "keeps your hand whole (R6.2: passing is always allowed)"
    reading = move.reading
    after = hand.copy()
    after.remove(move)
    # Every play the hand can make here (the engine's list), for the claims that compare.
    legal = legal_plays(seen.hand, seen.level, seen.top)
    if move.size == hand.size:
        return f"plays your last cards as a {reading.name} and goes out (R6.5)"
    if reading.is_bomb and seen.top is not None:
        opponent = seen.top_seat
        lowest = not any(p.reading.is_bomb and beats(reading, p.reading, seen.level) for p in legal)
        how = "with the lowest bomb that beats" if lowest else "with a bomb"
        if opponent is not None and opponent != partner and seen.counts[opponent] <= STOP_COUNT:
            reasons.append(f"stops seat {opponent + 1}, who holds {seen.counts[opponent]} "
                           f"cards, and takes the lead {how} (R5.2)")
        elif after.size and split_hand(after).plays <= 2:
            reasons.append(f"takes the lead {how} (R5.2), and your hand can finish from there")
        else:
            reasons.append(f"takes the lead {how} (R5.2)")
    if move.wilds and not reading.is_bomb:
        reasons.append(f"uses the wild to make a {reading.name} (R3.2)")
    elif move.wilds and reading.is_bomb:
        reasons.append(f"the wild makes it a {reading.name} (R3.2)")
    if seen.top is None and 0 < seen.counts[partner] <= 2 and reading.size <= 2:
        reasons.append(f"leads low for your partner, who holds {seen.counts[partner]} "
                       f"card{'s' if seen.counts[partner] > 1 else ''}")
    kept = [m for m in split_hand(after).moves if m.is_bomb] if after.size else []
    if kept and not reading.is_bomb:
        # A bomb the hand makes with a wild says so: the player sees four 7s and a wild
        # heart, not "five 7s".
        wilds = {0: "", 1: " (with the wild)"}.get(kept[0].wilds, " (with both wilds)")
        reasons.append(f"keeps your {kept[0].reading.name}{wilds}")
    left = split_hand(after).plays if after.size else 0
    worst = None
    for alt in alternatives:
        if alt is None or alt == move:
            continue
        count = _plays_after(hand, alt)
        if count > left and (worst is None or count > worst):
            worst = count
    if worst is not None:
        reasons.append(f"leaves you {left} play{'s' if left != 1 else ''} instead of {worst}")
    elif not reasons:
        weakest = not any(
            p.reading.shape == reading.shape and p.reading.size == reading.size
            and beats(reading, p.reading, seen.level) for p in legal
        )
        if seen.top is None:
            if weakest:
                reasons.append(f"leads your weakest {reading.name.split(' ')[0]} and keeps "
                               f"the strong plays for later; {left} plays left")
            else:
                reasons.append(f"leads a {reading.name}; {left} plays left")
        elif weakest and move in split_hand(hand).moves:
            reasons.append(f"beats the {seen.top.name} with the weakest play that does "
                           f"(R5.1) and breaks no combination; {left} plays left")
        elif weakest:
            reasons.append(f"beats the {seen.top.name} with the weakest play that does (R5.1); "
                           f"{left} plays left")
        else:
            reasons.append(f"beats the {seen.top.name} (R5.1); {left} plays left")
    return "; ".join(reasons[:2])


def move_of_action(seen: Seen, action: Action) -> Move | None:
    """The abstract move of a play action (None for a pass)."""
    if action.kind == PASS:
        return None
    reading = action.reading
    if reading is None:
        options = readings_of(action.cards, seen.level)
        if seen.top is not None:
            options = [r for r in options if beats(r, seen.top, seen.level)]
        if not options:
            raise ValueError("R4.11: these cards are not a legal play here")
        reading = options[0]
    take: dict[int, int] = {}
    wilds = 0
    for c in action.cards:
        if is_wild(c, seen.level):
            wilds += 1
        else:
            take[RANK_OF[c]] = take.get(RANK_OF[c], 0) + 1
    return Move(reading, tuple(sorted(take.items())), wilds)


# --------------------------------------------------------------------------------------
# Suggestion and coach


def _tribute_reason(seen: Seen, card: int) -> str:
    if seen.phase == "tribute":
        return (f"R8.1: the tribute is your highest card other than a wild; this "
                f"{card_name(card, seen.level)} costs your hand least")
    gift = next((g for g in seen.gifts if g["to"] == seen.seat), None)
    to_partner = gift is not None and gift["from"] == seen.partner
    whom = "your partner" if to_partner else "the opponent"
    return (f"R8.4: returns the {card_name(card, seen.level)}: it breaks none of your "
            f"combinations and helps {whom} least")


# Suggestion, coach and analysis judge a position with one evaluation: the same
# candidates, played out on the same sampled deals (the same seed for a given position,
# a fixed number of samples, no time budget), so they cannot disagree. The coach's
# "better" move is the suggestion; following the suggestion never draws a remark.
ADVICE_SAMPLES = 60


def _seed(seen: Seen, rng_seed: int) -> int:
    return rng_seed * 7919 + seen.step


@dataclass(slots=True)
class Assessment:
    """One position judged: the expert's candidates compared on the same sampled deals,
    the one suggested (``pick``), and, when asked, the action actually taken."""

    seen: Seen
    evaluation: Evaluation
    pick: int
    action: Action
    reason: str
    taken: Move | None = None
    taken_index: int | None = None

    @property
    def best_value(self) -> float:
        return self.evaluation.means[self.pick]

    @property
    def taken_value(self) -> float | None:
        if self.taken_index is None:
            return None
        return self.evaluation.means[self.taken_index]

    @property
    def loss(self) -> float:
        """Levels (R7.1) the action taken is expected to cost against the suggestion,
        on the same sampled deals (0 when it is the suggestion or better)."""
        value = self.taken_value
        return 0.0 if value is None else max(0.0, self.best_value - value)

    def win_chance(self, index: int | None = None) -> float:
        """The share of sampled deals in which the acting seat's team wins the deal
        (takes 1st, R6.6) after candidate ``index`` (default: the action taken, else
        the suggestion): the level change is positive exactly then."""
        index = self.pick if index is None else index
        scores = (self.evaluation.scores or [[]])[index]
        return sum(1 for s in scores if s > 0) / len(scores) if scores else 0.5


def assess(view: dict[str, Any], action_taken: Action | None = None, *,
           samples: int = ADVICE_SAMPLES, rng_seed: int = 0) -> Assessment | None:
    """Judge the viewing seat's play decision (module doc); None outside the play phase.
    With ``action_taken``, that action is played out on the same deals too."""
    seen = Seen.from_view(view)
    if seen.phase != "play":
        return None
    probe = evaluate(seen, random.Random(rng_seed), budget_ms=0.0, samples=0)
    candidates = list(probe.candidates)
    hand = Hand.from_cards(seen.hand, seen.level)
    taken = None
    if action_taken is not None:
        taken = next((m for m in candidates if m is not None and m.ids
                      and sorted(m.ids) == sorted(action_taken.cards)), None) \
            or move_of_action(seen, action_taken)  # a straight flush kept aside is one by its cards
        if taken not in candidates:
            if taken is not None and not hand.can_make(taken):
                # A play using cards of a straight flush the hand model keeps aside: the
                # model without flushes can make it (and every candidate as well).
                hand = Hand.from_cards(seen.hand, seen.level, find_flushes=False)
                candidates = [m for m in candidates if m is None or hand.can_make(m)]
            candidates.append(taken)
    result = evaluate(seen, random.Random(_seed(seen, rng_seed)), budget_ms=None, samples=samples,
                      candidates=candidates, hand=hand, prune=False)
    # The suggestion: the heuristic's own move unless another of the expert's candidates
    # (not the action taken, when it is none of them) beats it on the same deals by a
    # clear margin (SUGGEST_MARGIN levels and SUGGEST_Z standard errors).
    own = len(probe.candidates)
    pick = _pick(result.scores[:own], SUGGEST_MARGIN, SUGGEST_Z) if own > 1 else 0
    move = candidates[pick]
    action = move_to_action(seen, move, result.hand)
    reason = explain_move(seen, result.hand, move, candidates[:own])
    taken_index = None if action_taken is None else candidates.index(taken)
    return Assessment(seen, result, pick, action, reason, taken, taken_index)


def suggest(view: dict[str, Any], *, samples: int = ADVICE_SAMPLES, rng_seed: int = 0,
            budget_ms: float | None = None) -> Suggestion:
    """The expert's action for the viewing seat, with a reason (module doc).
    ``budget_ms`` is accepted for callers of the older signature and ignored: advice
    always takes its fixed samples, so that it is the same on any machine."""
    seen = Seen.from_view(view)
    if seen.phase in ("tribute", "return"):
        action = HeuristicBot().choose(view, rng_seed=rng_seed)
        return Suggestion(action, _tribute_reason(seen, action.cards[0]))
    assessment = assess(view, samples=samples, rng_seed=rng_seed)
    return Suggestion(assessment.action, assessment.reason)


def same_action(a: Action, b: Action) -> bool:
    """Two actions that are one decision: the same kind and the same cards (in any
    order), the reading left aside when only one exists."""
    if a.kind != b.kind or sorted(a.cards) != sorted(b.cards):
        return False
    return a.reading is None or b.reading is None or a.reading == b.reading


def coach_review(view_before: dict[str, Any], action_taken: Action, *,
                 samples: int = ADVICE_SAMPLES, rng_seed: int = 0, threshold: float = CLEARLY_WORSE,
                 budget_ms: float | None = None) -> Highlight | None:
    """A highlight when ``action_taken`` is clearly worse than the suggestion on the
    same sampled deals (module doc), else None. Tribute and return are reviewed by the
    split cost alone. ``budget_ms`` is ignored (see ``suggest``)."""
    seen = Seen.from_view(view_before)
    if seen.phase in ("tribute", "return"):
        best = HeuristicBot().choose(view_before, rng_seed=rng_seed)
        if best.cards == action_taken.cards:
            return None
        loss = hand_cost_without(seen, action_taken.cards[0]) - hand_cost_without(seen, best.cards[0])
        if loss < threshold:
            return None
        reason = _tribute_reason(seen, best.cards[0])
        return Highlight(action_taken, best, reason, loss,
                         f"Better: {_action_name(best)}. {reason}.")
    if seen.phase != "play" or action_taken.kind not in (PLAY, PASS):
        return None
    assessment = assess(view_before, action_taken, samples=samples, rng_seed=rng_seed)
    if assessment is None or same_action(assessment.action, action_taken):
        return None
    if assessment.taken_index == assessment.pick:
        return None
    loss = assessment.loss
    rule_note = _rule_of_thumb(seen, assessment.taken)
    if loss < threshold and rule_note is None:
        return None
    better = assessment.action
    reason = assessment.reason
    if rule_note:
        reason = f"{rule_note}; {reason}" if better.kind != PASS else rule_note
    message = (f"Better: {_action_name(better)}. {reason[0].upper()}{reason[1:]}."
               + (f" It was worth about {loss:.1f} levels more in the deals sampled."
                  if loss >= threshold else ""))
    return Highlight(action_taken, better, reason, loss, message)


def _rule_of_thumb(seen: Seen, taken: Move | None) -> str | None:
    """Mistakes clear without sampling: topping a partner who holds the trick without
    going out, or spending a bomb on a partner."""
    if taken is None or seen.top is None or seen.top_seat != seen.partner:
        return None
    if taken.size == len(seen.hand):
        return None
    if taken.is_bomb:
        return "you bombed your own partner's play: your partner already held the trick"
    return "your partner already held the trick: topping it spends your cards for nothing"

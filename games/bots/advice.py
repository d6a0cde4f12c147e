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
from games.engine.reading import beats

from .base import move_to_action
from .expert import DEFAULT_BUDGET_MS, Evaluation, evaluate
from .heuristic import HeuristicBot, hand_cost_without
from .model import Hand, Move, split_hand
from .policy import STOP_COUNT
from .view import Seen

__all__ = ["Suggestion", "Highlight", "suggest", "coach_review", "explain_move",
           "move_of_action", "CLEARLY_WORSE"]

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
    """A short reason for ``move`` (rules cited where one decides it)."""
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
        return "saves your strong cards: the opponent is far from finishing (R6.2)"
    reading = move.reading
    if move.size == hand.size:
        return f"plays your last cards as a {reading.name} and goes out (R6.5)"
    if reading.is_bomb and seen.top is not None:
        opponent = seen.top_seat
        if opponent is not None and seen.counts[opponent] <= STOP_COUNT:
            reasons.append(f"stops seat {opponent + 1}, who holds {seen.counts[opponent]} "
                           f"cards, and takes the lead with the lowest bomb that beats (R5.2)")
        else:
            reasons.append("takes the lead with the lowest bomb that beats (R5.2), "
                           "and your hand can finish from there")
    if move.wilds and not reading.is_bomb:
        reasons.append(f"uses the wild to make a {reading.name} (R3.2)")
    elif move.wilds and reading.is_bomb:
        reasons.append(f"the wild makes it a {reading.name} (R3.2)")
    if seen.top is None and 0 < seen.counts[partner] <= 2 and reading.size <= 2:
        reasons.append(f"leads low for your partner, who holds {seen.counts[partner]} "
                       f"card{'s' if seen.counts[partner] > 1 else ''}")
    bombs = [m for m in split_hand(hand).moves if m.is_bomb and m != move]
    if bombs and not reading.is_bomb:
        reasons.append(f"keeps your {bombs[0].reading.name}")
    left = _plays_after(hand, move)
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
        if seen.top is None:
            reasons.append(f"leads your weakest {reading.name.split(' ')[0]} and keeps "
                           f"the strong plays for later; {left} plays left")
        else:
            reasons.append(f"beats the {seen.top.name} with the weakest play that does "
                           f"(R5.1) and breaks no combination; {left} plays left")
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


def suggest(view: dict[str, Any], *, budget_ms: float | None = DEFAULT_BUDGET_MS,
            samples: int = 400, rng_seed: int = 0) -> Suggestion:
    """The expert's action for the viewing seat, with a reason (module doc)."""
    seen = Seen.from_view(view)
    if seen.phase in ("tribute", "return"):
        action = HeuristicBot().choose(view, rng_seed=rng_seed)
        return Suggestion(action, _tribute_reason(seen, action.cards[0]))
    rng = random.Random(rng_seed * 7919 + seen.step)
    # A suggestion shown to a person leaves the heuristic's plain move only on strong
    # evidence: a surprising suggestion needs to be right.
    result = evaluate(seen, rng, budget_ms=budget_ms, samples=samples,
                      margin=SUGGEST_MARGIN, pick_z=SUGGEST_Z)
    move = result.best_move
    action = move_to_action(seen, move, result.hand)
    return Suggestion(action, explain_move(seen, result.hand, move, result.candidates))


def coach_review(view_before: dict[str, Any], action_taken: Action, *,
                 budget_ms: float | None = DEFAULT_BUDGET_MS, samples: int = 200,
                 rng_seed: int = 0, threshold: float = CLEARLY_WORSE) -> Highlight | None:
    """A highlight when ``action_taken`` is clearly worse than the best found (module
    doc), else None. Tribute and return are reviewed by the split cost alone."""
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
    taken = move_of_action(seen, action_taken)
    hand = Hand.from_cards(seen.hand, seen.level)
    if taken is not None and not hand.can_make(taken):
        hand = Hand.from_cards(seen.hand, seen.level, find_flushes=False)
    rng = random.Random(rng_seed * 7919 + seen.step)
    # Evaluate the expert's candidates and the action taken on the same sampled deals.
    probe = evaluate(seen, random.Random(rng_seed), budget_ms=0.0, samples=0)
    candidates = list(probe.candidates)
    if taken not in candidates:
        candidates.append(taken)
    result: Evaluation = evaluate(seen, rng, budget_ms=budget_ms, samples=samples,
                                  candidates=candidates, hand=hand, prune=False)
    taken_mean = result.mean_of(taken)
    best_index = max(range(len(candidates)), key=lambda i: result.means[i])
    best_move = candidates[best_index]
    if best_move == taken or taken_mean is None:
        return None
    loss = result.means[best_index] - taken_mean
    rule_note = _rule_of_thumb(seen, taken)
    if loss < threshold and rule_note is None:
        return None
    better = move_to_action(seen, best_move, result.hand)
    reason = explain_move(seen, result.hand, best_move, [taken])
    if rule_note:
        reason = f"{rule_note}; {reason}" if best_move is not None else rule_note
    message = (f"Better: {_action_name(better)}. {reason[0].upper()}{reason[1:]}."
               + (f" It was worth about {loss:.1f} levels more in the deals sampled."
                  if loss >= threshold else ""))
    return Highlight(action_taken, better, reason, max(loss, 0.0), message)


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

"""Advice that can be trusted, over hundreds of generated positions:

- every claim in a suggestion's reason is true of the position, checked here
  independently of the code that said it (from the engine's state and legal plays, not
  from the bots' hand model);
- following the suggestion never draws a coach remark (suggestion and coach judge the
  position with one evaluation: the same candidates on the same sampled deals).

Positions come from seeded deals played on by the heuristic bot for a drawn number of
steps; advice runs with few samples (the properties hold for any number).
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots.advice import coach_review, suggest
from games.bots.registry import get_bot
from games.engine.cards import RANK_OF, is_wild
from games.engine.deal import PASS, apply, partner_of
from games.engine.plays import legal_plays
from games.engine.reading import beats
from games.engine.views import view_for
from games.rules.words import is_known_advice, reading_label, suggestion_text

from .helpers import deal_state

SAMPLES = 6
STOP_COUNT = 6


def _position(seed: int, steps: int):
    """The state after ``steps`` heuristic moves from deal ``seed``, at a play decision,
    or None when the deal is over first."""
    state = deal_state(seed, tribute=seed % 3 == 0)
    bot = get_bot("normal")
    for n in range(steps):
        if state.is_over:
            return None
        seat = state.to_act[0]
        state = apply(state, bot.choose(view_for(state, seat), rng_seed=n))
    while not state.is_over and state.phase != "play":
        seat = state.to_act[0]
        state = apply(state, bot.choose(view_for(state, seat), rng_seed=seed))
    return None if state.is_over else state


def _claims_hold(state, seat: int, action, reason: str) -> list[str]:
    """The claims in ``reason`` that are false of the position (empty: all true)."""
    level = state.level
    hand = list(state.hands[seat])
    partner = partner_of(seat)
    top = state.top.reading if state.top is not None else None
    top_seat = state.top.seat if state.top is not None else None
    legal = legal_plays(hand, level, top)
    remaining = [c for c in hand if c not in action.cards]
    reading = action.reading
    false = []

    def check(ok: bool, claim: str) -> None:
        if not ok:
            false.append(claim)

    if m := re.search(r"keeps your ((?:bomb of|straight flush|joker bomb)[^;(]*)(\(with (?:the wild|both wilds)\))?", reason):
        # The bomb is in the hand after the play, as said: made of plain cards, or with
        # the wild (the hand then still holds one) when the reason says so.
        named = m.group(1).strip()
        check(any(p.reading.name == named for p in legal_plays(remaining, level, None)), m.group(0))
        plain = [c for c in remaining if not is_wild(c, level)]
        if m.group(2):
            check(any(is_wild(c, level) for c in remaining), m.group(0))
        else:
            check(any(p.reading.name == named for p in legal_plays(plain, level, None)), m.group(0) + " (without a wild)")
    if "goes out" in reason:
        check(len(action.cards) == len(hand), "goes out")
    if "your partner has gone out" in reason:
        check(len(state.hands[partner]) == 0, "partner out")
    if "lets your partner keep the lead" in reason:
        check(top_seat == partner and action.kind == PASS, "partner keeps the lead")
    if m := re.search(r"stops seat (\d), who holds (\d+) cards", reason):
        stopped = int(m.group(1)) - 1
        check(stopped % 2 != seat % 2 and len(state.hands[stopped]) == int(m.group(2)), m.group(0))
        check(len(state.hands[stopped]) <= STOP_COUNT, m.group(0))
    if m := re.search(r"leads low for your partner, who holds (\d+) card", reason):
        check(top is None and len(state.hands[partner]) == int(m.group(1)), m.group(0))
    if "uses the wild" in reason or "the wild makes it" in reason:
        check(any(is_wild(c, level) for c in action.cards), "uses a wild")
    if "would cost a bigger bomb" in reason:
        check(top is not None and top.is_bomb and action.kind == PASS, "top is a bomb")
    if "far from finishing" in reason:
        check(top_seat is not None and len(state.hands[top_seat]) > STOP_COUNT, "far from finishing")
    if "the lowest bomb that beats" in reason:
        check(reading is not None and reading.is_bomb and not any(
            p.reading.is_bomb and beats(reading, p.reading, level) for p in legal), "lowest bomb")
    if "the weakest play that does" in reason:
        check(reading is not None and not any(
            p.reading.shape == reading.shape and p.reading.size == reading.size
            and beats(reading, p.reading, level) for p in legal), "weakest that beats")
    if m := re.search(r"leads your weakest (\w+)", reason):
        check(top is None and reading is not None and reading.name.startswith(m.group(1)) and not any(
            p.reading.shape == reading.shape and p.reading.size == reading.size
            and beats(reading, p.reading, level) for p in legal), m.group(0))
    if m := re.search(r"leaves you (\d+) plays? instead of (\d+)", reason):
        check(int(m.group(1)) < int(m.group(2)), m.group(0))
    if m := re.search(r"uses the wild to make a ([^;(]+) \(", reason):
        check(reading is not None and reading.name == m.group(1).strip(), m.group(0))
    # The play named is the one suggested, with its cards from the hand.
    check(set(action.cards) <= set(hand), "cards in hand")
    return false


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 80))
def test_every_reason_is_true_and_the_coach_agrees_with_the_suggestion(seed, steps):
    state = _position(seed, steps)
    if state is None:
        return
    seat = state.to_act[0]
    view = view_for(state, seat)
    suggestion = suggest(view, samples=SAMPLES, rng_seed=seed)
    assert _claims_hold(state, seat, suggestion.action, suggestion.reason) == [], suggestion.reason
    # The hint as the table words it names the suggested play before its reason.
    hint = suggestion_text(suggestion.to_json()["name"], suggestion.reason)
    named = "Pass: " if suggestion.action.kind == PASS else f"Play {reading_label(suggestion.action.reading)}: "
    assert hint.startswith(named) and is_known_advice(suggestion.reason), hint
    assert coach_review(view, suggestion.action, samples=SAMPLES, rng_seed=seed) is None


def test_the_old_false_reason_is_gone():
    """A play that breaks the bomb never says it keeps it: 4♠4♣ out of 4♠4♠4♣4♦ leaves
    two 4s, no bomb of four 4s."""
    for seed in range(400):
        state = _position(seed, 0)
        if state is None or state.top is not None:
            continue
        seat = state.to_act[0]
        hand = state.hands[seat]
        fours = {}
        for c in hand:
            if not is_wild(c, state.level):
                fours.setdefault(RANK_OF[c], []).append(c)
        ranks = [r for r, cs in fours.items() if len(cs) == 4]
        if not ranks:
            continue
        from games.bots.advice import explain_move, move_of_action
        from games.bots.model import Hand
        from games.bots.view import Seen
        from games.engine.combos import readings_of
        from games.engine.deal import PLAY, Action

        cards = tuple(fours[ranks[0]][:2])
        pair = Action(PLAY, seat, cards, readings_of(cards, state.level)[0])
        seen = Seen.from_view(view_for(state, seat))
        move = move_of_action(seen, pair)
        reason = explain_move(seen, Hand.from_cards(seen.hand, seen.level), move, [])
        assert _claims_hold(state, seat, pair, reason) == [], reason
        return
    raise AssertionError("no hand with a bomb of four found")

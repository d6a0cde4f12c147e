"""Invariants over many random deals and matches (Hypothesis).

Deals start from random seeds, levels and previous places (so tribute, double tribute
and resistance all occur) and are played by random legal agents mixing human, bot,
timeout and autopilot actions.
"""

from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from games.engine.cards import NUM_CARDS
from games.engine.combos import is_combination, readings_of
from games.engine.deal import (
    PASS, PHASE_PLAY, PLAY, RETURN, TRIBUTE, Action, DealState, apply, deal_hands,
    legal_actions, new_deal, partner_of, timeout_action,
)
from games.engine.errors import RuleError
from games.engine.match import start_match
from games.engine.plays import lean_plays
from games.engine.reading import Reading
from games.engine.replay import (
    action_from_json, action_to_json, fold, state_from_json, state_to_json,
)
from games.engine.simulate import agent_action, simulate_match
from games.engine.views import cards_in_view, view_for

QUICK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

setups = st.tuples(
    st.integers(0, 2**32),                                     # deal seed
    st.integers(0, 12),                                        # active level
    st.tuples(st.integers(0, 12), st.integers(0, 12)),         # team levels
    st.none() | st.permutations([0, 1, 2, 3]).map(tuple),      # previous places
)


def first_state(setup) -> DealState:
    seed, level, team_levels, prev = setup
    return new_deal(hands=deal_hands(seed), level=level, team_levels=team_levels,
                    prev_places=prev, seed=seed)


def next_action(state: DealState, rng: random.Random, timeout_rate: float) -> Action:
    seat = rng.choice(state.to_act)
    if state.autopilot[seat] and rng.random() < 0.7:
        return agent_action(state, seat, rng).as_actor("autopilot")
    if rng.random() < timeout_rate:
        return timeout_action(state, seat)
    if state.phase != PHASE_PLAY:
        choice = rng.choice(legal_actions(state, seat))
        return choice.as_actor(rng.choice(("human", "bot")))
    return agent_action(state, seat, rng, pass_rate=rng.random() * 0.6).as_actor(rng.choice(("human", "bot")))


def assert_cards_conserved(state: DealState) -> None:
    held = [c for hand in state.hands for c in hand]
    played = [c for move in state.history for c in move.cards]
    assert sorted(held + played) == list(range(NUM_CARDS))
    assert all(list(hand) == sorted(hand) for hand in state.hands)


def known_to(state: DealState, seat: int | None) -> set[int]:
    """Cards in hands that ``seat`` may know: its own, its partner's once it has
    finished (R9.4), tribute gifts (public), returns it gave or got."""
    if state.is_over:
        return set(range(NUM_CARDS))
    known: set[int] = set()
    if seat is not None:
        known |= set(state.hands[seat])
        if seat in state.finished:
            known |= set(state.hands[partner_of(seat)])
    for gift in state.tribute.gifts:
        if gift.card is not None:
            known.add(gift.card)
        if gift.returned is not None and seat in (gift.donor, gift.recipient):
            known.add(gift.returned)
    return known


def shuffle_hidden(state: DealState, seat: int | None, rng: random.Random) -> DealState:
    """The same state as far as ``seat`` may know: every card it may not see is dealt
    anew among the hidden places of the other hands (counts kept), and the dealt hands
    are scrambled too."""
    known = known_to(state, seat)
    hidden = [c for hand in state.hands for c in hand if c not in known]
    rng.shuffle(hidden)
    new_hands = []
    for hand in state.hands:
        keep = [c for c in hand if c in known]
        take = len(hand) - len(keep)
        new_hands.append(tuple(sorted(keep + hidden[:take])))
        hidden = hidden[take:]
    dealt = list(state.dealt)
    rng.shuffle(dealt)
    return dataclasses.replace(state, hands=tuple(new_hands), dealt=tuple(dealt))


def assert_views_hide_hands(state: DealState, rng: random.Random) -> None:
    for seat in (None, 0, 1, 2, 3):
        view = view_for(state, seat)
        hidden = set(range(NUM_CARDS)) - known_to(state, seat) - {
            c for move in state.history for c in move.cards}
        assert not cards_in_view(view) & hidden, (seat, cards_in_view(view) & hidden)
        if not state.is_over:
            # Information flow: the view cannot depend on any hidden card.
            assert view_for(shuffle_hidden(state, seat, rng), seat) == view


@QUICK
@given(setups, st.integers(0, 2**32), st.floats(0, 0.5))
def test_random_deals_keep_every_invariant(setup, agent_seed, timeout_rate):
    rng = random.Random(agent_seed)
    first = first_state(setup)
    state, log = first, []
    while not state.is_over:
        assert_cards_conserved(state)
        if state.step % 7 == 0:
            assert_views_hide_hands(state, rng)
        action = next_action(state, rng, timeout_rate)
        state = apply(state, action)
        log.append(action)
        assert len(log) < 2000
    assert_cards_conserved(state)
    assert_views_hide_hands(state, rng)
    places = state.result.places
    assert sorted(places) == [0, 1, 2, 3]
    assert places[:len(state.finished)] == state.finished
    assert not state.hands[places[0]]
    # R11.1: the log replays to the live state, and everything survives JSON.
    assert fold(first, log) == state
    assert fold(first, [action_from_json(action_to_json(a)) for a in log]) == state
    assert state_from_json(state_to_json(state)) == state


@QUICK
@given(setups, st.integers(0, 2**32))
def test_every_generated_play_is_accepted(setup, agent_seed):
    rng = random.Random(agent_seed)
    state = first_state(setup)
    full_checks = 2
    while not state.is_over:
        for seat in state.to_act:
            if state.phase != PHASE_PLAY or (full_checks and rng.random() < 0.05):
                if state.phase == PHASE_PLAY:
                    full_checks -= 1
                for action in legal_actions(state, seat):
                    apply(state, action)
            else:
                top = state.top_reading
                plays = lean_plays(state.hands[seat], state.level, top)
                for play in rng.sample(plays, min(6, len(plays))):
                    apply(state, Action(PLAY, seat, play.cards, play.reading))
        state = apply(state, next_action(state, rng, 0.1))


_SAMPLE_READINGS = (
    Reading("single", 0, 1), Reading("pair", 12, 2), Reading("triple", 5, 3),
    Reading("full_house", 7, 5), Reading("straight", 8, 5), Reading("pair_run", 4, 6),
    Reading("triple_run", 9, 6), Reading("bomb", 3, 4), Reading("bomb", 10, 6),
    Reading("straight_flush", 6, 5), Reading("joker_bomb", 0, 4), Reading("single", 14, 1),
)


def junk_actions(state: DealState, rng: random.Random) -> list[Action]:
    """Actions that must all be refused in ``state``."""
    out: list[Action] = []
    acting = set(state.to_act)
    idle = [s for s in range(4) if s not in acting]
    seat = rng.choice(state.to_act)
    hand = state.hands[seat]
    others = [c for s in range(4) if s != seat for c in state.hands[s]]
    played = [c for m in state.history for c in m.cards]
    if idle:
        other = rng.choice(idle)
        if state.hands[other]:
            out.append(Action(PLAY, other, (state.hands[other][0],)))
            out.append(Action(TRIBUTE, other, (state.hands[other][0],)))
            out.append(Action(RETURN, other, (state.hands[other][0],)))
    if others:
        out.append(Action(PLAY, seat, (rng.choice(others),)))
    if played:
        out.append(Action(PLAY, seat, (rng.choice(played),)))
    out.append(Action(PLAY, seat, (hand[0], hand[0])))
    out.append(Action(PLAY, seat, ()))
    out.append(Action("bid", seat, (hand[0],)))
    out.append(Action(PLAY, 7, (hand[0],)))
    out.append(Action(PASS, seat, actor="referee"))
    if not state.autopilot[seat]:
        out.append(Action(PASS, seat, actor="autopilot"))
    if state.phase == PHASE_PLAY:
        out.append(Action(TRIBUTE, seat, (hand[0],)))
        if state.leading:
            out.append(Action(PASS, seat))
        k = rng.randint(1, min(len(hand), 8))
        cards = tuple(rng.sample(hand, k))
        legal = readings_of(cards, state.level)
        for reading in _SAMPLE_READINGS:
            if reading not in legal:
                out.append(Action(PLAY, seat, cards, reading))
                break
        if not is_combination(cards, state.level):
            out.append(Action(PLAY, seat, cards))
        if not state.leading:
            out.append(Action(PASS, seat, (hand[0],)))
    else:
        out.append(Action(PLAY, seat, (hand[0],), Reading("single", 0, 1)))
        out.append(Action(PASS, seat))
        out.append(Action(state.phase if state.phase in (TRIBUTE, RETURN) else TRIBUTE, seat, hand[:2]))
    return out


@QUICK
@given(setups, st.integers(0, 2**32))
def test_rejected_actions_raise_and_change_nothing(setup, agent_seed):
    rng = random.Random(agent_seed)
    state = first_state(setup)
    while not state.is_over:
        if rng.random() < 0.15 or state.phase != PHASE_PLAY:
            snapshot = state_to_json(state)
            for bad in junk_actions(state, rng):
                try:
                    apply(state, bad)
                except RuleError as err:
                    assert err.rule.startswith("R") and str(err).startswith(err.rule + ": ")
                else:
                    raise AssertionError(f"accepted {bad}")
                assert state_to_json(state) == snapshot
            assert state_from_json(snapshot) == state
        state = apply(state, next_action(state, rng, 0.1))
    try:
        apply(state, Action(PASS, 0))
    except RuleError as err:
        assert err.rule == "R6.6"


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_random_matches_follow_r2_and_r7(seed):
    match = simulate_match(seed)
    assert match.is_over and match.winner in (0, 1)
    levels, active, prev = start_match(seed).team_levels, 0, None
    for result in match.results:
        s = result.settlement
        assert s.levels_before == levels and s.active == active
        winner = s.winner_team
        assert s.levels[1 - winner] == levels[1 - winner]       # R7.1 losers keep
        assert s.levels[winner] == min(12, levels[winner] + s.advance)  # R7.1, R7.2
        assert s.match_over == (levels[winner] == 12 and active == 12 and s.advance >= 2)
        levels, active, prev = s.levels, s.levels[winner], result.places  # R2.2
    assert match.team_levels == levels and match.active_level == active and match.prev_places == prev

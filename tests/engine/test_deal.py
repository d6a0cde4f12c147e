"""The deal state machine in the play phase: dealing, tricks, wind, finishing, R3.5
readings, refusals and timeouts (R1, R3.5, R5, R6, R8.6, R9.1, R9.2)."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine.cards import parse_faces, rank_index
from games.engine.combos import readings_of
from games.engine.deal import (
    PASS, PHASE_OVER, PHASE_PLAY, PLAY, TRIBUTE, Action, apply, deal_hands, first_leader,
    legal_actions, new_deal, start_play, timeout_action,
)
from games.engine.errors import RuleError
from games.engine.reading import FULL_HOUSE, Reading


def rule_of(exc_info) -> str:
    return exc_info.value.rule


# --- R1.3 dealing, R8.6 first lead ----------------------------------------------------


def test_deal_hands_gives_27_distinct_cards_to_each_seat_r1_3():
    hands = deal_hands(12345)
    assert [len(h) for h in hands] == [27, 27, 27, 27]
    assert sorted(c for h in hands for c in h) == list(range(108))


def test_deal_hands_is_reproducible_from_the_seed_r11_1():
    assert deal_hands(99) == deal_hands(99)
    assert deal_hands(99) != deal_hands(100)


def test_first_lead_of_a_match_is_drawn_from_the_seed_r8_6():
    leaders = [first_leader(seed) for seed in range(400)]
    assert set(leaders) == {0, 1, 2, 3}
    assert all(80 <= leaders.count(s) <= 120 for s in range(4))  # roughly uniform
    state = new_deal(hands=deal_hands(7), level=0, team_levels=(0, 0), prev_places=None, seed=7)
    assert state.phase == PHASE_PLAY and state.tribute.kind == "none"
    assert state.lead_seat == first_leader(7) == state.turn
    assert state.leading


def test_first_deal_needs_a_seed_r8_6():
    with pytest.raises(ValueError):
        new_deal(hands=deal_hands(7), level=0, team_levels=(0, 0), prev_places=None, seed=None)


def test_new_deal_refuses_a_bad_deal_r1_3():
    hands = [list(h) for h in deal_hands(3)]
    hands[0][0] = hands[1][0]
    with pytest.raises(ValueError):
        new_deal(hands=hands, level=0, team_levels=(0, 0), prev_places=None, seed=3)
    with pytest.raises(ValueError):
        new_deal(hands=deal_hands(3), level=13, team_levels=(0, 0), prev_places=None, seed=3)


# --- R6.1-R6.3 tricks -----------------------------------------------------------------


def test_leader_cannot_pass_r6_1(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    with pytest.raises(RuleError) as err:
        apply(state, kit.pass_(0))
    assert rule_of(err) == "R6.1"


def test_leader_plays_any_combination_r6_1(kit):
    state = kit.endgame("2", [["3S", "3C", "9D"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    after = apply(state, kit.play(state, 0, "3S", "3C"))
    assert after.top.reading.shape == "pair" and after.turn == 1 and not after.leading


def test_out_of_turn_is_refused_r6_2(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 1, "4S"))
    assert rule_of(err) == "R6.2"


def test_a_follower_must_beat_the_top_r5_1(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S", "3C"))
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 1, "4S", "5D"))
    assert err.value.rule.startswith("R4")  # 4S 5D is no combination at all
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 1, "4S"))
    assert rule_of(err) == "R5.1"  # a single cannot beat a pair


def test_equal_never_beats_equal_r5_3(kit):
    state = kit.endgame("2", [["9S", "3C"], ["9D", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "9S"))
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 1, "9D"))
    assert rule_of(err) == "R5.3"


def test_passer_may_play_later_in_the_same_trick_r6_2(kit):
    state = kit.endgame("2", [["3S", "9C"], ["4S", "QD"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.pass_(1))
    state = apply(state, kit.play(state, 2, "6S"))
    state = apply(state, kit.pass_(3))
    state = apply(state, kit.pass_(0))
    state = apply(state, kit.play(state, 1, "QD"))
    assert (state.turn, state.leading, state.finished) == (2, False, ())


def test_trick_ends_when_all_others_passed_and_last_player_leads_r6_3(kit):
    state = kit.endgame("2", [["3S", "9C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    state = apply(state, kit.pass_(2))
    state = apply(state, kit.pass_(3))
    assert not state.leading and state.turn == 0
    state = apply(state, kit.pass_(0))
    assert state.leading and state.turn == 1 and state.trick == () and state.trick_no == 1
    assert [m.seat for m in state.history] == [0, 1, 2, 3, 0]


# --- R6.4 wind, R1.2 skipping, R6.5/R6.6 places ---------------------------------------


def test_wind_partner_of_finished_seat_leads_r6_4(kit):
    state = kit.endgame("2", [["3S"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    assert state.finished == (0,)
    for seat in (1, 2, 3):
        state = apply(state, kit.pass_(seat))
    assert state.leading and state.turn == 2


def test_partner_must_pass_too_before_the_wind_r6_4(kit):
    state = kit.endgame("2", [["3S"], ["4S", "5D"], ["6S"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.pass_(1))
    state = apply(state, kit.pass_(2))
    assert (state.turn, state.leading) == (3, False)


def test_a_finishing_play_beaten_afterwards_gives_no_wind_r6_4(kit):
    state = kit.endgame("2", [["3S"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    state = apply(state, kit.pass_(2))
    state = apply(state, kit.pass_(3))
    assert state.finished == (0,) and (state.turn, state.leading) == (1, True)


def test_wind_after_an_opponent_finished_on_the_top_play_r6_4(kit):
    state = kit.endgame("2", [["3S"], ["4S"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    state = apply(state, kit.pass_(2))
    state = apply(state, kit.pass_(3))
    assert state.finished == (0, 1) and (state.turn, state.leading) == (3, True)


def test_finished_seats_are_skipped_r1_2(kit):
    state = kit.endgame("2", [["3S", "QS"], ["4S"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    assert state.finished == (1,)
    state = apply(state, kit.play(state, 2, "6S"))
    state = apply(state, kit.play(state, 3, "8S"))
    assert state.turn == 0  # seat 1 has finished and is skipped
    state = apply(state, kit.play(state, 0, "QS"))
    assert state.turn == 2  # past seat 1 again
    with pytest.raises(RuleError) as err:
        apply(state, Action(PASS, 1))
    assert rule_of(err) == "R1.2"


def test_double_down_ends_the_deal_at_once_r6_6(kit):
    state = kit.endgame("2", [["3S"], ["4S", "5D"], ["6S"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.pass_(1))
    state = apply(state, kit.play(state, 2, "6S"))
    assert state.is_over and state.phase == PHASE_OVER and state.turn is None
    assert state.finished == (0, 2)
    assert state.result.places[:2] == (0, 2) and sorted(state.result.places) == [0, 1, 2, 3]
    assert state.result.winner_team == 0 and state.result.settlement.advance == 3
    with pytest.raises(RuleError) as err:
        apply(state, kit.pass_(1))
    assert rule_of(err) == "R6.6"


def test_three_finished_ends_and_the_last_seat_is_fourth_r6_6(kit):
    state = kit.endgame("2", [["3S"], ["4S"], ["6S", "7D"], ["8S"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    state = apply(state, kit.pass_(2))
    state = apply(state, kit.play(state, 3, "8S"))
    assert state.is_over and state.result.places == (0, 1, 3, 2)
    # 1st's partner is 4th: a 1-4 finish, +1 (R7.1).
    assert state.result.winner_team == 0 and state.result.settlement.advance == 1


def test_partner_third_ends_the_deal_1_3_r6_6(kit):
    state = kit.endgame("2", [["3S"], ["4S"], ["6S"], ["8S", "9S"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    state = apply(state, kit.play(state, 2, "6S"))
    assert state.is_over and state.result.places == (0, 1, 2, 3)
    assert state.result.settlement.advance == 2


def test_wind_passes_to_the_partner_of_a_seat_that_finished_second_r6_4(kit):
    state = kit.endgame("2", [["3S"], ["4S"], ["6S", "7D"], ["8S", "9S"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.play(state, 1, "4S"))
    state = apply(state, kit.pass_(2))
    state = apply(state, kit.pass_(3))
    assert (state.turn, state.leading) == (3, True)
    state = apply(state, kit.play(state, 3, "8S"))
    state = apply(state, kit.pass_(2))
    assert (state.turn, state.leading) == (3, True)  # seat 3 played last and leads again
    state = apply(state, kit.play(state, 3, "9S"))
    assert state.result.places == (0, 1, 3, 2) and state.result.settlement.advance == 1


# --- R3.5 readings --------------------------------------------------------------------


HANDS_WILD = [["9S", "9C", "9D", "7H", "7H", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]]


def test_ambiguous_play_asks_to_choose_r3_5(kit):
    state = kit.endgame("7", HANDS_WILD)
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 0, "9S", "9C", "9D", "7H", "7H"))
    assert rule_of(err) == "R3.5" and "choose" in str(err.value)


def test_declared_reading_is_taken_r3_5(kit):
    state = kit.endgame("7", HANDS_WILD)
    full_house = Reading(FULL_HOUSE, rank_index("9"), 5)
    after = apply(state, kit.play(state, 0, "9S", "9C", "9D", "7H", "7H", reading=full_house))
    assert after.top.reading == full_house and after.history[-1].reading == full_house


def test_declared_reading_must_be_a_reading_of_those_cards_r3_5(kit):
    state = kit.endgame("7", HANDS_WILD)
    wrong = Reading(FULL_HOUSE, rank_index("8"), 5)
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 0, "9S", "9C", "9D", "7H", "7H", reading=wrong))
    assert rule_of(err) == "R3.5"


def test_single_legal_reading_is_automatic_r3_5(kit):
    state = kit.endgame("7", [["5S", "6C", "8D", "9S", "7H", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    after = apply(state, kit.play(state, 0, "5S", "6C", "8D", "9S", "7H"))
    assert after.top.reading.name == "straight 5-9"


def test_one_reading_legal_in_the_situation_is_automatic_r3_5(kit):
    # 9 9 9 + two wilds reads as a full house or a 5-card bomb; over a full house of 10s
    # only the bomb beats, so it is taken without asking.
    state = kit.endgame("7", [["TS", "TC", "TD", "3S", "3C", "4D"],
                              ["9S", "9C", "9D", "7H", "7H", "3D"], ["6S"], ["8S"]])
    state = apply(state, kit.play(state, 0, "TS", "TC", "TD", "3S", "3C"))
    after = apply(state, kit.play(state, 1, "9S", "9C", "9D", "7H", "7H"))
    assert after.top.reading.shape == "bomb" and after.top.reading.size == 5


def test_declared_reading_must_beat_the_top_r5(kit):
    state = kit.endgame("7", [["TS", "TC", "TD", "3S", "3C", "4D"],
                              ["9S", "9C", "9D", "7H", "7H", "3D"], ["6S"], ["8S"]])
    state = apply(state, kit.play(state, 0, "TS", "TC", "TD", "3S", "3C"))
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 1, "9S", "9C", "9D", "7H", "7H",
                              reading=Reading(FULL_HOUSE, rank_index("9"), 5)))
    assert rule_of(err) == "R5.3"


# --- R9.1 refusals leave everything as it was -----------------------------------------


def test_cards_not_in_hand_are_refused_r9_1(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    nine = parse_faces(["9S"])[0]
    with pytest.raises(RuleError) as err:
        apply(state, Action(PLAY, 0, (nine,)))
    assert rule_of(err) == "R9.1"
    with pytest.raises(RuleError) as err:
        apply(state, Action(PLAY, 0, (state.hands[1][0],)))  # another seat's card
    assert rule_of(err) == "R9.1"
    with pytest.raises(RuleError):
        apply(state, Action(PLAY, 0, (500,)))


def test_the_same_card_twice_is_refused_r9_1(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    card = state.hands[0][0]
    with pytest.raises(RuleError) as err:
        apply(state, Action(PLAY, 0, (card, card)))
    assert rule_of(err) == "R9.1"


def test_refusal_changes_nothing_r9_1(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    before = dataclasses.replace(state)
    for bad in (kit.pass_(0), Action(PLAY, 0, ()), Action("jump", 0), Action(TRIBUTE, 0, (state.hands[0][0],)),
                Action(PLAY, 5, (1,)), Action(PLAY, 0, state.hands[0], actor="robot")):
        with pytest.raises(RuleError):
            apply(state, bad)
        assert state == before


def test_tribute_and_return_outside_their_phase_are_refused_r8_6(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    with pytest.raises(RuleError) as err:
        apply(state, Action(TRIBUTE, 0, (state.hands[0][0],)))
    assert rule_of(err) == "R8.6"


# --- R9.2 timeouts and autopilot ------------------------------------------------------


def test_timeout_of_a_follower_is_a_pass_r9_2(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    action = timeout_action(state, 1)
    assert action.kind == PASS and action.actor == "timeout"
    after = apply(state, action)
    assert after.timeouts == (0, 1, 0, 0) and after.history[-1].actor == "timeout"


def test_timeout_of_a_leader_plays_the_lowest_safe_single_r9_2(kit):
    # 3 4 5 6 7 make a straight, so the lowest single that breaks no run is the 9.
    state = kit.endgame("2", [["3S", "4C", "5D", "6S", "7C", "9D", "KS"], ["4S"], ["6C"], ["8S"]])
    action = timeout_action(state, 0)
    assert action.kind == PLAY and action.cards == kit.held(state, 0, "9D")
    assert apply(state, action).top.reading.shape == "single"


def test_two_consecutive_timeouts_put_a_seat_on_autopilot_r9_2(kit):
    state = kit.endgame("2", [["3S", "3C", "QS", "QC"], ["4S", "5D", "9D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, timeout_action(state, 1))
    assert state.autopilot == (False,) * 4
    state = apply(state, kit.play(state, 2, "6S"))
    state = apply(state, kit.pass_(3))
    state = apply(state, kit.pass_(0))
    state = apply(state, timeout_action(state, 1))
    assert state.timeouts[1] == 2 and state.autopilot[1]
    # The trick went back to seat 2, who leads; seat 1 now acts by autopilot.
    state = apply(state, kit.play(state, 2, "7D"))
    state = apply(state, kit.pass_(3))  # seat 2 finished; wind pending
    state = apply(state, kit.pass_(0))
    state = apply(state, kit.play(state, 1, "9D", actor="autopilot"))
    assert state.autopilot[1] and state.timeouts[1] == 2
    # The player acting again clears both.
    state = apply(state, kit.pass_(3))
    state = apply(state, kit.play(state, 0, "QS"))
    state = apply(state, kit.pass_(1))
    assert state.timeouts[1] == 0 and not state.autopilot[1]


def test_autopilot_actions_need_the_seat_on_autopilot_r9_2(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 0, "3S", actor="autopilot"))
    assert rule_of(err) == "R9.2"


def test_a_timeout_makes_the_automatic_choice_only_r9_2(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 1, "4S", actor="timeout"))
    assert rule_of(err) == "R9.2"


def test_bot_actions_leave_the_timeout_count_r9_2(kit):
    state = kit.endgame("2", [["3S", "3C", "9C"], ["4S", "5D", "JD"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, timeout_action(state, 1))
    state = apply(state, kit.pass_(2, actor="bot"))
    assert state.timeouts == (0, 1, 0, 0)


# --- legal_actions --------------------------------------------------------------------


def test_legal_actions_of_leader_and_follower_r6_1_r6_2(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    lead = legal_actions(state, 0)
    assert all(a.kind == PLAY for a in lead)
    assert {a.cards for a in lead} == {kit.held(state, 0, "3S"), kit.held(state, 0, "3C"),
                                       tuple(sorted(kit.held(state, 0, "3S", "3C")))}
    assert legal_actions(state, 1) == []
    state = apply(state, kit.play(state, 0, "3S"))
    follow = legal_actions(state, 1)
    assert follow[0].kind == PASS and {a.cards for a in follow[1:]} == {
        kit.held(state, 1, "4S"), kit.held(state, 1, "5D")}
    for action in follow:
        apply(state, action)


def test_every_legal_action_reading_is_a_reading_of_its_cards_r3_5():
    state = start_play(hands=[deal_hands(5)[0][:12], deal_hands(5)[1][:3], deal_hands(5)[2][:3],
                              deal_hands(5)[3][:3]], level=0, leader=0)
    for action in legal_actions(state, 0):
        assert action.reading in readings_of(action.cards, 0)
        apply(state, action)


def test_a_malformed_declared_reading_is_refused_r3_5(kit):
    state = kit.endgame("2", [["3S", "3C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    with pytest.raises(RuleError) as err:
        apply(state, kit.play(state, 0, "3S", reading={"shape": "single", "rank": "3"}))
    assert rule_of(err) == "R3.5"

"""Tribute, return, resistance and the first lead after them (R8)."""

from __future__ import annotations

import pytest

from games.engine.cards import FACE_OF, RANK_OF, faces_of, parse_faces, rank_index
from games.engine.deal import (
    PHASE_PLAY, PHASE_RETURN, PHASE_TRIBUTE, RETURN, TRIBUTE, Action, apply,
    gift_candidates, legal_actions, new_deal, plan_tribute, return_candidates,
    timeout_action,
)
from games.engine.errors import RuleError


def deal(kit, level, prev_places, fixed, low=(), high=()):
    hands = kit.full_table(level, fixed, low=low, high=high)
    lvl = rank_index(level)
    return new_deal(hands=hands, level=lvl, team_levels=(lvl, lvl), prev_places=prev_places, seed=1)


def faces_given(state):
    return [(g.donor, g.recipient, FACE_OF[g.card] if g.card is not None else None)
            for g in state.tribute.gifts]


# --- R8.1 single tribute --------------------------------------------------------------


def test_single_tribute_fourth_gives_first_its_highest_card_r8_1(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["AS"]}, low=[3])
    assert state.tribute.kind == "single" and not state.tribute.resisted
    # One face of the highest rank: no choice, given at once (R8.3).
    assert faces_given(state) == [(3, 0, "AS")]
    assert state.hands[0].count(state.tribute.gifts[0].card) == 1
    assert state.lead_seat == 3


def test_single_tribute_applies_when_fourth_is_firsts_partner_r8_1(kit):
    state = deal(kit, "4", (0, 1, 3, 2), {2: ["KD"]}, low=[2])
    assert faces_given(state) == [(2, 0, "KD")] and state.lead_seat == 2


def test_level_card_outranks_ace_and_a_wild_is_never_given_r8_1(kit):
    level_card = deal(kit, "4", (0, 1, 2, 3), {3: ["4S", "AS"]}, low=[3])
    assert faces_given(level_card) == [(3, 0, "4S")]
    wilds_kept = deal(kit, "4", (0, 1, 2, 3), {3: ["4H", "4H", "KS"]}, low=[3])
    assert faces_given(wilds_kept) == [(3, 0, "KS")]
    assert sum(1 for c in wilds_kept.hands[3] if FACE_OF[c] == "4H") == 2


def test_gift_candidates_leave_out_wilds_r8_1():
    hand = parse_faces(["7H", "7H", "7S", "7C", "AD"])
    assert faces_of(gift_candidates(hand, rank_index("7"))) == ["7S", "7C"]


# --- R8.3 the donor's choice ----------------------------------------------------------


def test_donor_picks_among_faces_of_the_highest_rank_r8_3(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["AS", "AD", "4H"]}, low=[3])
    assert state.phase == PHASE_TRIBUTE and state.to_act == (3,)
    assert {FACE_OF[a.cards[0]] for a in legal_actions(state, 3)} == {"AS", "AD"}
    king = next(c for c in state.hands[3] if RANK_OF[c] < rank_index("A"))
    wild = kit.held(state, 3, "4H")[0]
    for bad in (king, wild):
        with pytest.raises(RuleError) as err:
            apply(state, Action(TRIBUTE, 3, (bad,)))
        assert err.value.rule == "R8.1"
    with pytest.raises(RuleError) as err:
        apply(state, Action(TRIBUTE, 1, kit.held(state, 3, "AD")))
    assert err.value.rule == "R8.1"  # seat 1 owes nothing
    with pytest.raises(RuleError) as err:
        apply(state, Action("play", 3, kit.held(state, 3, "AD")))
    assert err.value.rule == "R8.6"  # no lead before tribute and return
    after = apply(state, Action(TRIBUTE, 3, kit.held(state, 3, "AD")))
    assert faces_given(after) == [(3, 0, "AD")]
    assert "AD" in faces_of(after.hands[0]) and "AD" not in faces_of(after.hands[3])


def test_timeout_tribute_picks_automatically_r8_3_r9_2(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["AS", "AD"]}, low=[3])
    action = timeout_action(state, 3)
    assert action.kind == TRIBUTE and action.cards[0] == min(gift_candidates(state.hands[3], rank_index("4")))
    after = apply(state, action)
    assert after.timeouts[3] == 1 and after.tribute.gifts[0].card == action.cards[0]


# --- R8.4 return ----------------------------------------------------------------------


def test_return_rules_r8_4(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["AS"], 0: ["9C", "9D", "4S", "JC", "SJ"]}, low=[3])
    assert state.phase == PHASE_RETURN and state.to_act == (0,)
    gift = state.tribute.gifts[0].card
    for bad, why in ((gift, "the gift itself"), (kit.held(state, 0, "4S")[0], "a level card"),
                     (kit.held(state, 0, "JC")[0], "above 10"), (kit.held(state, 0, "SJ")[0], "a joker")):
        with pytest.raises(RuleError) as err:
            apply(state, Action(RETURN, 0, (bad,)))
        assert err.value.rule == "R8.4", why
    with pytest.raises(RuleError) as err:
        apply(state, Action(RETURN, 3, (state.hands[3][0],)))
    assert err.value.rule == "R8.4"  # the donor owes no return
    nine = kit.held(state, 0, "9D")[0]
    after = apply(state, Action(RETURN, 0, (nine,)))
    assert nine in after.hands[3] and nine not in after.hands[0]
    assert [len(h) for h in after.hands] == [27, 27, 27, 27]
    # R8.6: the lead starts after the return, and goes to the donor, not the recipient.
    assert after.phase == PHASE_PLAY and after.turn == 3 and after.leading


def test_return_candidates_exclude_level_jokers_and_high_cards_r8_4():
    hand = parse_faces(["3S", "8C", "TD", "7S", "7H", "JC", "SJ"])
    assert sorted(faces_of(return_candidates(hand, rank_index("7")))) == ["3S", "8C", "TD"]
    # At level 2 the 2s are level cards; at level 10 the 10s are.
    assert sorted(faces_of(return_candidates(parse_faces(["2S", "2C", "3D", "TC", "JC"]), 0))) == ["3D", "TC"]
    assert faces_of(return_candidates(parse_faces(["TS", "TC", "JD", "QS"]), rank_index("T"))) == ["JD"]


def test_without_a_low_card_the_weakest_goes_back_r8_4():
    level = rank_index("5")
    assert faces_of(return_candidates(parse_faces(["JS", "QC", "KD", "AS", "5S", "BJ"]), level)) == ["JS"]
    # Suit never breaks a tie (R2.3): either jack may go back.
    assert sorted(faces_of(return_candidates(parse_faces(["JS", "JC", "QC", "AS"]), level))) == ["JC", "JS"]
    # Never the exact card just received: the gift is skipped even when weakest.
    hand = parse_faces(["JS", "QC", "AS"])
    assert faces_of(return_candidates(hand, level, gift=hand[0])) == ["QC"]


def test_the_other_copy_of_the_gift_may_go_back_r8_4():
    hand = parse_faces(["9S", "9S", "QC"])
    assert return_candidates(hand, 0, gift=hand[0]) == (hand[1],)


def test_a_single_eligible_return_is_made_at_once_r8_4(kit):
    # The recipient holds only strong cards and one 3: it has no choice.
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["AS"], 0: ["3S"]}, low=[3], high=[0])
    assert state.phase == PHASE_PLAY and state.turn == 3
    assert FACE_OF[state.tribute.gifts[0].returned] == "3S"
    assert kit.held(state, 3, "3S")


def test_timeout_return_is_the_lowest_eligible_card_r9_2(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["AS"], 0: ["9C", "6D"]}, low=[3])
    action = timeout_action(state, 0)
    eligible = return_candidates(state.hands[0], rank_index("4"), state.tribute.gifts[0].card)
    assert action.kind == RETURN and RANK_OF[action.cards[0]] == min(RANK_OF[c] for c in eligible)
    apply(state, action)


# --- R8.2 double tribute --------------------------------------------------------------


def test_double_tribute_higher_gift_goes_to_first_r8_2(kit):
    state = deal(kit, "4", (0, 2, 1, 3), {1: ["KS"], 3: ["AS"]}, low=[1, 3])
    assert state.tribute.kind == "double"
    assert sorted(faces_given(state)) == [(1, 2, "KS"), (3, 0, "AS")]
    assert state.lead_seat == 3  # R8.6: the donor whose gift went to 1st


def test_equal_gifts_follow_seat_order_from_first_r8_2(kit):
    # RULES.md example: 1st = seat 1, 2nd = seat 3, seats 2 and 4 both give an A:
    # 2 gives to 1, 4 gives to 3 (seats 0-3 here: 1 gives to 0, 3 gives to 2).
    state = deal(kit, "4", (0, 2, 1, 3), {1: ["AS"], 3: ["AD"]}, low=[1, 3])
    assert sorted(faces_given(state)) == [(1, 0, "AS"), (3, 2, "AD")]
    assert state.lead_seat == 1
    # With seat 2 first, going forward from it reaches seat 3 before seat 1.
    state = deal(kit, "4", (2, 0, 1, 3), {1: ["AS"], 3: ["AD"]}, low=[1, 3])
    assert sorted(faces_given(state)) == [(1, 0, "AS"), (3, 2, "AD")]
    assert state.lead_seat == 3
    state = deal(kit, "4", (1, 3, 0, 2), {0: ["AS"], 2: ["AD"]}, low=[0, 2])
    assert sorted(faces_given(state)) == [(0, 3, "AS"), (2, 1, "AD")]
    assert state.lead_seat == 2


def test_double_tribute_with_choices_both_donors_act_r8_2_r8_3(kit):
    state = deal(kit, "4", (0, 2, 1, 3), {1: ["KS", "KD"], 3: ["AS", "AC"]}, low=[1, 3])
    assert state.phase == PHASE_TRIBUTE and state.to_act == (1, 3)
    # Destinations are fixed by rank before any card is chosen.
    assert [(g.donor, g.recipient) for g in state.tribute.gifts] == [(3, 0), (1, 2)]
    state = apply(state, Action(TRIBUTE, 1, kit.held(state, 1, "KD")))
    assert state.to_act == (3,)
    state = apply(state, Action(TRIBUTE, 3, kit.held(state, 3, "AC")))
    assert state.phase in (PHASE_RETURN, PHASE_PLAY)
    while state.phase == PHASE_RETURN:
        seat = state.to_act[0]
        with pytest.raises(RuleError) as err:
            apply(state, Action("pass", seat))
        assert err.value.rule == "R8.6"
        state = apply(state, legal_actions(state, seat)[-1])
    assert state.phase == PHASE_PLAY and state.turn == 3 == state.lead_seat
    assert [len(h) for h in state.hands] == [27, 27, 27, 27]
    assert sorted(c for h in state.hands for c in h) == list(range(108))


# --- R8.5 resistance ------------------------------------------------------------------


def test_single_resistance_when_fourth_holds_both_big_jokers_r8_5(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["BJ", "BJ"]}, low=[3])
    assert state.tribute.resisted and state.tribute.gifts == ()
    assert state.phase == PHASE_PLAY and state.turn == 0 == state.lead_seat
    assert state.hands == state.dealt


def test_one_big_joker_does_not_resist_r8_5(kit):
    state = deal(kit, "4", (0, 1, 2, 3), {3: ["BJ"], 0: ["BJ"]}, low=[3])
    assert not state.tribute.resisted and faces_given(state) == [(3, 0, "BJ")]


def test_double_resistance_one_each_or_both_in_one_hand_r8_5(kit):
    for fixed in ({1: ["BJ"], 3: ["BJ"]}, {1: ["BJ", "BJ"]}, {3: ["BJ", "BJ"]}):
        state = deal(kit, "4", (2, 0, 1, 3), fixed, low=[1, 3])
        assert state.tribute.resisted and state.tribute.gifts == ()
        assert state.turn == 2  # R8.6: the previous 1st leads


def test_recipients_and_small_jokers_do_not_resist_r8_5(kit):
    state = deal(kit, "4", (0, 2, 1, 3), {0: ["BJ", "BJ"], 1: ["SJ"], 3: ["SJ"]}, low=[1, 3])
    assert not state.tribute.resisted
    assert sorted(faces_given(state)) == [(1, 0, "SJ"), (3, 2, "SJ")]


def test_plan_tribute_matches_the_state_r8():
    from games.engine.deal import deal_hands
    hands = deal_hands(8)
    for places in ((0, 1, 2, 3), (3, 1, 0, 2), (1, 3, 2, 0), (2, 0, 3, 1)):
        tribute, lead = plan_tribute(hands, 5, places)
        state = new_deal(hands=hands, level=5, team_levels=(5, 3), prev_places=places, seed=8)
        assert state.lead_seat == lead
        assert [(g.donor, g.recipient, g.rank) for g in state.tribute.gifts] == \
               [(g.donor, g.recipient, g.rank) for g in tribute.gifts]

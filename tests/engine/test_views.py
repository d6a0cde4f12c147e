"""What each viewer may see (R9.3-R9.5, ARCHITECTURE "hidden information")."""

from __future__ import annotations

import json

from games.engine.cards import FACE_OF, rank_index
from games.engine.deal import RETURN, Action, apply, deal_hands, new_deal
from games.engine.views import cards_in_view, public_count, view_for


def first_deal(team_levels=(0, 0), seed=5):
    return new_deal(hands=deal_hands(seed), level=team_levels[0], team_levels=team_levels,
                    prev_places=None, seed=seed)


def test_a_seat_sees_its_own_hand_and_no_other_r9_3():
    state = first_deal()
    for seat in range(4):
        view = view_for(state, seat)
        assert sorted(view["hand"]) == sorted(state.hands[seat])
        assert cards_in_view(view) == set(state.hands[seat])
        assert view["counts"] == [None, None, None, None]  # 27 cards: "more than 10"
        assert view["partner_hand"] is None and "hands" not in view


def test_a_spectator_sees_no_hand():
    view = view_for(first_deal(), None)
    assert view["hand"] is None and cards_in_view(view) == set()
    assert view["levels"] == {"A": "2", "B": "2"} and view["team"] is None


def test_levels_from_the_viewers_side_r9_5():
    state = first_deal(team_levels=(rank_index("8"), rank_index("5")))
    assert view_for(state, 0)["levels"] == {"us": "8", "them": "5"}
    assert view_for(state, 1)["levels"] == {"us": "5", "them": "8"}
    assert view_for(state, 3)["team"] == "B"
    assert view_for(state, 2)["level"] == "8" and view_for(state, 2)["wilds"] == ["8H", "8H"]


def test_counts_are_exact_at_ten_or_fewer_r9_3(kit):
    state = kit.endgame("2", [["3S"] + ["4S", "4C", "4D", "5S", "5C", "5D", "6S", "6C", "6D"],
                              ["7S", "7C", "7D", "8S", "8C", "8D", "9S", "9C", "9D", "TS", "TC"],
                              ["JS"], ["QS", "QC"]])
    assert view_for(state, 1)["counts"] == [10, None, 1, 2]
    assert public_count(10) == 10 and public_count(11) is None


def test_played_cards_are_public(kit):
    state = kit.endgame("2", [["3S", "9C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    state = apply(state, kit.pass_(1))
    view = view_for(state, None)
    assert [m["seat"] for m in view["trick"]] == [0, 1] and view["trick"][1]["pass"]
    assert [FACE_OF[c] for c in view["top"]["cards"]] == ["3S"]
    assert view["top"]["reading"] == {"shape": "single", "rank": "3"}
    assert view["history"] == view["trick"] and view["turn"] == 2 and not view["leading"]


def test_partner_reveal_after_finishing_r9_4(kit):
    state = kit.endgame("2", [["3S"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    assert view_for(state, 0)["partner_hand"] is None
    state = apply(state, kit.play(state, 0, "3S"))
    view = view_for(state, 0)
    assert sorted(view["partner_hand"]) == sorted(state.hands[2])
    assert cards_in_view(view) == set(state.hands[2]) | set(state.history[0].cards)
    # Seats still playing see no other hand, the finished seat's partner included.
    assert view_for(state, 2)["partner_hand"] is None
    assert view_for(state, 1)["partner_hand"] is None


def test_everything_is_shown_once_the_deal_is_over_r11_1(kit):
    state = kit.endgame("2", [["3S"], ["4S", "5D"], ["6S"], ["8S", "TD"]])
    for action in (kit.play(state, 0, "3S"), kit.pass_(1)):
        state = apply(state, action)
    state = apply(state, kit.play(state, 2, "6S"))
    view = view_for(state, None)
    assert view["phase"] == "over" and view["to_act"] == []
    assert [sorted(h) for h in view["hands"]] == [sorted(h) for h in state.hands]
    assert view["counts"] == [0, 2, 0, 2]
    assert view["result"]["explanation"] == "Team A finished 1-2: +3, 2 -> 5"
    assert view["result"]["levels"] == {"A": "5", "B": "2"}
    assert view_for(state, 1)["result"]["winner_is_us"] is False
    assert view_for(state, 1)["result"]["levels"] == {"us": "2", "them": "5"}


def test_gifts_are_public_and_a_return_is_seen_by_its_two_seats_r8(kit):
    hands = kit.full_table("4", {3: ["AS"], 0: ["9C", "9D", "6S"]}, low=[3])
    state = new_deal(hands=hands, level=2, team_levels=(2, 2), prev_places=(0, 1, 2, 3), seed=1)
    gift = state.tribute.gifts[0].card
    view = view_for(state, 0)
    assert view["choices"] and set(view["choices"]) <= set(state.hands[0])
    assert view_for(state, 1)["choices"] is None
    for seat in (None, 0, 1, 2, 3):
        assert view_for(state, seat)["tribute"]["gifts"][0]["card"] == gift
    back = kit.held(state, 0, "9D")[0]
    state = apply(state, Action(RETURN, 0, (back,)))
    for seat in (None, 0, 1, 2, 3):
        shown = view_for(state, seat)["tribute"]["gifts"][0]
        assert shown["returned_done"]
        assert shown["returned"] == (back if seat in (0, 3) else None)


def test_views_are_json():
    state = first_deal()
    for seat in (None, 0, 1, 2, 3):
        assert json.loads(json.dumps(view_for(state, seat))) == view_for(state, seat)


def test_a_view_without_the_history_is_the_view_less_the_history(kit):
    state = kit.endgame("2", [["3S", "9C"], ["4S", "5D"], ["6S", "7D"], ["8S", "TD"]])
    state = apply(state, kit.play(state, 0, "3S"))
    for seat in (None, 0, 1, 2, 3):
        whole, lean = view_for(state, seat), view_for(state, seat, history=False)
        assert whole["history"] and lean["history"] is None
        assert {**whole, "history": None} == lean

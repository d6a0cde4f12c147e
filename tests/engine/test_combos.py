"""Readings of a selection (R2-R5), checked against the worked examples of RULES.md and
against an independent oracle that substitutes every wild by every possible card."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.cards import (
    FACE_OF, RANK_OF, SUIT_OF, ids_of_face, parse_faces, rank_index,
)
from games.engine.combos import (
    Play, beating_readings, explain_not_combination, readings_of, wild_ids,
)
from games.engine.errors import RuleError
from games.engine.reading import Reading, beats

# --------------------------------------------------------------------------------------
# Helpers: readings in the conformance notation, so expectations read like RULES.md.


def R(text: str) -> Reading:
    """``"straight 9"``, ``"pair 7"``, ``"bomb 9 5"``, ``"joker_bomb"``."""
    parts = text.split()
    shape = parts[0]
    if shape == "joker_bomb":
        return Reading.from_json({"shape": shape})
    if shape == "bomb":
        return Reading.from_json({"shape": shape, "rank": parts[1], "size": int(parts[2])})
    field = "top" if shape in ("straight", "pair_run", "triple_run", "straight_flush") else "rank"
    return Reading.from_json({"shape": shape, field: parts[1]})


def readings(level: str, faces: str) -> set[Reading]:
    found = readings_of(parse_faces(faces.split()), rank_index(level))
    assert len(found) == len(set(found)), "readings must be distinct"
    return set(found)


def reads(level: str, faces: str, *expected: str) -> None:
    assert readings(level, faces) == {R(x) for x in expected}


def beat(level: str, table: str, faces: str) -> bool:
    return bool(beating_readings(parse_faces(faces.split()), rank_index(level), R(table)))


# --------------------------------------------------------------------------------------
# An independent oracle: substitute each wild by each of the 52 non-joker cards, then
# classify plain cards with the rules as written (R3.2, R3.3, R4).


def _chain_tops(ranks: list[int]) -> set[int]:
    """Natural tops where these distinct ranks are consecutive, ace high or low (R2.4)."""
    tops = set()
    for ace_low in (False, True):
        pos = sorted(-1 if (ace_low and r == 12) else r for r in ranks)
        if all(b == a + 1 for a, b in zip(pos, pos[1:])):
            tops.add(pos[-1])
    return tops


def _plain_readings(cards: list[tuple[int, int]]) -> set[Reading]:
    n = len(cards)
    ranks = [r for r, _ in cards]
    count: dict[int, int] = {}
    for r in ranks:
        count[r] = count.get(r, 0) + 1
    jokers = any(r >= 13 for r in ranks)
    out: set[Reading] = set()
    if n == 1:
        out.add(Reading("single", ranks[0], 1))
    if n == 2 and len(count) == 1:
        out.add(Reading("pair", ranks[0], 2))
    if n == 3 and len(count) == 1 and not jokers:
        out.add(Reading("triple", ranks[0], 3))
    if 4 <= n <= 10 and len(count) == 1 and not jokers:
        out.add(Reading("bomb", ranks[0], n))
    if n == 4 and sorted(ranks) == [13, 13, 14, 14]:
        out.add(Reading("joker_bomb", 0, 4))
    if not jokers and n == 5:
        if sorted(count.values()) == [2, 3]:
            out.add(Reading("full_house", next(r for r, c in count.items() if c == 3), 5))
        if len(count) == 5:
            flush = len({s for _, s in cards}) == 1
            for top in _chain_tops(list(count)):
                out.add(Reading("straight_flush" if flush else "straight", top, 5))
    if not jokers and n == 6:
        if len(count) == 3 and set(count.values()) == {2}:
            out.update(Reading("pair_run", t, 6) for t in _chain_tops(list(count)))
        if len(count) == 2 and set(count.values()) == {3}:
            out.update(Reading("triple_run", t, 6) for t in _chain_tops(list(count)))
    return out


_ANY_CARD = [(r, s) for r in range(13) for s in range(4)]


def oracle_readings(card_ids: list[int], level: int) -> set[Reading]:
    wild = set(wild_ids(level))
    wilds = [c for c in card_ids if c in wild]
    naturals = [(RANK_OF[c], SUIT_OF[c]) for c in card_ids if c not in wild]
    if not naturals:  # R3.4: wilds alone are the level single or the level pair
        return {Reading("single" if len(wilds) == 1 else "pair", level, len(wilds))} if wilds else set()
    out: set[Reading] = set()
    for stand_ins in itertools.product(_ANY_CARD, repeat=len(wilds)):
        out |= _plain_readings(naturals + list(stand_ins))
    return out


@st.composite
def selections(draw, max_size: int = 10):
    """1-10 distinct cards with 0-2 wilds, often drawn from few ranks (and sometimes one
    suit) so that combinations are common."""
    level = draw(st.integers(0, 12))
    wild = list(wild_ids(level))
    n_wild = draw(st.integers(0, 2))
    size = draw(st.integers(max(1, n_wild), max_size))
    pool = [c for c in range(108) if c not in wild]
    style = draw(st.sampled_from(["any", "ranks", "suit"]))
    if style != "any":
        ranks = draw(st.sets(st.integers(0, 14), min_size=1, max_size=5))
        pool = [c for c in pool if RANK_OF[c] in ranks]
        if style == "suit":
            suit = draw(st.integers(0, 3))
            pool = [c for c in pool if SUIT_OF[c] in (suit, -1)]
    if len(pool) < size - n_wild:
        size = len(pool) + n_wild
    naturals = draw(st.permutations(pool).map(lambda p: p[: size - n_wild])) if size > n_wild else []
    cards = list(naturals) + wild[:n_wild]
    if not cards:
        cards = [wild[0]]
    order = draw(st.permutations(cards))
    return list(order), level


# --------------------------------------------------------------------------------------
# R2: levels and strength


def test_r2_3_at_level_7_a_7_beats_an_ace():
    assert beat("7", "single A", "7S")


def test_r2_3_at_level_2_a_2_beats_an_ace():
    assert beat("2", "single A", "2C")


def test_r2_3_at_level_ace_the_order_is_natural():
    assert beat("A", "single K", "AS")
    assert not beat("A", "single 3", "2S")
    assert beat("A", "single 2", "3S")


def test_r2_3_jokers_above_the_level_rank():
    assert beat("7", "single 7", "SJ")
    assert beat("7", "single SJ", "BJ")
    assert not beat("7", "single BJ", "7H")


def test_r2_3_level_rank_lifted_in_pairs_triples_full_houses_and_bombs():
    assert beat("9", "pair A", "9S 9C")
    assert beat("9", "triple A", "9S 9C 9D")
    assert beat("7", "full_house A", "7S 7C 7D 3S 3C")
    assert beat("7", "bomb A 4", "7S 7C 7D 7S")


def test_r2_3_suit_never_breaks_a_tie():
    assert not beat("7", "single 9", "9H")
    assert not beat("7", "pair 9", "9S 9S")


def test_r2_4_level_rank_sits_at_its_natural_place_in_runs():
    reads("7", "5S 6C 7D 8S 9S", "straight 9")
    reads("7", "6S 6C 7D 7S 8S 8C", "pair_run 8")
    # At level 2 the 2 is still the low neighbour of 3 in a run, not above the ace.
    reads("2", "2S 3C 4D 5S 6C", "straight 6")
    reads("2", "AS 2C 3D 4S 5C", "straight 5")


def test_r2_4_ace_low_and_high():
    reads("7", "AS 2C 3D 4S 5C", "straight 5")
    reads("7", "TS JC QD KS AC", "straight A")
    reads("7", "AS AC 2S 2D 3C 3H", "pair_run 3")
    reads("7", "QS QC KS KD AC AH", "pair_run A")
    reads("7", "AS AC AD 2S 2D 2H", "triple_run 2")
    reads("7", "KS KC KD AS AD AH", "triple_run A")


@pytest.mark.parametrize("faces", ["QS KC AD 2S 3H", "JS QC KD AS 2H", "KS KC AS AC 2S 2D",
                                   "KS KC KD AS AC AD 2S 2C 2D", "AS AC AD 2S 2C 2D KS KC KD"])
def test_r2_4_no_wrap_around(faces):
    """QKA23, JQKA2, KKAA22 are illegal (R2.4)."""
    reads("7", faces)


def test_r2_4_a2345_tops_at_5_and_is_the_lowest_straight():
    assert readings("7", "AS 2C 3D 4S 5C") == {R("straight 5")}
    assert beat("7", "straight 5", "2S 3C 4D 5S 6C")
    assert not beat("7", "straight 6", "AS 2C 3D 4S 5C")


def test_r2_4_aa2233_is_the_lowest_pair_run_and_aaa222_the_lowest_triple_run():
    assert beat("7", "pair_run 3", "2S 2C 3D 3S 4C 4D")
    assert not beat("7", "pair_run 4", "AS AC 2S 2D 3C 3S")
    assert beat("7", "triple_run 2", "2S 2C 2D 3S 3C 3D")
    assert beat("7", "pair_run K", "QS QC KS KD AC AS")


def test_r2_4_a_wild_cannot_bridge_a_wrap():
    reads("7", "KS AC 2D 3S 7H")
    reads("7", "QS KC AD 2S 7H")


# --------------------------------------------------------------------------------------
# R3: wild cards


def test_r3_1_only_the_two_level_hearts_are_wild():
    assert set(wild_ids(rank_index("7"))) == set(ids_of_face("7H"))
    reads("7", "9S 9C 8H")       # a heart of another rank is not wild
    reads("7", "9S 9C 7S")       # a level card of another suit is not wild
    reads("7", "9S 9C 7H", "triple 9")


def test_r3_2_a_wild_completes_every_shape():
    reads("2", "8C 2H", "pair 8")
    reads("7", "9S 9C 7H", "triple 9")
    reads("2", "6S 6C 6D 2H", "bomb 6 4")
    reads("2", "4S 5C 6D 8S 2H", "straight 8")
    reads("2", "5S 5C 6D 7S 7C 2H", "pair_run 7")
    reads("2", "3S 3C 3D 4S 4C 2H", "triple_run 4")
    reads("7", "QS QC 7H 3S 3C", "full_house 3", "full_house Q")
    reads("7", "5S 6S 8S 9S 7H", "straight 9", "straight_flush 9")


def test_r3_2_one_physical_card_fills_one_position():
    reads("7", "9S 7H", "pair 9")
    reads("7", "9S 9C 7H 7H", "bomb 9 4")
    reads("7", "9S 9C 9D 9H 7H 7H", "bomb 9 6")


def test_r3_2_two_wilds_and_one_card_are_a_triple_of_that_rank():
    reads("7", "9S 7H 7H", "triple 9")
    reads("7", "7S 7H 7H", "triple 7")
    reads("7", "2D 7H 7H", "triple 2")


def test_r3_2_two_wilds_fill_any_two_positions_of_a_run():
    reads("7", "3S 5C 6D 7H 7H", "straight 6", "straight 7")
    reads("7", "3S 6C 7H 7H 8D")
    reads("7", "3S 3C 4S 4C 7H 7H", "pair_run 4", "pair_run 5", "triple_run 4")
    reads("7", "3S 3C 5S 5C 7H 7H", "pair_run 5")


def test_r3_3_a_wild_never_stands_for_a_joker():
    reads("7", "BJ 7H")
    reads("7", "SJ 7H")
    reads("7", "SJ SJ BJ 7H")
    reads("7", "SJ SJ 7H 7H")
    reads("7", "SJ 7H 7H")
    reads("7", "SJ SJ 7H")


def test_r3_4_wilds_alone():
    reads("7", "7H", "single 7")
    reads("7", "7H 7H", "pair 7")
    assert beat("7", "pair A", "7H 7H")
    assert not beat("7", "pair SJ", "7H 7H")


def test_r3_4_a_wild_may_stand_as_itself():
    reads("7", "7S 7H", "pair 7")
    reads("7", "5H 6H 7H 8H 9H", "straight 9", "straight_flush 9")
    reads("7", "3H 4H 5H 6H 7H", "straight 6", "straight 7", "straight_flush 6",
          "straight_flush 7")


def test_r3_5_several_readings_are_all_offered():
    reads("7", "9S 9C 9D 7H 7H", "full_house 9", "bomb 9 5")
    reads("7", "TD JD QD KD 7H", "straight K", "straight A", "straight_flush K",
          "straight_flush A")
    reads("9", "3S 4C 5D 6S 9H", "straight 6", "straight 7")


# --------------------------------------------------------------------------------------
# R4: combinations


def test_r4_1_any_card_is_a_single():
    for text in ("2S", "TH", "AD", "SJ", "BJ", "7H"):
        reads("7", text, f"single {text[0] if len(text) == 2 and text not in ('SJ', 'BJ') else text}")


def test_r4_2_pairs_and_joker_pairs():
    reads("7", "9S 9S", "pair 9")
    reads("7", "SJ SJ", "pair SJ")
    reads("7", "BJ BJ", "pair BJ")
    reads("7", "SJ BJ")
    reads("7", "9S TS")


def test_r4_3_triples_never_of_jokers():
    reads("7", "KS KC KD", "triple K")
    reads("7", "SJ SJ BJ")


def test_r4_4_full_house_compares_the_triple_only_and_has_no_jokers():
    reads("7", "9S 9C 9D 3S 3C", "full_house 9")
    reads("7", "9S 9C 9D SJ SJ")
    reads("7", "9S 9C 9D BJ BJ")
    reads("7", "9S 9C 7H SJ SJ")
    assert beat("7", "full_house 8", "9S 9C 9D 3S 3C")
    assert not beat("7", "full_house 9", "9S 9C 9D AS AC")


def test_r4_4_level_triple_is_the_highest_full_house():
    assert beat("7", "full_house A", "7S 7C 7D 3S 3C")
    reads("7", "7S 7C 7D 7H 7H", "full_house 7", "bomb 7 5")


def test_r4_5_straight_is_exactly_five_and_no_jokers():
    reads("7", "3S 4C 5D 6S 7C", "straight 7")
    reads("7", "3S 4S 5S 6S 7C 8S")
    reads("7", "3S 4C 5D 6S SJ")
    reads("7", "3S 4C 5D 6S 8C")


def test_r4_8_rank_bombs_of_4_to_10_cards():
    reads("7", "AS AC AD AH AS AC AD AH", "bomb A 8")
    reads("9", "6S 6C 6D 6H 6S 6C 6D 6H 9H 9H", "bomb 6 10")
    reads("9", "6S 6C 6D 6H 6S 6C 6D 6H 9H", "bomb 6 9")
    reads("9", "9S 9C 9D 9H", "bomb 9 4")
    reads("7", "7S 7C 7D 7S 7C 7D 7H 7H", "bomb 7 8")
    reads("9", "6S 6C 6D 6H 6S 6C 6D 6H 9H 9H 9S")


def test_r4_9_straight_flush():
    reads("7", "AS 2S 3S 4S 5S", "straight_flush 5")
    reads("7", "TD JD QD KD AD", "straight_flush A")
    reads("7", "5S 6S 7S 8S 9S", "straight_flush 9")
    reads("7", "3S 3S 4S 5S 6S")  # a repeated rank is no sequence


def test_r4_10_joker_bomb_is_exactly_two_small_and_two_big():
    reads("7", "SJ SJ BJ BJ", "joker_bomb")
    reads("7", "SJ SJ BJ BJ 7H")
    reads("7", "SJ BJ BJ 7H")


@pytest.mark.parametrize("faces", [
    "9S 9C 9D JS",                 # triple with a single
    "9S 9C 9D JS QS",              # triple with two singles
    "9S 9C 9D 9H JS",              # four with attachments
    "9S 9C 9D 9H JS JC",
    "3S 3C 4S 4C",                 # two pairs
    "3S 3C 4S 4C 5S 5C 6D 6D",     # 4-pair run
    "3S 3C 3D 4S 4C 4D 5S 5C 5D",  # 3-triple run
    "3S 4C 5D 6S 7C 8D",           # 6-card straight
    "2S 4S 6S 8S TS",              # plain flush
])
def test_r4_11_nothing_else_is_a_combination(faces):
    reads("7", faces)


def test_r4_12_five_naturals_of_one_suit_are_only_a_straight_flush():
    reads("7", "5S 6S 7S 8S 9S", "straight_flush 9")
    reads("7", "5S 6S 7S 8S 9C", "straight 9")


def test_r4_12_with_a_wild_the_straight_exists_where_the_wild_takes_another_suit():
    reads("2", "7D 8D 9D JD 2H", "straight J", "straight_flush J")
    reads("2", "7D 8D JD 2H 2H", "straight J", "straight_flush J")
    reads("2", "7D 8S 9D JD 2H", "straight J")


# --------------------------------------------------------------------------------------
# R5: beating


def test_r5_1_same_shape_or_a_bomb():
    assert not beat("7", "single Q", "2S 3C 4D 5S 6C")
    assert not beat("7", "pair Q", "KS KC KD")
    assert beat("7", "single 3", "4S 4C 4D 4H")
    assert beat("7", "straight A", "2S 2C 2D 2H")


def test_r5_1_full_house_never_beats_straight_and_triple_run_never_beats_pair_run():
    assert not beat("7", "straight 9", "JS JC JD 3S 3C")
    assert not beat("7", "pair_run 9", "TS TC TD JS JC JD")


def test_r5_2_bomb_ladder_order():
    ladder = ["bomb 3 4", "bomb A 4", "bomb 3 5", "bomb A 5", "straight_flush 5",
              "straight_flush A", "bomb 3 6", "bomb 3 7", "bomb 3 8", "bomb 3 9",
              "bomb 3 10", "joker_bomb"]
    level = rank_index("7")
    for i, low in enumerate(ladder):
        for high in ladder[i + 1:]:
            assert beats(R(high), R(low), level), (high, low)
            assert not beats(R(low), R(high), level), (low, high)


def test_r5_2_in_a_rung_rank_bombs_compare_strength():
    assert beat("7", "bomb A 4", "7S 7C 7D 7S")
    assert beat("7", "bomb A 5", "3S 3C 3D 3H 3S 3C")
    assert not beat("7", "straight_flush A", "AS AC AD AH 7H")
    assert beat("7", "bomb A 5", "3S 4S 5S 6S 7S")
    assert not beat("7", "bomb A 5", "3S 4S 5S 6S 8S")


def test_r5_3_equal_never_beats_equal():
    assert not beat("7", "single 7", "7C")
    assert not beat("7", "straight 9", "5C 6D 7S 8H 9D")
    assert not beat("7", "straight_flush 9", "5D 6D 7D 8D 9D")
    assert not beat("7", "bomb 9 4", "9S 9C 9D 9H")


def test_r5_3_joker_bomb_on_top_and_nothing_beats_it():
    assert beat("7", "bomb 2 10", "SJ SJ BJ BJ")
    assert not beat("7", "joker_bomb", "AS AC AD AH AS AC AD AH 7H 7H")


def test_beating_readings_keeps_only_the_readings_that_beat():
    cards = parse_faces("3S 4C 5D 6S 9H".split())
    assert beating_readings(cards, rank_index("9"), R("straight 6")) == [R("straight 7")]


# --------------------------------------------------------------------------------------
# Properties


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(selections())
def test_readings_match_the_substitution_oracle(selection):
    """R3.2-R4.12: counting readings equal trying every card for every wild."""
    cards, level = selection
    found = readings_of(cards, level)
    assert len(found) == len(set(found))
    assert set(found) == oracle_readings(cards, level)


@settings(max_examples=300, deadline=None)
@given(selections(), st.data())
def test_readings_do_not_depend_on_physical_copy_or_order(selection, data):
    """R1.3: the two copies of a face are interchangeable."""
    cards, level = selection
    swapped = [c + 54 if c < 54 else c - 54 for c in cards]  # the other copy of each face
    swapped = data.draw(st.permutations(swapped))
    assert set(readings_of(swapped, level)) == set(readings_of(cards, level))


@settings(max_examples=200, deadline=None)
@given(selections())
def test_explanations_always_cite_a_rule(selection):
    cards, level = selection
    reason = explain_not_combination(cards, level)
    assert reason.startswith("R") and ": " in reason
    assert reason.split(":")[0][1:].replace(".", "").isdigit()


def test_readings_of_rejects_impossible_sizes_and_empty():
    assert readings_of([], 0) == []
    assert readings_of(list(range(11)), 0) == []


# --------------------------------------------------------------------------------------
# Explanations, errors and the play value


@pytest.mark.parametrize("faces, start", [
    ("9S 9C 9D JS", "R4.11: a triple with a single"),
    ("9S 9C 9D JS QS", "R4.11: a triple with two singles"),
    ("9S 9C 9D 9H JS", "R4.11: four of a kind with a single"),
    ("3S 3C 4S 4C", "R4.11: two pairs"),
    ("QS KC AD 2S 3C", "R2.4: Q-K-A-2-3 wraps around"),
    ("JS QC KD AS 2C", "R2.4: J-Q-K-A-2 wraps around"),
    ("KS KC AS AC 2S 2D", "R2.4: K-A-2 wraps around"),
    ("3S 4C 5D 6S 7C 8D", "R4.5: a straight has exactly 5 cards"),
    ("2S 4S 6S 8S TS", "R4.11: a plain flush"),
    ("BJ 7H", "R3.3: a wild never stands for a joker"),
    ("SJ SJ BJ 7H", "R3.3"),
    ("SJ BJ", "R4.2: a small and a big joker are not a pair"),
    ("9S 9C 9D SJ SJ", "R4.4"),
    ("9S TC", "R4.2"),
    ("9S 9C TC", "R4.3"),
    ("3S 3C 4S 4C 5S 5C 6D 6D", "R4.11: a pair run has exactly 3 pairs"),
    ("3S 4C 5D 6S 8C", "R4.5: a straight needs 5 consecutive ranks"),
])
def test_explain_not_combination(faces, start):
    reason = explain_not_combination(parse_faces(faces.split()), rank_index("7"))
    assert reason.startswith(start), reason


def test_explain_names_a_legal_combination():
    reason = explain_not_combination(parse_faces("9S 9C".split()), rank_index("7"))
    assert reason == "R4: these cards are a pair of 9s"


def test_rule_error_carries_rule_and_message():
    err = RuleError("R4.11", "3 cards of two ranks are not a combination")
    assert str(err) == "R4.11: 3 cards of two ranks are not a combination"
    assert (err.rule, err.message) == ("R4.11", "3 cards of two ranks are not a combination")
    assert isinstance(err, ValueError)
    again = RuleError.from_reason(explain_not_combination(parse_faces(["SJ", "BJ"]), 5))
    assert again.rule == "R4.2"


def test_play_faces_and_json():
    cards = tuple(sorted(parse_faces("TD JD QD KD 7H".split())))
    play = Play(cards, R("straight_flush A"))
    assert sorted(play.faces) == sorted("TD JD QD KD 7H".split())
    assert play.to_json() == {"cards": list(play.faces), "shape": "straight_flush", "top": "A"}
    assert play.face_key == (tuple(sorted(play.faces)), R("straight_flush A"))
    assert all(FACE_OF[c] == f for c, f in zip(play.cards, play.faces))

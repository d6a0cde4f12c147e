"""The hand model: splits, bombs with wilds, and turning moves into real cards."""

from __future__ import annotations

from games.bots.model import Hand, bomb_moves, physical_cards, split_hand
from games.engine.cards import faces_of, parse_faces, rank_index as r
from games.engine.combos import readings_of
from games.engine.reading import Reading


def _hand(text, level):
    return Hand.from_cards(parse_faces(text.split()), r(level))


def test_split_keeps_bombs_whole_and_finds_runs():
    split = split_hand(_hand("3S 4H 5C 6D 7S 9S 9H 9C 8D 8S QS QH QC QD", "2"))
    names = [m.reading.name for m in split.moves]
    assert "bomb of four Qs" in names
    assert "straight 3-7" in names
    assert split.plays == 3


def test_natural_straight_flush_is_kept_aside():
    hand = _hand("5H 6H 7H 8H 9H KS KC", "2")
    assert [m.reading.name for m in hand.flushes] == ["straight flush 5-9"]


def test_wild_makes_the_higher_straight_flush_and_bigger_bomb():
    hand = _hand("TD JD QD KD 7H 9S 9C 9H", "7")
    names = {m.reading.name for m in bomb_moves(hand, None)}
    assert "straight flush 10-A" in names and "straight flush 9-K" not in names
    assert "bomb of four 9s" in names
    five = _hand("9S 9C 9D 5H 5H", "5")
    top = Reading("bomb", r("K"), 4)
    assert [m.reading.name for m in bomb_moves(five, top)] == ["bomb of five 9s"]


def test_physical_cards_read_as_the_move():
    ids = parse_faces("3S 4H 5C 6D 7S 7H".split())
    hand = Hand.from_cards(ids, r("7"))
    for move in split_hand(hand).moves:
        cards = physical_cards(move, ids, r("7"))
        assert cards is not None
        assert move.reading in readings_of(cards, r("7")), (move, faces_of(cards))

"""What the table draws, read as a player reads it: plays in reading order (straights and
runs ascending, wilds where they stand in, a full house's triple first), "10" kept whole,
jokers told apart by shape, and both copies of a duplicate card offered in tribute."""

import re

import pytest

from games.engine.cards import FACE_OF, RANK_OF, faces_of, parse_faces
from games.engine.cards import rank_index as r
from games.engine.reading import BOMB, FULL_HOUSE, JOKER_BOMB, PAIR_RUN, STRAIGHT, TRIPLE_RUN, Reading
from games.live.render import card_context, reading_order
from games.templatetags.games_tags import card_markup, move

LEVEL = r("2")


def ordered(faces, shape, key, size=None, level=LEVEL):
    reading = Reading(shape, r(key) if key else 0, size or len(faces))
    return faces_of(reading_order(parse_faces(faces), reading, level))


@pytest.mark.parametrize(("faces", "shape", "key", "expected"), [
    (["QS", "KD", "JC", "AH", "TS"], STRAIGHT, "A", ["TS", "JC", "QS", "KD", "AH"]),
    (["4S", "5D", "7C", "6H", "8S"], STRAIGHT, "8", ["4S", "5D", "6H", "7C", "8S"]),
    (["3S", "4D", "4C", "3H", "3C", "4S"], TRIPLE_RUN, "4", ["3S", "3H", "3C", "4S", "4C", "4D"]),
    (["5S", "3D", "4C", "3H", "5C", "4S"], PAIR_RUN, "5", ["3H", "3D", "4S", "4C", "5S", "5C"]),
    (["2S", "AD", "4C", "5H", "3S"], STRAIGHT, "5", ["AD", "2S", "3S", "4C", "5H"]),
    (["KS", "4D", "KC", "4H", "KH"], FULL_HOUSE, "K", ["KS", "KH", "KC", "4H", "4D"]),
    (["4D", "KC", "4H", "KH", "4S"], FULL_HOUSE, "4", ["4S", "4H", "4D", "KH", "KC"]),
])
def test_plays_are_drawn_in_reading_order(faces, shape, key, expected):
    assert ordered(faces, shape, key) == expected


def test_a_wild_stands_where_it_fills_the_run():
    # Level 2: the 2 of hearts is wild and stands in for the missing 7 of 5-9.
    assert ordered(["9S", "2H", "5D", "8C", "6S"], STRAIGHT, "9") == ["5D", "6S", "2H", "8C", "9S"]
    # ...and completes the triple of a full house before the pair.
    assert ordered(["QS", "2H", "QC", "5H", "5D"], FULL_HOUSE, "Q") == ["QS", "QC", "2H", "5H", "5D"]


def test_bombs_read_as_one_block():
    assert ordered(["7S", "2H", "7D", "7H"], BOMB, "7") == ["7S", "7H", "7D", "2H"]
    assert ordered(["BJ", "SJ", "BJ", "SJ"], JOKER_BOMB, None, 4) == ["SJ", "SJ", "BJ", "BJ"]


def test_ten_and_jokers_are_drawn_to_be_read():
    ten = parse_faces(["TH"])[0]
    assert "card-10" in card_markup(card_context(ten, LEVEL), small=True)
    small, big = parse_faces(["SJ", "BJ"])
    small_html, big_html = card_markup(card_context(small, LEVEL)), card_markup(card_context(big, LEVEL))
    suit = re.compile(r'class="card-suit"[^>]*>([^<]+)<')
    # Different shapes (an outlined crown and a filled one), not only colours.
    assert suit.search(small_html).group(1) != suit.search(big_html).group(1)
    assert 'aria-label="small joker"' in small_html and 'aria-label="big joker"' in big_html


def test_a_bomb_is_marked_for_the_page():
    cards = [card_context(c, LEVEL) for c in parse_faces(["7S", "7H", "7D", "7C"])]
    assert "move-bomb" in move({"pass": False, "cards": cards, "reading": "bomb of four 7s", "bomb": True, "actor": "human"})
    assert "move-bomb" not in move({"pass": False, "cards": cards[:2], "reading": "pair of 7s", "bomb": False,
                                    "actor": "human"})


def test_both_copies_of_a_duplicate_card_may_be_given_back():
    """R8.4: the engine offers one card per face for the return (the two copies are the
    same card); the page lets either copy be chosen, so neither looks refused."""
    from games.engine.cards import full_deck, ids_of_face
    from games.engine.deal import new_deal
    from games.live.render import Scene, SeatInfo, ViewerState, private_context

    sevens = ids_of_face("7S")
    # Seat 4 (index 3) finished last and gives seat 1 its highest card (an ace, R8.1):
    # no choice, so the deal opens on seat 1's return, and seat 1 holds both 7 of spades.
    fourth = [ids_of_face("AS")[0]] + [c for c in full_deck() if RANK_OF[c] in (r("3"), r("4"), r("5"), r("6"))][:26]
    rest = [c for c in full_deck() if c not in fourth and c not in sevens]
    first = list(sevens) + rest[:25]
    rest = rest[25:]
    hands = [first, rest[0:27], rest[27:54], fourth]
    state = new_deal(hands=hands, level=r("2"), team_levels=(r("2"), r("2")), prev_places=(0, 2, 1, 3), seed=1)
    assert state.phase == "return" and 0 in state.to_act
    scene = Scene(table_id=1, kind="friend", think_time=30, awards_points=False, tier="", deal_id=1, deal_number=2,
                  match_id=1, match_status="playing", match_winner=None, deadline=None, result=None, state=state,
                  seats={p: SeatInfo(p, f"P{p + 1}", False, user_id=p + 1) for p in range(4)})
    choices = private_context(scene, 0, ViewerState())["choices"]
    assert set(sevens) <= choices
    for card in choices:  # every copy in the hand of every face offered
        assert {c for c in state.hands[0] if FACE_OF[c] == FACE_OF[card]} <= choices

"""The log's lines and the hand's cards are read out of their regions with
``str.find``: the same pieces, in the same order, as the patterns the page model reads
them with (``LOG_LINE``, ``HAND_CARD``)."""

from hypothesis import given, strategies as st

from games.live.consumer import _hand_cards, _log_lines

from .helpers import HAND_CARD, LOG_LINE


def by_pattern(part: str):
    return tuple((m.group(1), m.group(2), m.group(0)) for m in LOG_LINE.finditer(part))


LINE = '<li id="tbl-log-{}-{}"><span class="log-seat">{}</span> <span class="card">{}</span> pair</li>\n'


def test_the_lines_of_a_drawn_log_are_the_patterns():
    part = ('<section id="tbl-log" class="log"><ol class="log-list" id="tbl-log-list">'
            + "".join(LINE.format(31, i, f"Player {i % 4}", "K&hearts;") for i in range(40, 52)) + "</ol></section>")
    lines = _log_lines.__wrapped__(part)
    assert [(d, i) for d, i, _ in lines] == [("31", str(i)) for i in range(40, 52)]
    assert lines == by_pattern(part)


def test_an_empty_log_and_odd_ids_are_read_as_the_pattern_reads_them():
    cases = [
        '<ol id="tbl-log-list"><li class="muted">No plays yet.</li></ol>',
        '<li id="tbl-log-x-1">not a line</li><li id="tbl-log-3-4">a line</li>',
        '<li id="tbl-log-3-">half</li><li id="tbl-log-5-6">ok</li><li id="tbl-log-7-8">unclosed',
        '<li id="tbl-log-1-2-3">three</li><li id="tbl-log-12-13"><li>nested</li></li>',
        '<li id="tbl-log-1-2>no quote',
        '<li id="tbl-log-\u0663-1">other digits</li>',
    ]
    for part in cases:
        assert _log_lines.__wrapped__(part) == by_pattern(part)


@given(st.lists(st.sampled_from(['<li id="tbl-log-', "1", "-", "23", '"', ">", "</li>", "x", "<", "\n"]),
                max_size=40))
def test_any_text_is_read_as_the_pattern_reads_it(pieces):
    part = "".join(pieces)
    assert _log_lines.__wrapped__(part) == by_pattern(part)


def cards_by_pattern(part: str):
    return {m.group(1): m.group(0) for m in HAND_CARD.finditer(part)}


CARD = ('<input type="checkbox" class="hand-check" id="hc-{0}" name="card" value="{0}">'
        '<label id="hl-{0}" for="hc-{0}" class="card"><span>{1}</span></label>')


def test_the_cards_of_a_drawn_hand_are_the_patterns():
    part = ('<div id="tbl-hand"><fieldset><legend id="tbl-hand-count">27 cards</legend>'
            + "".join(CARD.format(card, "Q") for card in (3, 17, 40, 41, 99)) + "</fieldset></div>")
    cards = _hand_cards(part)
    assert list(cards) == ["3", "17", "40", "41", "99"]
    assert cards == cards_by_pattern(part)
    assert list(cards.values()) == list(cards_by_pattern(part).values())


@given(st.lists(st.sampled_from(['<input type="checkbox" class="hand-check" id="hc-', "7", "-", "12", '"', ">",
                                 "</label>", "<label>", "x", "\n"]), max_size=40))
def test_any_text_is_read_as_the_hand_pattern_reads_it(pieces):
    part = "".join(pieces)
    assert _hand_cards(part) == cards_by_pattern(part)

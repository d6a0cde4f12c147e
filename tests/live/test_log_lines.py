"""The log's lines are read out of its region with ``str.find``: the same lines, in the
same order, as the pattern the page model reads them with (``_LOG_LINE``)."""

from hypothesis import given, strategies as st

from games.live.consumer import _LOG_LINE, _log_lines


def by_pattern(part: str):
    return tuple((m.group(1), m.group(2), m.group(0)) for m in _LOG_LINE.finditer(part))


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

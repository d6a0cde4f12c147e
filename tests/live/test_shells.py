"""The status and controls fragments are drawn once per combination of what they show
(``games.live.render._Shells``) and reused for every page and step with the same key:
every value their templates read must be in the key, or a page would be shown words of
another step or seat. Through whole deals (tribute, return, play, the end), for every seat
and a spectator, in English and Chinese, with and without a message, the kept fragment
equals the template drawn afresh, and the regions handed to the page's socket are those
of the whole text."""

import random
import re

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from games.engine.deal import apply, deal_hands, legal_actions, new_deal
from games.live.render import (
    CONTROLS_KEYS, STATUS_KEYS, Scene, SeatInfo, ViewerState, _shells, compact, private_context, regions_of,
    render_private_parts,
)

TEMPLATES = (("live/_status.html", STATUS_KEYS), ("live/_controls.html", CONTROLS_KEYS))
VIEWERS = (ViewerState(), ViewerState(sort="suit", message="Not your turn", message_kind="error"))


def _scene(state, *, deal_number: int) -> Scene:
    seats = {p: SeatInfo(p, f"P{p}", p in (1, 3), user_id=p + 1) for p in range(4)}
    return Scene(table_id=1, kind="practice", think_time=30, awards_points=False, tier="", deal_id=deal_number,
                 deal_number=deal_number, match_id=1, match_status="playing", match_winner=None, deadline=None,
                 result=None, state=state, seats=seats)


def _states(seed: int, prev_places):
    rng = random.Random(seed)
    state = new_deal(hands=deal_hands(seed), level=rng.randrange(13), team_levels=(3, 7), prev_places=prev_places,
                     seed=seed)
    yield state
    while not state.is_over:
        seat = rng.choice(list(state.to_act))
        state = apply(state, rng.choice(legal_actions(state, seat)))
        yield state


@pytest.mark.parametrize("seed, prev_places", [(11, None), (12, (0, 1, 2, 3)), (13, (2, 0, 3, 1))])
def test_kept_status_and_controls_are_those_drawn_afresh(seed, prev_places):
    shown = 0
    for number, state in enumerate(_states(seed, prev_places), start=1):
        if number % 3 and not state.is_over and state.phase == "play":
            continue  # every third step of the play, and every step of tribute and return
        scene = _scene(state, deal_number=seed)
        for language in ("en", "zh-hans"):
            with translation.override(language):
                for seat in (0, 1, 2, 3, None):
                    for viewer in VIEWERS:
                        context = private_context(scene, seat, viewer, with_hand=False)
                        for template, keys in TEMPLATES:
                            fresh = compact(render_to_string(template, context))
                            text, regions = _shells.draw(template, context, keys)
                            assert text == fresh, (template, language, seat, state.step)
                            assert regions == _split(fresh)
                            shown += 1
                        parts = render_private_parts(scene, seat, viewer)
                        assert parts.regions() == _split(parts.html())
    assert shown > 200


def _split(html):
    """The regions as the pattern finds them: the reference ``regions_of`` must agree with."""
    parts = re.split(r"<!--tbl:([a-z0-9-]+)-->", html)
    return tuple(zip(parts[1::2], parts[2::2]))


@pytest.mark.parametrize("html", [
    "", "no mark", "<!--tbl:hand--><div>x</div>", "<!--tbl:hand-->", "<!--tbl:a--><!--tbl:b-->y",
    "<!--tbl:Bad-->x", "<!--tbl:bad name-->x<!--tbl:ok-->y", "<!--tbl:a-->x<!--tbl:", "<!--tbl:a--x-->y",
    "lead<!--tbl:counter--><section></section>\n",
])
def test_regions_of_agrees_with_the_pattern(html):
    assert regions_of(html) == _split(html)

"""R8.4: the tribute's donor sees which card came back to it (it is theirs now), until the
first lead; nobody else is shown it."""

import random
import re

import pytest

from games.live import door
from games.live.render import ViewerState, render_private, scene_for

from .helpers import act, current, play_out

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_donor_sees_the_card_given_back(playing_table, timers):
    table, users = playing_table
    rng = random.Random(3)
    for _ in range(6):  # a deal whose tribute is not resisted (R8.5)
        deal = play_out(table, dict(enumerate(users)), timers)
        door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
        deal, state = current(table)
        if state.phase in ("tribute", "return"):
            break
    else:
        raise AssertionError("six tributes in a row were resisted")
    while state.phase in ("tribute", "return"):
        act(table, users, rng)
        deal, state = current(table)
    gifts = state.tribute.gifts
    assert gifts and all(g.returned is not None for g in gifts)
    scene = scene_for(table)
    for seat in range(4):
        html = render_private(scene, seat, ViewerState())
        mine = [g for g in gifts if g.donor == seat]
        notes = re.findall(r'<p class="return-note".*?</p>', html, re.S)
        assert len(notes) == len(mine), (seat, notes)
        for gift, note in zip(mine, notes):
            assert f'data-card="{gift.returned}"' in note
    # After the first lead the note is gone, as the public notice of the tribute.
    act(table, users, rng)
    scene = scene_for(table)
    assert all("return-note" not in render_private(scene, seat, ViewerState()) for seat in range(4))

"""Every rule id the table shows links to its rule (README, "Rules"): in the tribute and
return panel, at the settlement (the promotion in words, points, the next tribute), in
the autopilot's note and above the partner's cards."""

import pytest

from games.live import door
from games.live.render import ViewerState, render_private, render_public, scene_for

from ..rule_ids import LINKED, unlinked_rule_ids
from .helpers import play_out

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_settlement_and_the_tribute_link_every_rule_id(playing_table, timers):
    table, users = playing_table
    deal = play_out(table, dict(enumerate(users)), timers)
    settled = render_public(scene_for(table))
    assert "settlement" in settled and LINKED.search(settled)
    assert unlinked_rule_ids(settled) == []
    door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
    scene = scene_for(table)
    tribute = render_public(scene)
    assert scene.state.phase in ("tribute", "return", "play")
    assert LINKED.search(tribute), "the tribute's lead (R8.6) or the resistance (R8.5) names its rule"
    assert unlinked_rule_ids(tribute) == []
    for seat in range(4):
        assert unlinked_rule_ids(render_private(scene, seat, ViewerState())) == []


def test_the_check_finds_a_plain_rule_id():
    assert unlinked_rule_ids('<p title="R9.3">Up 2 (R7.1)</p>') == ["R7.1"]
    assert unlinked_rule_ids('<p>Up 2 (<a class="rule-link" href="/rules/#R7.1">R7.1</a>)</p>') == []

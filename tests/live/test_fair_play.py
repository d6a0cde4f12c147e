"""R10.8, fair play at match tables: no suggestion, no auto play, and no points for a deal
the autopilot played for a seat. Friend and practice tables keep their help."""

import random

import pytest
from channels.db import database_sync_to_async

from accounts.models import PointsEntry
from games.engine.deal import AUTOPILOT, HUMAN, TIMEOUT, timeout_action
from games.live import door
from games.models import Deal, Seat

from .helpers import choose, current
from .test_table_consumer import connect, hand_cards, snapshot, state_of


def test_auto_play_is_refused_at_a_match_table(playing_table):
    table, users = playing_table
    with pytest.raises(door.PlayError, match="R10.8"):
        door.set_auto_play(table=table, user=users[0], interval="1")
    assert Seat.objects.get(table=table, position=0).auto_play is None


def test_auto_play_stays_at_a_practice_table(practice_table):
    table, user = practice_table()
    door.set_auto_play(table=table, user=user, interval="1")
    assert Seat.objects.get(table=table, position=0).auto_play is not None


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("message", [{"action": "suggest"}, {"action": "auto-on", "auto_interval": "1"}])
async def test_the_socket_refuses_help_at_a_match_table_and_changes_nothing(playing_table, message):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table, users[state.turn])
    before = await snapshot(table)
    await page.send_json_to(message)
    reply = await page.receive_from(timeout=10)
    assert "R10.8" in reply and "tbl-message-error" in reply
    assert "tbl-message-hint" not in reply
    assert await snapshot(table) == before
    await page.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_sort_and_suggestion_stay_on_the_page_at_a_practice_table(practice_table, timers):
    table, user = await database_sync_to_async(practice_table)()
    deal, state = await state_of(table)
    while 0 not in state.to_act:  # the bots play up to the human's turn
        await database_sync_to_async(timers.run)(rounds=1)
        deal, state = await state_of(table)
    page, _ = await connect(table, user)
    for mode in ("sort-suit", "sort-combo", "sort-rank"):
        await page.send_json_to({"action": mode})
        reply = await page.receive_from(timeout=10)
        assert hand_cards(reply) == set(state.hands[0])
    await page.send_json_to({"action": "suggest"})
    reply = await page.receive_from(timeout=10)
    assert "tbl-message-hint" in reply  # the reason; the suggested cards (if any) are selected
    assert await snapshot(table) == (deal.seq, deal.state, deal.seq)
    await page.disconnect()


def _play_the_deal(table, users, *, automatic=(), seed=0):
    """Play the table's deal to its end through the door: the seats in ``automatic``
    by timeouts and then the autopilot (R9.2), the others as their players. Returns the
    finished deal."""
    rng = random.Random(seed)
    deal, state = current(table)
    deal_id = deal.pk
    while not state.is_over:
        seat = state.to_act[0]
        if seat in automatic:
            action = timeout_action(state, seat)
            actor = AUTOPILOT if state.autopilot[seat] else TIMEOUT
        else:
            action, actor = choose(state, seat, rng), HUMAN
        door.submit_action(
            table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards, reading=action.reading,
            expected_deal=deal.pk, expected_seq=deal.seq, actor=actor, user=None if seat in automatic else users[seat],
        )
        deal, state = current(table)
    return Deal.objects.get(pk=deal_id)


def test_a_deal_the_autopilot_played_for_a_seat_earns_its_player_nothing(playing_table):
    """Seats 1 and 3 (team A) let the autopilot make every decision; seats 2 and 4 play
    themselves. Whichever team wins, team A's players earn nothing for the deal, the
    settlement names their seats, and team B's winners (if B wins) earn as usual."""
    table, users = playing_table
    deal = _play_the_deal(table, users, automatic=(0, 2), seed=7)
    assert deal.result["no_points_r10_8"] == [0, 2]
    earned = set(PointsEntry.objects.filter(deal=deal).values_list("user_id", flat=True))
    assert users[0].pk not in earned and users[2].pk not in earned
    if deal.result["winner_team"] == 1:
        assert earned == {users[1].pk, users[3].pk}
    else:
        assert earned == set()


def test_a_seat_that_played_itself_earns_as_before(playing_table):
    table, users = playing_table
    deal = _play_the_deal(table, users, seed=3)
    assert deal.result["no_points_r10_8"] == []
    winners = {users[p].pk for p in range(4) if p % 2 == deal.result["winner_team"]}
    assert set(PointsEntry.objects.filter(deal=deal).values_list("user_id", flat=True)) == winners

"""A table with no human for GUANDAN_ABANDON_AFTER seconds (10 minutes) ends its match,
abandoned, and closes; a seated player acting or with the table open keeps it going."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.live import door
from games.models import Match, Table

from .helpers import act

pytestmark = pytest.mark.django_db


def away_for(table, minutes):
    Table.objects.filter(pk=table.pk).update(human_seen_at=timezone.now() - timedelta(minutes=minutes))


def test_a_table_without_humans_for_ten_minutes_is_abandoned_and_closed(practice_table, timers):
    table, _user = practice_table(bot_speed="0.3")
    away_for(table, 9)
    door.sweep()
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    away_for(table, 11)
    door.sweep()
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert Match.objects.get(table=table).status == Match.Status.ABANDONED
    # Nothing plays on: pending timers find the table closed.
    before = table.matches.get().deals.get().seq
    timers.run(rounds=50)
    assert table.matches.get().deals.get().seq == before


def test_a_human_action_keeps_the_table(playing_table, timers):
    table, users = playing_table
    away_for(table, 30)
    act(table, users)
    door.sweep()
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_starting_a_match_counts_as_a_human(practice_table):
    table, _user = practice_table()
    assert timezone.now() - table.human_seen_at < timedelta(minutes=1)
    door.sweep()
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_open_page_of_a_seated_player_keeps_the_table(playing_table):
    from .test_table_consumer import connect

    table, users = playing_table
    await Table.objects.filter(pk=table.pk).aupdate(human_seen_at=timezone.now() - timedelta(minutes=30))
    watcher, _ = await connect(table)  # a spectator is no human at the table
    assert (await Table.objects.aget(pk=table.pk)).human_seen_at < timezone.now() - timedelta(minutes=29)
    page, _ = await connect(table, users[2])
    assert timezone.now() - (await Table.objects.aget(pk=table.pk)).human_seen_at < timedelta(minutes=1)
    await page.disconnect()
    await watcher.disconnect()

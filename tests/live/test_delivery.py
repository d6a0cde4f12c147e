"""Every committed step reaches every open page, even when its change event is lost.

The event travels from the committing process through the channel layer; when that hop
fails (the channel layer's Redis is down, the process died between commit and publish),
the action still stands: its sender is never told it was refused, and each page catches
up from the database (the table consumer's resync). A player who is shown a turn late
gets their whole think time from the moment it is shown (R9.2).
"""

import asyncio
import re
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings
from django.utils import timezone

from games.live import broadcast, door, scheduler
from games.live import selectors as live_selectors
from games.models import Action, Deal

from .test_table_consumer import connect, drain, state_of

pytestmark = [pytest.mark.django_db(transaction=True)]

STATUS_SEQ = re.compile(r'id="tbl-status"[^>]*data-seq="(\d+)"')


def _lose_events(monkeypatch):
    """Every change event fails to send, as with the channel layer's Redis down."""
    lost = []

    def fail(table_id, scene=None):
        lost.append(table_id)
        raise ConnectionError("the channel layer is unreachable")

    monkeypatch.setattr(broadcast, "send_table_changed", fail)
    return lost


async def _shown_seq(page, timeout):
    """The newest step a page was sent within ``timeout`` seconds (or None)."""
    newest = None
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if await page.receive_nothing(timeout=0.05):
            continue
        html = await page.receive_from(timeout=5)
        found = STATUS_SEQ.search(html)
        if found:
            newest = int(found.group(1))
    return newest


@override_settings(GUANDAN_RESYNC_INTERVAL=0.2)
@pytest.mark.asyncio
async def test_a_lost_event_neither_refuses_the_sender_nor_leaves_a_page_behind(playing_table, monkeypatch):
    table, users = playing_table
    deal, state = await state_of(table)
    leader = state.turn
    pages = [(await connect(table, users[s]))[0] for s in range(4)]
    lost = _lose_events(monkeypatch)
    card = min(state.hands[leader])
    await pages[leader].send_json_to({"action": "play", "card": [card], "deal": deal.pk, "seq": deal.seq})
    reply = await pages[leader].receive_from(timeout=5)
    assert lost == [table.pk]
    assert "tbl-message-error" not in reply and "R9.1" not in reply
    assert f'data-seq="{deal.seq + 1}"' in reply
    count = await database_sync_to_async(Action.objects.filter(deal_id=deal.pk).count)()
    assert count == deal.seq + 1
    # The other pages got no event, yet hold the new step within a few resync intervals.
    for seat in range(4):
        if seat != leader:
            assert await _shown_seq(pages[seat], timeout=3.0) == deal.seq + 1
    for page in pages:
        await page.disconnect()


@override_settings(GUANDAN_RESYNC_INTERVAL=0.2)
@pytest.mark.asyncio
async def test_a_page_up_to_date_is_not_drawn_again(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    pages = [(await connect(table, users[s]))[0] for s in range(4)]
    await pages[state.turn].send_json_to(
        {"action": "play", "card": [min(state.hands[state.turn])], "deal": deal.pk, "seq": deal.seq}
    )
    for page in pages:
        assert any(f'data-seq="{deal.seq + 1}"' in m for m in await drain(page))
    # Events delivered: the resync has nothing to send over several intervals.
    for page in pages:
        assert await page.receive_nothing(timeout=1.0)
        await page.disconnect()


@override_settings(GUANDAN_RESYNC_INTERVAL=0.2)
@pytest.mark.asyncio
async def test_the_player_shown_the_turn_late_gets_the_whole_think_time(playing_table, monkeypatch):
    table, users = playing_table
    deal, state = await state_of(table)
    leader = state.turn
    pages = [(await connect(table, users[s]))[0] for s in range(4)]
    _lose_events(monkeypatch)
    # The resync sees nothing until the clock is shortened below: otherwise it could
    # catch the page up (with the whole think time still left) before the test has set
    # the scene of an event lost long ago.
    newest_steps, looking = live_selectors.newest_steps, asyncio.Event()
    monkeypatch.setattr(live_selectors, "newest_steps", lambda ids: newest_steps(ids) if looking.is_set() else {})
    await pages[leader].send_json_to(
        {"action": "play", "card": [min(state.hands[leader])], "deal": deal.pk, "seq": deal.seq}
    )
    # No page hears of the play (its own page too learns of it from the resync): wait
    # for it in the database.
    for _ in range(100):
        if (await state_of(table))[0].seq == deal.seq + 1:
            break
        await asyncio.sleep(0.05)

    def shorten_the_clock():
        # As if the event had been lost long ago: a third of the think time is left.
        Deal.objects.filter(pk=deal.pk).update(deadline=timezone.now() + timedelta(seconds=10))

    await database_sync_to_async(shorten_the_clock)()
    looking.set()
    nxt = (await state_of(table))[1].turn
    assert await _shown_seq(pages[nxt], timeout=3.0) == deal.seq + 1
    # The page is drawn first, then its player's time moves on (and the page is drawn
    # again with the new countdown).
    for _ in range(150):  # at most 15 s: a loaded machine may take a while
        moved = await database_sync_to_async(lambda: Deal.objects.get(pk=deal.pk).deadline)()
        if moved >= timezone.now() + timedelta(seconds=table.think_time - 5):
            break
        await asyncio.sleep(0.1)
    assert moved >= timezone.now() + timedelta(seconds=table.think_time - 5)
    for page in pages:
        await page.disconnect()


def test_grace_is_given_only_to_the_seat_to_act_at_that_step(playing_table):
    table, _users = playing_table
    deal = live_selectors.current_deal(table)
    state = live_selectors.deal_state(deal)
    other = next(p for p in range(4) if p not in state.to_act)
    assert not door.grant_resync_grace(table_id=table.pk, deal_id=deal.pk, seq=deal.seq, position=other)
    assert not door.grant_resync_grace(table_id=table.pk, deal_id=deal.pk, seq=deal.seq + 1, position=state.turn)
    Deal.objects.filter(pk=deal.pk).update(deadline=timezone.now() + timedelta(seconds=1))
    assert door.grant_resync_grace(table_id=table.pk, deal_id=deal.pk, seq=deal.seq, position=state.turn)
    # Already the whole think time: nothing moves.
    assert not door.grant_resync_grace(table_id=table.pk, deal_id=deal.pk, seq=deal.seq, position=state.turn)


def test_newest_steps_reads_each_tables_newest_deal(playing_table, make_user, make_table):
    table, _users = playing_table
    deal = live_selectors.current_deal(table)
    waiting = make_table(make_user())
    assert live_selectors.newest_steps([table.pk, waiting.pk]) == {table.pk: (deal.pk, deal.seq)}


@override_settings(GUANDAN_SCHEDULER="celery", CELERY_BROKER_URL="redis://127.0.0.1:1/0")
def test_a_timer_the_broker_cannot_take_is_logged_not_raised(monkeypatch, caplog):
    from celery import current_app

    def unreachable(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(current_app, "send_task", unreachable)
    scheduler.schedule("table_turn", 1, 2, 3, delay=1)
    assert "could not be sent" in caplog.text


class _HeldLayer:
    """A channel layer whose sends wait until released (or fail, with ``error``)."""

    def __init__(self, error=None):
        self.release = asyncio.Event()
        self.sent = []
        self.error = error

    async def group_send(self, group, message):
        await self.release.wait()
        if self.error is not None:
            raise self.error
        self.sent.append((group, message))


@pytest.mark.asyncio
async def test_a_database_threads_sends_go_to_its_loop_in_order_without_a_wait():
    loop = asyncio.get_running_loop()
    layer = _HeldLayer()

    def step_committed():
        with broadcast.sends_on(loop):
            broadcast._group_send(layer, "table-1", {"seq": 1})
            broadcast._group_send(layer, "lobby", {"seq": 1})
            broadcast._group_send(layer, "table-1", {"seq": 2})
        return "committed"

    # The thread is done while its sends still wait on the channel layer.
    assert await asyncio.wait_for(loop.run_in_executor(None, step_committed), timeout=5) == "committed"
    assert layer.sent == []
    layer.release.set()
    for _ in range(200):
        if len(layer.sent) == 3:
            break
        await asyncio.sleep(0.01)
    assert layer.sent == [("table-1", {"seq": 1}), ("lobby", {"seq": 1}), ("table-1", {"seq": 2})]
    assert not broadcast._in_flight


@pytest.mark.asyncio
async def test_a_send_handed_to_the_loop_that_fails_is_logged(caplog):
    loop = asyncio.get_running_loop()
    layer = _HeldLayer(error=ConnectionError("the channel layer is unreachable"))
    layer.release.set()

    def step_committed():
        with broadcast.sends_on(loop):
            broadcast._group_send(layer, "table-7", {"seq": 1})

    await loop.run_in_executor(None, step_committed)
    for _ in range(200):
        if "could not be sent" in caplog.text:
            break
        await asyncio.sleep(0.01)
    assert "table-7" in caplog.text and "could not be sent" in caplog.text and not broadcast._in_flight


@pytest.mark.asyncio
async def test_the_table_pages_database_threads_send_on_their_servers_loop():
    from games.live.consumer import _in_thread

    def serving():
        return getattr(broadcast._serving, "loop", None)

    assert await _in_thread(serving)() is asyncio.get_running_loop()
    assert serving() is None  # outside, sends go the way they always did

"""How a change reaches the pages: one announcement per committed change, carrying the
table's scene, drawn by each page without a query; a hand redrawn only when it changed;
an older step arriving late never replaces a newer one."""

import json
import random

import pytest
from channels.db import database_sync_to_async
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.live import broadcast
from games.live.consumer import TableConsumer
from games.live.render import (
    Scene,
    ViewerState,
    render_private,
    render_public,
    scene_for,
)

from .helpers import act, choose, current
from .test_table_consumer import connect, drain


def test_a_scene_survives_the_trip_through_the_channel_layer(playing_table):
    """The event is JSON (msgpack over Redis): the scene it carries draws the same pages."""
    table, users = playing_table
    act(table, users)
    scene = scene_for(table)
    again = Scene.from_event(scene.to_event())
    assert again == scene
    assert render_public(again) == render_public(scene)
    for seat in (None, 0, 1, 2, 3):
        assert render_private(again, seat, ViewerState()) == render_private(scene, seat, ViewerState())


def test_a_page_draws_a_scene_without_a_query(playing_table):
    table, users = playing_table
    scene = Scene.from_event(scene_for(table).to_event())
    page = TableConsumer()
    page.viewer, page.language, page.drawn, page.hand_key, page.scene = ViewerState(), "en", (0, -1), None, None
    page.user_id = users[2].pk
    with CaptureQueriesContext(connection) as queries:
        html = page.draw(scene)
    assert len(queries) == 0
    assert 'id="tbl-hand"' in html and 'id="tbl-seats"' in html
    assert page.scene is scene and scene.position_of(users[2].pk) == 2


def test_one_announcement_per_table_and_transaction(playing_table, monkeypatch, django_capture_on_commit_callbacks):
    """Changes made together (a match starting and its first deal dealt, say) reach each
    page once, with the last scene."""
    table, _users = playing_table
    sent = []
    monkeypatch.setattr(broadcast, "send_table_changed", lambda table_id, scene=None: sent.append((table_id, scene)))
    first, last = object(), object()
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        broadcast.announce_table_changed(table.pk, first)
        broadcast.announce_table_changed(table.pk + 1000)
        broadcast.announce_table_changed(table.pk, last)
    assert sent == [(table.pk, last), (table.pk + 1000, None)]


def test_an_announcement_outlives_a_rolled_back_savepoint(playing_table, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    table, _users = playing_table
    sent = []
    monkeypatch.setattr(broadcast, "send_table_changed", lambda table_id, scene=None: sent.append(table_id))
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        try:
            with transaction.atomic():
                broadcast.announce_table_changed(table.pk)
                raise RuntimeError("refused")
        except RuntimeError:
            pass
        broadcast.announce_table_changed(table.pk)
    assert sent == [table.pk]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_hand_is_redrawn_only_when_it_changes(playing_table):
    """Another seat's move leaves a page's hand alone (a selection in progress in the
    browser stays); the seat's own move redraws it."""
    table, users = playing_table
    rng = random.Random(3)
    deal, state = await database_sync_to_async(current)(table)
    mover = state.turn
    watcher = (mover + 1) % 4
    pages = {}
    for seat in (mover, watcher):
        pages[seat], first = await connect(table, users[seat])
        assert 'id="tbl-hand"' in first  # the first render is whole
    action = choose(state, mover, rng)
    message = {"action": action.kind, "card": list(action.cards), "deal": deal.pk, "seq": deal.seq}
    await pages[mover].send_json_to(message)
    mover_all = await drain(pages[mover], timeout=1)
    if any("play-as-0" in m for m in mover_all):
        # The cards read several ways (R3.5): choose the reading chosen above.
        from games.live.render import play_as_options

        index = play_as_options(state, action.cards).index(action.reading)
        await pages[mover].send_json_to(dict(message, action=f"play-as-{index}"))
        mover_all += await drain(pages[mover], timeout=1)
    mover_got = [m for m in mover_all if f'data-seq="{deal.seq + 1}"' in m]
    watcher_got = [m for m in await drain(pages[watcher], timeout=1) if f'data-seq="{deal.seq + 1}"' in m]
    assert len(watcher_got) == 1 and len(mover_got) == 1
    assert 'id="tbl-status"' in watcher_got[0] and "<!--tbl:hand-->" not in watcher_got[0]
    # The mover's hand loses the cards played: deleted from the page, or the hand whole.
    assert "<!--tbl:hand-->" in mover_got[0]
    assert 'id="tbl-hand"' in mover_got[0] or all(
        f'<input id="hc-{card}" hx-swap-oob="delete">' in mover_got[0] for card in action.cards)
    for page in pages.values():
        await page.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_older_step_arriving_late_is_ignored(playing_table):
    table, users = playing_table
    page, _first = await connect(table, users[0])
    old_text = await database_sync_to_async(lambda: scene_for(table).to_event())()
    old = json.loads(old_text)
    await database_sync_to_async(act)(table, users)
    newer = await drain(page)
    assert newer, "the new step reached the page"
    deal, _state = await database_sync_to_async(current)(table)
    late = {"type": "table.changed", "table_id": table.pk, "deal": old["deal_id"], "seq": old["state"]["step"],
            "scene": old_text}
    from channels.layers import get_channel_layer

    await get_channel_layer().group_send(broadcast.table_group(table.pk), late)
    assert await drain(page) == []
    await page.disconnect()
    assert deal.seq == old["state"]["step"] + 1


def test_the_lobby_hears_of_seats_and_deals_not_of_every_move(playing_table, monkeypatch):
    table, users = playing_table
    groups = []
    monkeypatch.setattr(broadcast, "_group_send", lambda layer, group, message: groups.append(group))
    broadcast.send_table_changed(table.pk, scene_for(table))  # a new deal: step 0
    assert groups == [broadcast.LOBBY_GROUP, broadcast.table_group(table.pk)]
    act(table, users)
    groups.clear()
    broadcast.send_table_changed(table.pk, scene_for(table))  # a move within the deal
    assert groups == [broadcast.table_group(table.pk)]
    groups.clear()
    broadcast.send_table_changed(table.pk)  # a seat or status change (no scene given)
    assert groups == [broadcast.LOBBY_GROUP, broadcast.table_group(table.pk)]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_broken_event_costs_the_page_nothing(playing_table):
    """An event whose scene cannot be drawn is logged and the page is drawn afresh from
    the database instead: the socket stays open and shows the table as it is."""
    table, users = playing_table
    page, _first = await connect(table, users[1])
    deal, _state = await database_sync_to_async(current)(table)
    from channels.layers import get_channel_layer

    junk = {"type": "table.changed", "table_id": table.pk, "deal": deal.pk, "seq": deal.seq + 7,
            "scene": '{"state": "not a state"}'}
    await get_channel_layer().group_send(broadcast.table_group(table.pk), junk)
    got = await drain(page, timeout=1)
    assert len(got) == 1 and f'data-seq="{deal.seq}" data-deal="{deal.pk}"' in got[0]
    await page.disconnect()


def test_a_process_parses_each_scene_once_for_all_its_pages(playing_table):
    """Every page of a table open in one server process receives the same event text:
    the scene is parsed once and shared (pages only read it); a new step parses anew."""
    import json

    from games.live.render import scene_for, scene_from_event
    from games.models import Table

    from .helpers import act

    table, users = playing_table
    text = scene_for(table).to_event()
    first = scene_from_event(table.pk, text)
    again = json.dumps(json.loads(text), separators=(",", ":"))  # as another page receives it
    assert again == text and again is not text
    assert scene_from_event(table.pk, again) is first
    act(table, users)
    newer = scene_from_event(table.pk, scene_for(Table.objects.get(pk=table.pk)).to_event())
    assert newer is not first and newer.seq == first.seq + 1
    # A step of the same deal takes the moves of the one kept before it, and reads the same.
    act(table, users)
    newest_text = scene_for(Table.objects.get(pk=table.pk)).to_event()
    newest = scene_from_event(table.pk, newest_text)
    assert newest == Scene.from_event(newest_text) and newest.seq == newer.seq + 1
    assert newer.state.history and newest.state.history[0] is newer.state.history[0]
    # The process that sent an event takes the scene it sent, without parsing it back.
    act(table, users)
    sent = scene_for(Table.objects.get(pk=table.pk))
    received = json.dumps(json.loads(sent.event_text()), separators=(",", ":"))
    assert scene_from_event(table.pk, received) is sent


def test_status_and_controls_drawn_once_equal_the_templates(playing_table):
    """The status and controls shells kept per process, with the step filled in, are
    exactly what the templates draw, for every seat and a spectator, step after step,
    whatever the viewer's message, offers, sort or language."""
    from django.template.loader import render_to_string
    from django.utils import translation

    from games.live.render import compact, private_context, render_private_parts
    from games.models import Table

    table, users = playing_table
    viewers = [ViewerState(), ViewerState(message="R9.1: no", message_kind="error", sort="suit"),
               ViewerState(play_as=[{"name": "a pair", "reading": {}}, {"name": "a bomb", "reading": {}}],
                           message="R3.5: choose", message_kind="hint", coach="better")]
    rng = random.Random(4)
    for step in range(12):
        scene = scene_for(Table.objects.get(pk=table.pk))
        for language in ("en", "zh-hans"):
            with translation.override(language):
                for seat in (0, 1, 2, 3, None):
                    for viewer in viewers:
                        parts = render_private_parts(scene, seat, viewer)
                        context = private_context(scene, seat, viewer)
                        assert parts.status == compact(render_to_string("live/_status.html", context))
                        assert parts.controls == compact(render_to_string("live/_controls.html", context))
                        assert f'data-seq="{scene.seq}" data-deal="{scene.deal_id}"' in parts.status
        act(table, users, rng)


@pytest.mark.parametrize("next_seat", ["auto play", "thinking"])
def test_the_pages_hear_of_a_step_before_its_timer_is_started(playing_table, monkeypatch,
                                                              django_capture_on_commit_callbacks, next_seat):
    """On commit the step's announcement goes out first, then the timer of whoever acts
    next (a bot turn for a seat on auto play; the think-time timer for a player thinking,
    here with none pending): a broker's send does not stand between a step and its pages."""
    from games.live import door
    from games.models import Deal, Seat

    table, users = playing_table
    deal, state = current(table)
    mover = state.to_act[0]
    following = (mover + 1) % 4
    if next_seat == "auto play":
        Seat.objects.filter(table=table, position=following).update(auto_play=1)
        table.save(update_fields=["updated_at"])  # the seats changed: a new version
    else:
        Deal.objects.filter(pk=deal.pk).update(clock_at=None)
    order = []
    monkeypatch.setattr(broadcast, "send_table_changed", lambda table_id, scene=None: order.append("pages"))
    monkeypatch.setattr(door, "schedule", lambda name, *args, delay: order.append(name))
    with django_capture_on_commit_callbacks(execute=True):
        act(table, users, random.Random(4), seat=mover)
    timer = "table_turn" if next_seat == "auto play" else "table_clock"
    assert timer in order and order.index("pages") < order.index(timer), order

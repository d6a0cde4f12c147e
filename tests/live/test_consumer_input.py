"""Hostile input at the table's socket: every message is answered in words naming the
rule, changes nothing, and the socket stays open, even while the database is away."""

import json
import re

import pytest
from django.db import OperationalError

from games.live import door
from games.live.consumer import TableConsumer, _card_list, _int, _json_depth
from games.models import Seat

from .test_table_consumer import connect, drain, snapshot, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def message_of(html):
    """The page's message as text (rule ids are links to the rules page)."""
    found = re.search(r'id="tbl-message"[^>]*>(.*?)</p>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


@pytest.mark.asyncio
async def still_answers(page):
    await page.send_to(text_data="not json")
    return message_of(await page.receive_from(timeout=5)).startswith("R9.1")


@pytest.mark.parametrize("text", [
    "[" * 2000 + "]" * 2000,
    json.dumps({"action": "play", "card": [[[[["1"]]]]]}),
    '{"action": "play", "x": ' + "{\"a\": " * 600 + "1" + "}" * 600 + "}",
])
@pytest.mark.asyncio
async def test_deeply_nested_json_is_refused_and_the_socket_kept(playing_table, text):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table, users[state.turn])
    before = await snapshot(table)
    await page.send_to(text_data=text[:4096])
    assert message_of(await page.receive_from(timeout=5)).startswith("R9.1")
    assert await still_answers(page)
    assert await snapshot(table) == before
    await page.disconnect()


@pytest.mark.parametrize("card", ["80.7", 80.7, "٨٠", "８０", " 80", "+80", True, "1e1", {"id": 80}])
@pytest.mark.asyncio
async def test_card_ids_are_whole_ascii_numbers(playing_table, card):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table, users[state.turn])
    before = await snapshot(table)
    await page.send_json_to({"action": "play", "card": [card], "deal": deal.pk, "seq": deal.seq})
    assert message_of((await drain(page))[-1]).startswith("R1.4")
    assert await snapshot(table) == before
    await page.disconnect()


def test_strict_parsing_helpers():
    assert _card_list(["80", 7]) == [80, 7]
    assert _int("12", "R9.1", "the step") == 12
    for bad in ("12.0", "١٢", "-1", "", None, 1.5, False):
        with pytest.raises(door.PlayError):
            _int(bad, "R9.1", "the step")
    assert _json_depth('{"a": ["[[[[[", "{{{{"]}', 2)
    assert not _json_depth('{"a": [[1]]}', 2)


@pytest.mark.parametrize("interval", ["sNaN", "NaN", "Infinity", "-1", "0.30000001", "1e0", ["1"], 1])
@pytest.mark.asyncio
async def test_odd_auto_play_intervals_are_refused(playing_table, interval):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table, users[0])
    await page.send_json_to({"action": "auto-on", "auto_interval": interval})
    assert message_of((await drain(page))[-1]).startswith("R9.2")
    assert await still_answers(page)
    assert not await Seat.objects.filter(table=table, auto_play__isnull=False).aexists()
    await page.disconnect()


def test_the_door_refuses_a_signalling_nan(practice_table):
    table, user = practice_table()  # auto play is for practice and friend tables (R10.8)
    with pytest.raises(door.PlayError, match="R9.2"):
        door.set_auto_play(table=table, user=user, interval="sNaN")


@pytest.mark.asyncio
async def test_refusals_need_no_database(playing_table, monkeypatch):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table, users[state.turn])

    def away(*args, **kwargs):
        raise OperationalError("the database is away")

    monkeypatch.setattr(door, "submit_action", away)
    monkeypatch.setattr(TableConsumer, "render", away)
    await page.send_to(text_data="not json")
    assert message_of(await page.receive_from(timeout=5)).startswith("R9.1")
    card = min(state.hands[state.turn])
    await page.send_json_to({"action": "play", "card": [str(card)], "deal": deal.pk, "seq": deal.seq})
    assert message_of((await drain(page))[-1]).startswith("R9.1")
    await page.send_json_to({"action": "refresh"})
    assert message_of((await drain(page))[-1]).startswith("R9.1")
    assert await still_answers(page)
    await page.disconnect()

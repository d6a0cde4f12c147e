"""Each step sends a page only the regions it changed: a page built from its first
message and every partial update after it holds exactly what a page drawn afresh holds,
for players and spectators, across tricks, finished seats and a new deal; and a step
costs a few hundred bytes, not the whole table."""

import random
import re
import statistics
from collections import Counter

import pytest
from channels.db import database_sync_to_async

from games.live import door
from games.live.consumer import _Regions

from .helpers import LOG_LINE, act, current
from .test_table_consumer import connect, drain

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

APPEND = re.compile(r'((?:<li id="tbl-log-\d+-\d+" hx-swap-oob="delete"></li>)*)'
                    r'<ol hx-swap-oob="beforeend:#tbl-log-list">(.*)</ol>', re.S)
HAND_DELETE = re.compile(r'<input id="hc-(\d+)" hx-swap-oob="delete">')
HAND_COUNT = re.compile(r'<legend id="tbl-hand-count".*?</legend>', re.S)
DELETE = re.compile(r'<li id="(tbl-log-\d+-\d+)" hx-swap-oob="delete">')


class PageModel:
    """What a browser's page holds of each region, built as htmx builds it: a region sent
    replaces the one of the same id; the log's new lines are appended, its oldest deleted."""

    def __init__(self, first: str):
        self.regions = dict(_Regions.split(first))
        self.lines = [m.group(0) for m in LOG_LINE.finditer(self.regions["log"])]

    def apply(self, message: str) -> None:
        for name, part in _Regions.split(message):
            appended = APPEND.match(part)
            if name == "log" and appended:
                gone = set(DELETE.findall(appended.group(1)))
                self.lines = [line for line in self.lines if line.split('"')[1] not in gone]
                self.lines += [m.group(0) for m in LOG_LINE.finditer(appended.group(2))]
                continue
            if name == "hand" and HAND_DELETE.search(part):
                hand = self.regions["hand"]
                for card in HAND_DELETE.findall(part):
                    hand = re.sub(rf'<input type="checkbox" class="hand-check" id="hc-{card}".*?</label>', "", hand,
                                  count=1, flags=re.S)
                count = HAND_COUNT.search(part).group(0)
                self.regions["hand"] = HAND_COUNT.sub(lambda _m, new=count: new, hand, count=1)
                continue
            self.regions[name] = part
            if name == "log":
                self.lines = [m.group(0) for m in LOG_LINE.finditer(part)]

    def matches(self, fresh: str) -> list[str]:
        """The regions that differ from a page drawn afresh (the log by its newest lines)."""
        wrong = []
        for name, part in _Regions.split(fresh):
            if name == "log":
                if self.lines != [m.group(0) for m in LOG_LINE.finditer(part)]:
                    wrong.append(name)
            elif name not in _Regions.FRAME and self.regions.get(name) != part:
                wrong.append(name)
        return wrong


async def test_a_page_built_from_partial_updates_equals_a_fresh_one(playing_table):
    table, users = playing_table
    rng = random.Random(11)
    viewers = {0: users[0], None: None}  # a player and a spectator
    pages, models, sizes = {}, {}, {v: [] for v in viewers}
    sent = {v: Counter() for v in viewers}  # region -> messages that carried it
    for viewer, user in viewers.items():
        pages[viewer], first = await connect(table, user)
        models[viewer] = PageModel(first)
    new_deals = 0
    while new_deals == 0:
        deal, state = await database_sync_to_async(current)(table)
        if state.is_over:
            deal = await database_sync_to_async(door.start_next_deal)(table_id=table.pk, deal_id=deal.pk)
            new_deals += 1
            step = f'data-seq="0" data-deal="{deal.pk}"'
        else:
            await database_sync_to_async(act)(table, users, rng)
            step = f'data-seq="{deal.seq + 1}" data-deal="{deal.pk}"'
        for viewer, page in pages.items():
            while True:  # every message up to the one of this step
                message = await page.receive_from(timeout=10)
                models[viewer].apply(message)
                sizes[viewer].append(len(message.encode()))
                sent[viewer].update(name for name, _part in _Regions.split(message))
                if step in message:
                    break
    assert new_deals == 1, "a whole deal and the next one's start were played"
    for viewer, user in viewers.items():
        await pages[viewer].disconnect()
        fresh_page, fresh = await connect(table, user)
        assert models[viewer].matches(fresh) == [], f"viewer {viewer}"
        await fresh_page.disconnect()
    # A step costs a page little: the median message is far below the whole table
    # (about 7 KB) for a spectator and for a player.
    assert statistics.median(sizes[None]) < 2000, statistics.median(sizes[None])
    assert statistics.median(sizes[0]) < 2000, statistics.median(sizes[0])
    # The turn moving does not re-send the player's controls (their buttons follow the
    # status's data-turn), nor every seat's last play (only the seats whose play changed).
    steps = len(sizes[0])
    assert sent[0]["status"] == steps
    assert sent[0]["controls"] < steps / 10, (sent[0]["controls"], steps)
    last_plays = sum(sent[0][f"last-{n}"] for n in range(1, 5))
    plates = sum(sent[0][f"plate-{n}"] for n in range(1, 5))
    assert last_plays < plates, (last_plays, plates)


async def test_a_missed_step_is_made_good_by_refresh(playing_table):
    """The page asks for the whole table when it sees a gap (static/live/table.js): the
    answer is whole, every region, whatever the page was sent before."""
    table, users = playing_table
    page, _first = await connect(table, users[1])
    await database_sync_to_async(act)(table, users, random.Random(2))
    await drain(page, timeout=0.3)
    await page.send_json_to({"action": "refresh"})
    whole = await page.receive_from(timeout=5)
    names = [name for name, _part in _Regions.split(whole)]
    seat_regions = [f"{part}-{n}" for n in range(1, 5) for part in ("seat", "plate", "last")]
    for region in ("seats", *seat_regions, "trick", "log", "status", "hand", "controls", "more"):
        assert region in names
    await page.disconnect()

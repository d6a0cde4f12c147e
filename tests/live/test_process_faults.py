"""Faults of real processes: a Redis killed and restarted, a daphne killed right after
a player's action. Every page that stayed connected reaches the newest committed step
within 3 s, the sender of a committed action is never told it was refused, and the
Celery worker survives the broker's loss, so tables go on within 10 s of Redis
returning.

The test starts and kills its own processes (tests/live/processes.py): a private Redis
on a free port, two daphne processes and a Celery worker with beat's sweep, all on the
test's PostgreSQL database, on loopback only. PostgreSQL lane of .ci/run.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import pytest

from .processes import Page, Stack, chosen_messages, in_thread, newest_step, session_for

pytestmark = [pytest.mark.postgres, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def stack():
    made = Stack(Path(tempfile.mkdtemp(prefix="faults-")))
    try:
        made.start_redis()
        made.start_daphne(["127.0.0.1", "127.0.0.1"])
        made.start_worker()
        yield made
    finally:
        made.stop()


def test_pages_and_tables_go_on_through_redis_and_daphne_deaths(stack, playing_table, practice_table):
    table, users = playing_table
    sessions = [session_for(user) for user in users]
    bot_table, bot_user = practice_table(bot_speed="0.3")
    bot_session = session_for(bot_user)

    async def run():
        # Seats 1 and 2 on the first daphne, 3 and 4 on the second.
        pages = [await Page(*stack.addresses[seat // 2], table.pk, sessions[seat]).open() for seat in range(4)]

        # 1. Redis dies: the channel layer cannot carry the step, the database can.
        stack.kill_redis()
        seat, messages = await in_thread(chosen_messages, table.pk)
        for message in messages:
            await pages[seat].send(message)
            await asyncio.sleep(0.2)
        newest = await in_thread(newest_step, table.pk)
        assert newest[1] == messages[0]["seq"] + 1
        for page in pages:
            assert await page.until(lambda p=page: p.step == newest, 3.0), (page.step, newest, stack.log_tail())
        assert pages[seat].errors == [], pages[seat].errors
        stack.start_redis()
        await asyncio.sleep(1.0)

        # 2. A daphne dies right after a player's action on it: the pages on the other
        # daphne reach whatever was committed within 3 s.
        seat, messages = await in_thread(chosen_messages, table.pk)
        doomed = seat // 2
        for message in messages:
            await pages[seat].send(message)
        await asyncio.sleep(0.015)
        stack.kill_daphne(doomed)
        await asyncio.sleep(0.5)  # what was committed is committed by now
        committed = await in_thread(newest_step, table.pk)
        for page in pages[2 - 2 * doomed: 4 - 2 * doomed]:
            assert await page.until(lambda p=page: p.step == committed, 3.0), (page.step, committed)

        # 3. The worker survives Redis's death: bots play on within 10 s of its return.
        human = await Page(*stack.addresses[1 - doomed], bot_table.pk, bot_session).open()
        await human.send({"action": "auto-on", "auto_interval": "0.3"})
        start = await in_thread(newest_step, bot_table.pk)
        assert await human.until(lambda: human.step is not None and human.step > start, 15), stack.log_tail()
        stack.kill_redis()
        await asyncio.sleep(3.0)
        stack.start_redis()
        back = await in_thread(newest_step, bot_table.pk)
        went_on = False
        end = time.monotonic() + 10
        while time.monotonic() < end and not went_on:
            await asyncio.sleep(0.5)
            went_on = (await in_thread(newest_step, bot_table.pk)) > back
        assert stack.worker.poll() is None, stack.log_tail()
        assert went_on, stack.log_tail()
        for page in [*pages, human]:
            await page.close()

    asyncio.run(run())

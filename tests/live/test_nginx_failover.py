"""Two hosts behind the production recipe's nginx: one dies mid-deal, and the players go
on through the other with no step lost or doubled.

Two daphne "hosts" listen on different loopback addresses (127.0.0.2, 127.0.0.3) behind
nginx configured with deploy/nginx/guandan-locations.conf, sharing a Redis and the test's
PostgreSQL database. Four players connect through nginx and play a whole deal (each
move the normal bot's choice, sent as the page sends it); after a few moves one host is
killed. Its players' sockets close, reconnect through nginx to the other host, and the
deal is played to its end: every page holds every step as it is made, and the log has
each step exactly once (the after-test check folds it to the stored snapshot).
PostgreSQL lane of .ci/run; needs nginx (scripts/test.sh installs Debian's).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest

from games.models import Action

from .processes import Page, Stack, chosen_messages, in_thread, newest_step, session_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.celery,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
                       reason="needs nginx (Debian's package)"),
]


@pytest.fixture
def stack():
    made = Stack(Path(tempfile.mkdtemp(prefix="failover-")))
    try:
        made.start_redis()
        made.start_daphne(["127.0.0.2", "127.0.0.3"])
        made.start_nginx()
        yield made
    finally:
        made.stop()  # (which starts the next test on a fresh pool)


def test_a_deal_goes_on_through_nginx_when_one_host_dies(stack, playing_table):
    table, users = playing_table
    sessions = [session_for(user) for user in users]

    async def run():
        pages = [await Page("127.0.0.1", stack.nginx_port, table.pk, key, reconnect=True).open() for key in sessions]
        moves = 0
        killed = False
        while True:
            chosen = await in_thread(chosen_messages, table.pk)
            if chosen is None:
                break
            seat, messages = chosen
            for message in messages:
                await pages[seat].send(message)
                if len(messages) > 1:
                    await asyncio.sleep(0.1)
            want = (messages[0]["deal"], messages[0]["seq"] + 1)
            for page in pages:
                assert await page.until(lambda p=page: p.step is not None and p.step >= want, 10.0), (
                    page.step, want, stack.log_tail())
            moves += 1
            if moves == 6:
                stack.kill_daphne(0)
                killed = True
        assert killed and moves > 6
        final = await in_thread(newest_step, table.pk)
        for page in pages:
            assert page.step == final
        # Half the sockets went through the dead host (nginx balances round robin) and came back.
        assert sum(page.reconnects for page in pages) >= 1
        seqs = await in_thread(lambda: list(Action.objects.filter(deal_id=final[0]).values_list("seq", flat=True)))
        assert sorted(seqs) == list(range(1, final[1] + 1))
        for page in pages:
            await page.close()

    asyncio.run(run())

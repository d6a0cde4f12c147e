"""The Celery worker outlives Redis killed and restarted again and again under it.

A worker with beat holds timers (the think time of a table of four thinking players is a
countdown task it keeps unacknowledged for seconds) while bots and auto play move every
seat of a practice table. Redis is killed and started again twelve times at random moments:
while the worker is idle, while it holds timers, and again a moment after it came back,
while the worker and beat are still reconnecting. The worker must never exit, and after
each return the bots' table must move within 5 s and the thinking table's timeouts
(R9.2) must go on.

The test starts its own Redis, worker and beat (tests/live/processes.py) on the test's
PostgreSQL database. PostgreSQL lane of .ci/run.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import pytest

from games.models import Action, Deal

from .processes import Stack, newest_step

pytestmark = [pytest.mark.postgres, pytest.mark.celery, pytest.mark.django_db(transaction=True)]

OUTAGES = 12
BACK_WITHIN = 5.0  # seconds from Redis's return to the bots' next step


@pytest.fixture
def stack():
    made = Stack(Path(tempfile.mkdtemp(prefix="redis-outages-")))
    try:
        made.start_redis()
        made.start_worker()
        yield made
    finally:
        made.stop()


def _moved_since(table_id: int, step: tuple[int, int], within: float) -> float | None:
    """Seconds until the table's newest step passes ``step``, or None within ``within``."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        if newest_step(table_id) > step:
            return time.monotonic() - start
        time.sleep(0.1)
    return None


def _timeouts(table) -> int:
    return Action.objects.filter(deal__match__table=table, actor="timeout").count()


def test_the_worker_outlives_redis_killed_again_and_again(stack, practice_table, playing_table):
    from games.models import Table

    from decimal import Decimal

    from games.models import Seat

    bots, player = practice_table(bot_speed="0.3", think_time=10)
    # The practice table's player has auto play on: every seat there moves at 0.3 s.
    Seat.objects.filter(table=bots, user=player).update(auto_play=Decimal("0.3"))
    thinking, _players = playing_table
    Table.objects.filter(pk=thinking.pk).update(think_time=10)
    # Nothing was scheduled on the test's own broker: beat's sweep starts both tables.
    assert _moved_since(bots.pk, newest_step(bots.pk), 30) is not None, stack.log_tail()

    rng = random.Random(2812)
    waits = []
    for outage in range(OUTAGES):
        time.sleep(rng.uniform(0.2, 4.0))  # idle, mid-task, or holding the think-time timer
        stack.kill_redis()
        time.sleep(rng.uniform(0.3, 4.0))
        stack.start_redis()
        if outage % 3 == 2:
            # Again while the worker and beat are reconnecting (or just have).
            time.sleep(rng.uniform(0.0, 1.5))
            stack.kill_redis()
            time.sleep(rng.uniform(0.3, 2.0))
            stack.start_redis()
        back = newest_step(bots.pk)
        waited = _moved_since(bots.pk, back, BACK_WITHIN)
        assert stack.worker.poll() is None, f"the worker exited after outage {outage + 1}\n{stack.log_tail()}"
        if waited is None:
            stacks = stack.worker_stacks()
            pytest.fail(f"the bots stood still {BACK_WITHIN} s after outage {outage + 1}\n{stacks}\n"
                        f"{stack.log_tail(20000)}")
        waits.append(waited)

    # The thinking table's think-time timers fired through it all: its seats timed out
    # (R9.2), and it is still moving.
    assert _timeouts(thinking) >= 2, stack.log_tail()
    assert _moved_since(thinking.pk, newest_step(thinking.pk), 15) is not None, stack.log_tail()
    assert stack.worker.poll() is None, stack.log_tail()
    # Every stored deal is the fold of its log (checked after every test), and no step
    # was taken twice: the log's places are 1..seq. The tables are still playing, so the
    # log is read between two readings of the deal's seq (an action and its seq commit
    # together): the log is 1..n with n between them.
    for deal in Deal.objects.all():
        seqs = list(deal.actions.values_list("seq", flat=True))
        after = Deal.objects.values_list("seq", flat=True).get(pk=deal.pk)
        assert seqs == list(range(1, len(seqs) + 1)), f"deal {deal.pk}: a step lost or doubled"
        assert deal.seq <= len(seqs) <= after, (deal.pk, deal.seq, len(seqs), after)
    print("seconds from each return to the bots' next step:", [round(w, 2) for w in waits])

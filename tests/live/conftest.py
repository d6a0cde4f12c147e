"""Fixtures for the live table: tables in play, and timers held for the test to run.

Timers never fire on their own here: ``timers`` records what ``games.play`` schedules
(task name, arguments, delay) and ``run_timers`` runs them, so every test decides when a
bot acts or a think time runs out.
"""

from datetime import timedelta

import pytest
from django.utils import timezone


class Timers:
    def __init__(self):
        self.pending = []

    def __call__(self, name, *args, delay):
        self.pending.append((name, args, delay))

    def names(self):
        return [name for name, _args, _delay in self.pending]

    def run(self, *, rounds=1000):
        """Run pending timers (and those they schedule) until none is left."""
        from games import tasks

        ran = 0
        while self.pending and ran < rounds:
            name, args, _delay = self.pending.pop(0)
            getattr(tasks, name)(*args)
            ran += 1
        return ran


@pytest.fixture(autouse=True)
def timers(monkeypatch):
    from games import play, scheduler

    recorder = Timers()
    monkeypatch.setattr(play, "schedule", recorder)
    monkeypatch.setattr(scheduler, "bind_loop", lambda loop: None)
    return recorder


@pytest.fixture
def practice_table(make_user, make_table):
    """A practice table in play: one human (seat 1) and three bots."""
    from games import services

    def make(**options):
        user = make_user()
        table = make_table(user, kind="practice", **options)
        services.start_match(table=table, user=user)
        table.refresh_from_db()
        return table, user

    return make


@pytest.fixture
def playing_table(full_table):
    """A Junior match table in play with four registered humans; ``(table, users)``."""
    from games import services

    table, users = full_table
    services.start_match(table=table, user=users[0])
    table.refresh_from_db()
    return table, users


def expire(deal):
    """Make the deal's think time run out now."""
    deal.deadline = timezone.now() - timedelta(seconds=1)
    deal.save(update_fields=["deadline"])

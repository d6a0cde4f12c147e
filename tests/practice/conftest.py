"""Fixtures for the practice arena tests."""

import pytest


@pytest.fixture
def no_timers(monkeypatch):
    """Keep the table's timers (bot turns, timeouts) from running in a test thread: the
    tests look at what the services wrote, and a bot moving meanwhile would change it."""
    from games.live import door
    from games.practice import services as practice

    scheduled = []

    def record(name, *args, delay):
        scheduled.append((name, args, delay))

    monkeypatch.setattr(door, "schedule", record)
    monkeypatch.setattr(practice, "schedule", record)
    return scheduled

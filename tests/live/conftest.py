"""Fixtures for the live table: tables in play. Timers never fire on their own in tests
(``timers`` in tests/conftest.py records them); each test decides when they run."""

from datetime import timedelta

import pytest
from django.utils import timezone


@pytest.fixture
def practice_table(make_user, make_table):
    """A practice table in play: one human (seat 1) and three bots."""
    from games.tables import services

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
    from games.tables import services

    table, users = full_table
    services.start_match(table=table, user=users[0])
    table.refresh_from_db()
    return table, users


def expire(deal, *, seconds_ago: float = 1):
    """Make the deal's think time run out (``seconds_ago`` before now)."""
    deal.deadline = timezone.now() - timedelta(seconds=seconds_ago)
    deal.save(update_fields=["deadline"])

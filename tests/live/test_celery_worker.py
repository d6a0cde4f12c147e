"""A real Celery worker consuming from Redis plays the bots' turns and fires a think-time
timeout (R9.2), through the same task functions the embedded scheduler runs."""

import time

import pytest
from django.test import override_settings

from games.live import door
from games.models import Action
from guandan_site.celery import app

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def celery_app():
    return app


@pytest.fixture
def celery_worker_parameters():
    return {"perform_ping_check": False, "concurrency": 1}


@pytest.fixture
def timers(monkeypatch):
    """Here the timers are real: they go to the broker."""
    from games.live import scheduler

    monkeypatch.setattr(door, "schedule", scheduler.schedule)
    return None


@override_settings(GUANDAN_SCHEDULER="celery")
def test_the_worker_plays_bots_and_times_out_the_human(celery_worker, make_user, make_table):
    from games.tables import services

    user = make_user()
    table = make_table(user, kind="practice", bot_speed="0.3", think_time=5)
    services.start_match(table=table, user=user)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        actors = set(Action.objects.filter(deal__match__table=table).values_list("actor", flat=True))
        if {"bot", "timeout"} <= actors:
            break
        time.sleep(0.5)
    actors = set(Action.objects.filter(deal__match__table=table).values_list("actor", flat=True))
    assert "bot" in actors, "the worker played no bot turn"
    assert "timeout" in actors, "the worker fired no timeout"
    assert Action.objects.filter(deal__match__table=table, seat=0, actor="timeout").exists()

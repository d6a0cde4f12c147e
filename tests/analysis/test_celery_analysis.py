"""A real Celery worker on the analysis queue (Redis) runs a deal's analysis sent by
the replay's request, as the production analysis worker does."""

import time

import pytest
from django.test import override_settings

from games.analysis import services
from games.live import scheduler
from games.models import DealAnalysis
from guandan_site.celery import app

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def celery_app():
    return app


@pytest.fixture
def celery_worker_parameters():
    # The analysis queue (deploy/systemd/guandan-analysis.service) with the default one: the
    # queues a test worker selects stay selected on the app for later workers in this
    # process, which must still take the tables' timers.
    return {"perform_ping_check": False, "concurrency": 1, "queues": ["celery", "analysis"]}


@pytest.fixture
def timers(monkeypatch):
    """Here the analysis goes to the broker."""
    monkeypatch.setattr(services, "schedule", scheduler.schedule)


@override_settings(GUANDAN_SCHEDULER="celery")
def test_the_analysis_worker_runs_a_requested_analysis(celery_worker, finished, players, quick_analysis):
    services.request_analysis(deal=finished, user=players[0])
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        analysis = DealAnalysis.objects.get(deal=finished)
        if analysis.status in (DealAnalysis.Status.DONE, DealAnalysis.Status.FAILED):
            break
        time.sleep(0.3)
    assert analysis.status == DealAnalysis.Status.DONE, analysis.error
    assert analysis.done == analysis.total == finished.seq

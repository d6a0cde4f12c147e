"""The Celery app: configured from settings, and a real worker consuming from Redis."""

import threading

import pytest
from django.conf import settings

from guandan_site.celery import app


def test_celery_app_reads_django_settings():
    assert app.conf.broker_url == settings.CELERY_BROKER_URL
    assert app.conf.broker_transport_options["visibility_timeout"] == settings.CELERY_VISIBILITY_TIMEOUT
    assert app.conf.task_always_eager is False  # eager mode ignores countdown
    assert app.conf.task_serializer == "json"


@pytest.fixture
def celery_app():
    """The site's own app (broker = REDIS_URL), for ``celery_worker``."""
    return app


@pytest.fixture
def celery_worker_parameters():
    # No result backend here: the worker's startup ping would wait for a result.
    return {"perform_ping_check": False}


@pytest.mark.celery
def test_a_worker_runs_tasks_sent_through_redis(celery_app, celery_worker):
    """A task sent through the Redis broker, with a countdown as the live table's timers
    use, reaches the worker (which runs in this process, so it can set the event)."""
    ran = threading.Event()
    received = []

    @celery_app.task(name="tests.site.mark_ran")
    def mark_ran(value):
        received.append(value)
        ran.set()

    celery_worker.consumer.update_strategies()
    mark_ran.apply_async(args=[42], countdown=1)
    assert ran.wait(timeout=30), "the worker did not run the task"
    assert received == [42]

"""Browser test fixtures: the site in a Daphne subprocess and headless Chromium.

Use them in any browser test (the live table's too)::

    @pytest.mark.browser
    def test_something(site_url, new_page):
        page = new_page()                      # a fresh browser context (own cookies)
        page.goto(site_url + "/")

- ``live_site`` (session): ``guandan_site.testing.LiveSite`` serving the test database.
- ``site_url``: its base URL; requests ``transactional_db``, so rows a test creates are
  committed (the server process sees them) and flushed afterwards.
- ``browser`` (module): Debian's Chromium (``/usr/bin/chromium``) driven by Playwright;
  closed after each module, so no Playwright loop outlives the browser tests (which the
  root conftest runs last).
- ``new_context()`` / ``new_page()``: factories for isolated browser contexts, closed after
  the test; two contexts are two different visitors.

Chromium is never downloaded: ``scripts/test.sh`` installs Debian's package when missing.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connection

from guandan_site.testing import LiveSite

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
]
# Playwright waits this long (ms) for an element or a navigation before failing a test.
TIMEOUT_MS = 15_000

# The served site (spawned after this is read) seats two quick-play players with bots
# after 4 s rather than 20 (R10.9: the wait is a setting).
os.environ.setdefault("GUANDAN_QUICKPLAY_BOT_FILL_AFTER", "4")


@pytest.fixture(scope="session")
def live_site(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        database_name = connection.settings_dict["NAME"]
    with LiveSite(database_name=database_name) as site:
        yield site


@pytest.fixture
def site_url(live_site, transactional_db):
    return live_site.url


@pytest.fixture(scope="module")
def browser(live_site):
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"Chromium not found at {CHROMIUM}: run scripts/test.sh, which installs Debian's chromium")
    # Playwright's sync API keeps an event loop in this thread, which makes Django refuse
    # ORM calls from test code and fixtures as if they were async. The server runs in
    # its own process (started above, before this is set), so this only affects the test
    # process's own setup and assertions.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(autouse=True)
def broadcast_outside_the_browser_loop(monkeypatch):
    """Rows a browser test creates through the services announce themselves from a plain
    thread: Playwright's loop runs in the test's own thread, where ``async_to_sync`` may
    not. (With the in-memory layer the event stays in this process; with Redis it reaches
    the server.)"""
    from games.live import broadcast

    send = broadcast.send_table_changed

    def send_and_hand_back(table_id, scene):
        from django.db import connections

        try:
            send(table_id, scene)
        finally:
            connections.close_all()  # the thread ends: its pooled connection goes back

    def send_from_thread(table_id, scene=None):
        sender = threading.Thread(target=send_and_hand_back, args=(table_id, scene))
        sender.start()
        sender.join()

    monkeypatch.setattr(broadcast, "send_table_changed", send_from_thread)
    send_to_group = broadcast.send_to_group

    def group_send_from_thread(group, message):
        sender = threading.Thread(target=send_to_group, args=(group, message))
        sender.start()
        sender.join()

    monkeypatch.setattr(broadcast, "send_to_group", group_send_from_thread)


@pytest.fixture
def new_context(browser, site_url):
    contexts = []

    def make(**options):
        options.setdefault("base_url", site_url)
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def new_page(new_context):
    def make(**options):
        return new_context(**options).new_page()

    return make


@pytest.fixture(scope="session", autouse=True)
def celery_timers(live_site, django_db_blocker):
    """Bot turns, timeouts and the next deal: on the embedded default the shared server
    runs them on its own event loop; with ``REDIS_URL`` (PostgreSQL and Redis, as in
    production) the server sends them to Celery, so a worker on the test database runs
    them here, as a production worker does, and its broadcasts reach the server's pages
    through Redis."""
    if settings.GUANDAN_SCHEDULER != "celery":
        yield None
        return
    from guandan_site.celery import app

    with django_db_blocker.unblock():
        name = connection.settings_dict["NAME"]
    url = urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}").geturl()
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "guandan_site", "worker", "--loglevel=WARNING", "--concurrency=1",
         "--queues=celery,analysis",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=Path(__file__).resolve().parents[2], env=dict(os.environ, DATABASE_URL=url),
        stdin=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            assert worker.poll() is None and time.monotonic() < deadline, "the Celery worker did not start"
        yield worker
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        # Timers left by these tables must not reach a later worker.
        app.control.purge()

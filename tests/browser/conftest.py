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
import threading

import pytest
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
    from games import broadcast

    send = broadcast.send_table_changed

    def send_from_thread(table_id):
        sender = threading.Thread(target=send, args=(table_id,))
        sender.start()
        sender.join()

    monkeypatch.setattr(broadcast, "send_table_changed", send_from_thread)


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

"""The embedded mode's timers run from the moment the server starts: after a restart,
an overdue table moves on before any page connects. The server, started as the README
says, sends no ``Server`` banner."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games.live import selectors as live_selectors
from games.models import Deal

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    return f"postgres://{settings['USER']}{password}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"


@pytest.fixture
def daphne_server():
    """``start()`` runs the embedded mode (no Redis) on the test database, as README's
    recipe runs daphne; stopped at the end."""
    processes = []

    def start():
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
        env["DATABASE_URL"] = database_url()
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "--no-server-name", "-b", "127.0.0.1", "-p", str(port),
             "guandan_site.asgi:application"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        processes.append(process)
        return process, f"http://127.0.0.1:{port}"

    yield start
    for process in processes:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_an_overdue_table_moves_before_any_page_connects(practice_table, daphne_server, timers):
    # ``timers``: this test process records its own timers instead of running them, so only
    # the server can move the table.
    table, _user = practice_table(bot_speed="0.3", think_time=10)
    deal = live_selectors.current_deal(table)
    long_ago = timezone.now() - timedelta(minutes=1)
    Deal.objects.filter(pk=deal.pk).update(started_at=long_ago, deadline=long_ago)
    process, url = daphne_server()
    for _ in range(600):
        if Deal.objects.get(pk=deal.pk).seq > 0 or process.poll() is not None:
            break
        time.sleep(0.1)
    assert process.poll() is None, process.stderr.read().decode()[-2000:]
    assert Deal.objects.get(pk=deal.pk).seq > 0, "nothing ran before the first request"

    with urllib.request.urlopen(url + "/", timeout=30) as response:
        assert response.status == 200
        assert response.headers.get("Server") is None
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]


def test_a_table_not_yet_due_moves_at_its_own_pace_after_a_restart(practice_table, daphne_server, timers):
    """The restart lost every timer the server held: its first sweep starts the timer of
    a table whose turn is not due yet, for the moment it is due. Without that, the table
    would wait for a later sweep that finds it overdue (2 s of grace, every 5 s)."""
    from games.models import Seat

    table, user = practice_table(bot_speed="9", think_time=60)
    Seat.objects.filter(table=table, user=user).update(auto_play=9)  # every seat waits 9 s
    deal = live_selectors.current_deal(table)
    due = time.monotonic() + 8
    Deal.objects.filter(pk=deal.pk).update(started_at=timezone.now() - timedelta(seconds=1))
    process, _url = daphne_server()
    moved = None
    while time.monotonic() < due + 6 and process.poll() is None:
        if Deal.objects.get(pk=deal.pk).seq > 0:
            moved = time.monotonic()
            break
        time.sleep(0.05)
    assert process.poll() is None, process.stderr.read().decode()[-2000:]
    assert moved is not None, "the table stood still"
    # At its own pace: not before it was due, and not at a later sweep (which comes 5 s
    # after the first, at the earliest 2 s after it was due).
    assert due - 0.5 <= moved < due + 2.5, moved - due

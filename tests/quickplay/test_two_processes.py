"""Quick play's queue is shared by every web process (R10.9): two players press Quick
play on two different daphne processes of the production setup (PostgreSQL, Redis, a
Celery worker with beat) and are seated together, with two bots, within the bot-fill
wait plus a few seconds; each page hears it over its own process's socket.

Starts its own processes (tests/live/processes.py). PostgreSQL lane of .ci/run."""

from __future__ import annotations

import asyncio
import http.client
import re
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings

from games.models import Table
from tests.live.processes import Stack, in_thread, session_for

pytestmark = [pytest.mark.postgres, pytest.mark.celery, pytest.mark.django_db(transaction=True)]

FILL_AFTER = 3


@pytest.fixture
def stack():
    made = Stack(Path(tempfile.mkdtemp(prefix="quickplay-")))
    made.env["GUANDAN_QUICKPLAY_BOT_FILL_AFTER"] = str(FILL_AFTER)
    try:
        made.start_redis()
        made.start_daphne(["127.0.0.1", "127.0.0.1"])
        made.start_worker()
        yield made
    finally:
        made.stop()


def press_quick_play(host: str, port: int, session: str) -> int:
    """What the lobby's Quick play button does: the page (for its CSRF cookie), then the
    form's POST. Returns the POST's status."""
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}"
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request("GET", "/play/", headers={"Cookie": cookie, "Host": f"{host}:{port}"})
    response = connection.getresponse()
    response.read()
    token = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie") or "").group(1)
    body = urlencode({"tier": "junior"})
    connection.request("POST", "/play/", body=body, headers={
        "Cookie": f"{cookie}; csrftoken={token}", "X-CSRFToken": token, "Host": f"{host}:{port}",
        "Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://{host}:{port}",
    })
    response = connection.getresponse()
    response.read()
    return response.status


async def wait_for_table(host: str, port: int, session: str, timeout: float) -> tuple[int | None, float]:
    """The table a player's quick-play socket on this process sends them to, and when."""
    from websockets.asyncio.client import connect

    async with connect(f"ws://{host}:{port}/ws/quickplay/", origin=f"http://{host}:{port}",
                       additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"},
                       proxy=None, open_timeout=10, ping_interval=None) as ws:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                html = await asyncio.wait_for(ws.recv(), timeout=max(0.1, end - time.monotonic()))
            except asyncio.TimeoutError:
                break
            found = re.search(r'data-goto="/tables/(\d+)/"', html)
            if found:
                return int(found.group(1)), time.monotonic()
    return None, time.monotonic()


def test_two_players_on_two_web_processes_are_seated_together(stack, make_user):
    players = [make_user(), make_user()]
    sessions = [session_for(player) for player in players]

    async def run():
        watchers = [asyncio.ensure_future(wait_for_table(*stack.addresses[i], sessions[i], FILL_AFTER + 30))
                    for i in range(2)]
        await asyncio.sleep(1.0)  # both sockets open, each on its own process
        pressed = time.monotonic()
        for i in range(2):
            assert await in_thread(press_quick_play, *stack.addresses[i], sessions[i]) == 302
        results = await asyncio.gather(*watchers)
        return pressed, results

    pressed, results = asyncio.run(run())
    (first, first_at), (second, second_at) = results
    assert first is not None and first == second, (results, stack.log_tail())
    assert max(first_at, second_at) - pressed < FILL_AFTER + 5, (max(first_at, second_at) - pressed)
    table = Table.objects.get(pk=first)
    assert (table.kind, table.tier, table.status) == ("match", "junior", "playing")
    assert {seat.user_id for seat in table.seats.all() if seat.user_id} == {p.pk for p in players}
    assert table.seats.filter(is_bot=True).count() == 2

"""Faults of real processes: a Redis killed and restarted, a daphne killed right after
a player's action. Every page that stayed connected reaches the newest committed step
within 3 s, the sender of a committed action is never told it was refused, and the
Celery worker survives the broker's loss, so tables go on within 10 s of Redis
returning.

The test starts and kills its own processes: a private Redis on a free port, two daphne
processes and a Celery worker (with beat's sweep), all on the test's PostgreSQL
database, on loopback only. PostgreSQL lane of .ci/run (markers postgres and celery).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.celery, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
STEP = re.compile(r'id="tbl-status"[^>]*?data-seq="(\d+)" data-deal="(\d+)"')
ERROR = re.compile(r'tbl-message-error[^>]*>([^<]+)<')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"process exited early ({process.returncode})"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


class Stack:
    """A private Redis, two daphne processes and a Celery worker with beat."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.redis_port = _free_port()
        self.redis: subprocess.Popen | None = None
        self.daphne: list[subprocess.Popen] = []
        self.ports: list[int] = []
        self.worker: subprocess.Popen | None = None
        db = connection.settings_dict
        self.env = dict(os.environ)
        self.env.update({
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "SECRET_KEY": settings.SECRET_KEY,  # the sessions the test makes must hold
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "GUANDAN_RESYNC_INTERVAL": "0.5",
            "GUANDAN_NEXT_DEAL_DELAY": "1",
            "DJANGO_SETTINGS_MODULE": "guandan_site.settings",
            "PYTHONUNBUFFERED": "1",
        })

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")
        return subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)

    def start_redis(self) -> None:
        self.redis = self._spawn("redis", [shutil.which("redis-server"), "--port", str(self.redis_port),
                                           "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        _wait_for_port(self.redis_port, self.redis)

    def kill_redis(self) -> None:
        self.redis.kill()
        self.redis.wait(timeout=10)

    def start(self) -> None:
        self.start_redis()
        for number in range(2):
            port = _free_port()
            self.daphne.append(self._spawn(f"daphne{number}", [str(BIN / "daphne"), "-v", "0", "-b", "127.0.0.1",
                                                                "-p", str(port), "guandan_site.asgi:application"]))
            self.ports.append(port)
        for port, process in zip(self.ports, self.daphne):
            _wait_for_port(port, process)
        self.worker = self._spawn("worker", [str(BIN / "celery"), "-A", "guandan_site", "worker", "-B",
                                             "--loglevel=INFO", "--concurrency", "1",
                                             "--schedule", str(self.logs / "beat-schedule")])

    def stop(self) -> None:
        for process in [*self.daphne, self.worker, self.redis]:
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        # Killed processes leave their backends for PostgreSQL to notice: end them, so
        # the test database can be dropped.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")

    def log_tail(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.logs.iterdir())
                         if p.suffix == ".log")


@pytest.fixture
def stack():
    logs = Path(tempfile.mkdtemp(prefix="faults-"))
    made = Stack(logs)
    made.start()
    try:
        yield made
    finally:
        made.stop()


def _session_for(user) -> str:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


class Page:
    """One browser's table socket: remembers the newest step it was shown."""

    def __init__(self, port: int, table_id: int, session_key: str):
        self.port, self.table_id, self.session_key = port, table_id, session_key
        self.ws = None
        self.step: tuple[int, int] | None = None  # (deal, seq)
        self.errors: list[str] = []
        self.reader: asyncio.Task | None = None

    async def open(self) -> Page:
        from websockets.asyncio.client import connect

        self.ws = await connect(
            f"ws://127.0.0.1:{self.port}/ws/tables/{self.table_id}/", origin=f"http://127.0.0.1:{self.port}",
            additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={self.session_key}"},
            proxy=None, open_timeout=30, ping_interval=None,
        )
        self.reader = asyncio.ensure_future(self._read())
        await self.until(lambda: self.step is not None, 10)
        return self

    async def _read(self) -> None:
        try:
            async for html in self.ws:
                found = STEP.search(html)
                if found:
                    step = (int(found.group(2)), int(found.group(1)))
                    self.step = max(self.step or step, step)
                self.errors += ERROR.findall(html)
        except Exception:
            pass

    async def send(self, message: dict) -> None:
        await self.ws.send(json.dumps(message))

    async def until(self, condition, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return True
            await asyncio.sleep(0.05)
        return condition()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()


def _newest_step(table_id: int) -> tuple[int, int]:
    from games.live.selectors import newest_steps

    return newest_steps([table_id])[table_id]


def _to_act(table_id: int) -> int:
    from games.live import selectors

    from games.models import Table

    deal = selectors.current_deal(Table.objects.get(pk=table_id))
    return selectors.deal_state(deal).turn, deal


async def _in_thread(func, *args):
    return await asyncio.get_running_loop().run_in_executor(None, func, *args)


def _play_message(table_id: int) -> tuple[int, dict]:
    from games.live import selectors
    from games.models import Table

    deal = selectors.current_deal(Table.objects.get(pk=table_id))
    state = selectors.deal_state(deal)
    seat = state.turn
    return seat, {"action": "play", "card": [min(state.hands[seat])], "deal": deal.pk, "seq": deal.seq}


def test_pages_and_tables_go_on_through_redis_and_daphne_deaths(stack, playing_table, practice_table):
    table, users = playing_table
    sessions = [_session_for(user) for user in users]
    bot_table, bot_user = practice_table(bot_speed="0.3")
    bot_session = _session_for(bot_user)

    async def run():
        # Seats 1 and 2 on the first daphne, 3 and 4 on the second.
        pages = [await Page(stack.ports[seat // 2], table.pk, sessions[seat]).open() for seat in range(4)]

        # 1. Redis dies: the channel layer cannot carry the step, the database can.
        stack.kill_redis()
        seat, message = await _in_thread(_play_message, table.pk)
        await pages[seat].send(message)
        newest = (message["deal"], message["seq"] + 1)
        for page in pages:
            assert await page.until(lambda p=page: p.step == newest, 3.0), (page.step, newest, stack.log_tail())
        assert pages[seat].errors == [], pages[seat].errors
        stack.start_redis()
        await asyncio.sleep(1.0)

        # 2. A daphne dies right after a player's action on it: the pages on the other
        # daphne reach whatever was committed within 3 s.
        seat, message = await _in_thread(_play_message, table.pk)
        doomed = seat // 2
        await pages[seat].send(message)
        await asyncio.sleep(0.015)
        os.killpg(stack.daphne[doomed].pid, signal.SIGKILL)
        stack.daphne[doomed].wait(timeout=10)
        await asyncio.sleep(0.5)  # what was committed is committed by now
        committed = await _in_thread(_newest_step, table.pk)
        for page in pages[2 - 2 * doomed: 4 - 2 * doomed]:
            assert await page.until(lambda p=page: p.step == committed, 3.0), (page.step, committed)

        # 3. The worker survives Redis's death: bots play on within 10 s of its return.
        survivor = stack.ports[1 - doomed]
        human = await Page(survivor, bot_table.pk, bot_session).open()
        await human.send({"action": "auto-on", "auto_interval": "0.3"})
        start = await _in_thread(_newest_step, bot_table.pk)
        assert await human.until(lambda: human.step is not None and human.step > start, 15), stack.log_tail()
        stack.kill_redis()
        await asyncio.sleep(3.0)
        stack.start_redis()
        back = await _in_thread(_newest_step, bot_table.pk)
        went_on = False
        end = time.monotonic() + 10
        while time.monotonic() < end and not went_on:
            await asyncio.sleep(0.5)
            went_on = (await _in_thread(_newest_step, bot_table.pk)) > back
        assert stack.worker.poll() is None, stack.log_tail()
        assert went_on, stack.log_tail()
        for page in [*pages, human]:
            await page.close()

    asyncio.run(run())

"""Real processes for fault tests: a private Redis, daphne processes on chosen loopback
addresses, a Celery worker with beat, nginx in front; and pages (table sockets) that
remember the newest step they were shown. Everything listens on loopback only and is
killed at the end. Used by the tests marked postgres and celery (their data is on the
test's PostgreSQL database, committed: ``django_db(transaction=True)``)."""

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
import time
from pathlib import Path

from django.conf import settings
from django.db import connection, connections

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# As deploy/systemd/guandan-worker.service: no gossip or mingle (workers need not know
# each other, and mingle held every reconnection up for a second).
WORKER_FLAGS = ["--without-gossip", "--without-mingle"]
STEP = re.compile(r'id="tbl-status"[^>]*?data-seq="(\d+)" data-deal="(\d+)"')
ERROR = re.compile(r'tbl-message-error[^>]*>([^<]+)<')


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for_port(host: str, port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"process exited early ({process.returncode})"
        with socket.socket() as s:
            if s.connect_ex((host, port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {host}:{port}")


class Stack:
    """The processes of one test, each in its own process group."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.redis_port = free_port()
        self.redis: subprocess.Popen | None = None
        self.daphne: list[subprocess.Popen] = []
        self.addresses: list[tuple[str, int]] = []
        self.worker: subprocess.Popen | None = None
        self.nginx: subprocess.Popen | None = None
        self.nginx_port: int | None = None
        # The test database as the test settings name it (pytest-django renames it there and
        # on the main thread's connection; a connection made on another thread may still
        # carry the configured name, whose database has no tables).
        db = settings.DATABASES["default"]
        self.env = dict(os.environ)
        self.env.update({
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "SECRET_KEY": settings.SECRET_KEY,  # the sessions the test makes must hold
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,127.0.0.2,127.0.0.3,localhost",
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
        wait_for_port("127.0.0.1", self.redis_port, self.redis)

    def kill_redis(self) -> None:
        self.redis.kill()
        self.redis.wait(timeout=10)

    def start_daphne(self, hosts: list[str]) -> None:
        for number, host in enumerate(hosts):
            port = free_port(host)
            self.daphne.append(self._spawn(f"daphne{number}", [str(BIN / "daphne"), "-v", "0", "-b", host,
                                                                "-p", str(port), "guandan_site.asgi:application"]))
            self.addresses.append((host, port))
        for (host, port), process in zip(self.addresses, self.daphne):
            wait_for_port(host, port, process)

    def kill_daphne(self, number: int) -> None:
        os.killpg(self.daphne[number].pid, signal.SIGKILL)
        self.daphne[number].wait(timeout=10)

    def start_worker(self) -> None:
        self.worker = self._spawn("worker", [str(BIN / "celery"), "-A", "guandan_site", "worker", "-B",
                                             "--loglevel=INFO", "--concurrency", "1", *WORKER_FLAGS,
                                             "--schedule", str(self.logs / "beat-schedule")])

    def kill_worker(self) -> None:
        """Kill the worker and its beat at once (no warm shutdown): whatever task it ran
        is lost uncommitted, whatever timers it held with it."""
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(timeout=10)

    def start_nginx(self) -> None:
        """nginx with the recipe's own locations and logging (deploy/nginx/) in front of
        the daphne processes (or of nothing: every request then fails with 502, logged
        all the same), on a free port of 127.0.0.1."""
        self.nginx_port = free_port()
        servers = "\n".join(f"        server {host}:{port} max_fails=1 fail_timeout=5s;"
                            for host, port in self.addresses or [("127.0.0.1", free_port())])
        (self.logs / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {self.logs}/nginx.pid;
error_log {self.logs}/nginx-error.log info;
events {{ worker_connections 256; }}
http {{
    include {ROOT}/deploy/nginx/guandan-logging.conf;
    access_log {self.logs}/nginx-access.log guandan_paths;
    client_body_temp_path {self.logs}/nginx-body;
    proxy_temp_path {self.logs}/nginx-proxy;
    fastcgi_temp_path {self.logs}/nginx-fastcgi;
    uwsgi_temp_path {self.logs}/nginx-uwsgi;
    scgi_temp_path {self.logs}/nginx-scgi;
    upstream guandan_web {{
{servers}
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}
    server {{
        listen 127.0.0.1:{self.nginx_port};
        server_tokens off;
        include {ROOT}/deploy/nginx/guandan-locations.conf;
    }}
}}
""")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.nginx = self._spawn("nginx", [nginx, "-c", str(self.logs / "nginx.conf"), "-p", str(self.logs)])
        wait_for_port("127.0.0.1", self.nginx_port, self.nginx)

    def stop(self) -> None:
        for process in [self.nginx, *self.daphne, self.worker, self.redis]:
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        # Killed processes leave their backends for PostgreSQL to notice: end them, so
        # the test database can be dropped.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        # That ends this process's own idle pooled connections too: the next test would
        # be handed dead ones (and once waited ten seconds for a live one, failing far
        # from here). Start it on a fresh pool; the connection in use goes back to the old
        # one, which closes it.
        if getattr(connections["default"], "pool", None) is not None:
            connections["default"].close_pool()

    def log_tail(self, chars: int = 3000) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-chars:]}"
                         for p in sorted(self.logs.iterdir()) if p.suffix == ".log")

    def worker_stacks(self) -> str:
        """Where the worker's processes (the consumer, its pool, beat) are right now
        (``py-spy dump``), for a test that finds the worker standing still."""
        spy = shutil.which("py-spy", path=str(BIN)) or shutil.which("py-spy")
        if self.worker is None or spy is None:
            return "(no worker or no py-spy)"
        done = subprocess.run([spy, "dump", "--subprocesses", "--pid", str(self.worker.pid)],
                              capture_output=True, text=True, timeout=60)
        return f"--- py-spy dump of the worker\n{done.stdout}{done.stderr}"


def session_for(user) -> str:
    """A logged-in session for ``user`` (its key), as a browser's cookie would carry."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


class Page:
    """One browser's table socket: remembers the newest step it was shown, and with
    ``reconnect`` opens the socket again when it closes, as the page's script does."""

    def __init__(self, host: str, port: int, table_id: int, session_key: str, *, reconnect: bool = False):
        self.host, self.port, self.table_id, self.session_key = host, port, table_id, session_key
        self.reconnect = reconnect
        self.ws = None
        self.step: tuple[int, int] | None = None  # (deal, seq)
        self.errors: list[str] = []
        self.reconnects = 0
        self.reader: asyncio.Task | None = None
        self.closing = False

    async def _connect(self):
        from websockets.asyncio.client import connect

        return await connect(
            f"ws://{self.host}:{self.port}/ws/tables/{self.table_id}/", origin=f"http://{self.host}:{self.port}",
            additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={self.session_key}"},
            proxy=None, open_timeout=10, ping_interval=None,
        )

    async def open(self) -> Page:
        self.ws = await self._connect()
        self.reader = asyncio.ensure_future(self._read())
        assert await self.until(lambda: self.step is not None, 10)
        return self

    async def _read(self) -> None:
        while True:
            try:
                async for html in self.ws:
                    found = STEP.search(html)
                    if found:
                        step = (int(found.group(2)), int(found.group(1)))
                        self.step = max(self.step or step, step)
                    self.errors += ERROR.findall(html)
            except Exception:
                pass
            if self.closing or not self.reconnect:
                return
            while not self.closing:
                await asyncio.sleep(0.2)
                try:
                    self.ws = await self._connect()
                    self.reconnects += 1
                    break
                except Exception:
                    continue

    async def send(self, message: dict) -> None:
        """Send ``message``; on a socket that closed meanwhile, once it is open again
        (the page's controls are disabled while it is offline)."""
        end = time.monotonic() + 15
        while True:
            ws = self.ws
            try:
                await ws.send(json.dumps(message))
                return
            except Exception:
                if not self.reconnect or time.monotonic() > end:
                    raise
                await self.until(lambda: self.ws is not ws, 15)

    async def until(self, condition, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return True
            await asyncio.sleep(0.05)
        return condition()

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()


def newest_step(table_id: int) -> tuple[int, int]:
    from games.live.selectors import newest_steps

    return newest_steps([table_id])[table_id]


def chosen_messages(table_id: int) -> tuple[int, list[dict]] | None:
    """(seat, messages) a player would send at the table's current step (the normal
    bot's choice through the page's fields, with the R3.5 choice when the cards read
    several ways), or None when the deal is over."""
    from games.live import selectors
    from games.live.bot_moves import choose_for_seat
    from games.live.render import play_as_options
    from games.models import Table

    deal = selectors.current_deal(Table.objects.get(pk=table_id))
    state = selectors.deal_state(deal)
    if deal.finished_at is not None or not state.to_act:
        return None
    seat = state.to_act[0]
    action = choose_for_seat(state, seat, level="normal", seed=deal.seq * 7 + seat, actor="human")
    base = {"card": list(action.cards), "deal": deal.pk, "seq": deal.seq}
    if action.kind != "play":
        return seat, [dict(base, action=action.kind)]
    options = play_as_options(state, action.cards)
    if len(options) > 1:
        return seat, [dict(base, action="play"), dict(base, action=f"play-as-{options.index(action.reading)}")]
    return seat, [dict(base, action="play")]


async def in_thread(func, *args):
    """``func(*args)`` on one of the event loop's executor threads, its database connection
    given back afterwards: a connection left open in such a thread stays checked out of
    the pool after the test (the thread outlives nothing that would close it), and enough
    of them leave the next test's fixtures waiting for a connection that never comes."""
    def run():
        try:
            return func(*args)
        finally:
            connections.close_all()

    return await asyncio.get_running_loop().run_in_executor(None, run)

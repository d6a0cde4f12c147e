"""Serve the site from a Daphne subprocess, for browser tests.

``LiveSite`` starts Daphne (channels' ``DaphneProcess``) in a separate process that opens
the test database the test run created, so a real browser can load pages and open
WebSockets while the test reads and writes the same database.

Two things make this reliable (docs/architecture.md, "Known pitfalls"):

- The process is started with the ``spawn`` method: a forked copy of a test process that
  already ran asyncio code hangs on its first database call.
- The test database must be one another process can open: a file for SQLite (settings
  give tests one), or PostgreSQL. Tests that use the site need committed data
  (``transactional_db``).

It serves the static files as production does: collected (``collectstatic``) into a
folder of its own, gzipped and named by their content (guandan_site/storage.py), so what a
browser test measures is what a player downloads, whatever a checkout's own
``staticfiles/`` holds.

The in-memory channel layer lives inside the server process, so a ``group_send`` from the
test process never reaches the server's consumers: drive such flows through the browser
(with Redis, ``REDIS_URL``, both processes share the layer).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import shutil
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

from channels.testing.live import make_application
from daphne.testing import DaphneProcess


class UseDatabase:
    """Run in the server process before it serves: point Django at ``name``, the test
    database the parent process created (picklable, for the spawn start method)."""

    def __init__(self, name: str):
        self.name = str(name)

    def __call__(self) -> None:
        from django.conf import settings

        settings.DATABASES["default"]["NAME"] = self.name


class LiveSite:
    """The site served by Daphne on 127.0.0.1 and a free port, in a spawned process.

    >>> site = LiveSite(database_name=connection.settings_dict["NAME"])  # doctest: +SKIP
    >>> site.start(); site.url  # doctest: +SKIP
    'http://127.0.0.1:40123'
    >>> site.stop()  # doctest: +SKIP
    """

    host = "127.0.0.1"

    def __init__(self, *, database_name: str, startup_timeout: float = 60.0):
        self.database_name = database_name
        self.startup_timeout = startup_timeout
        self.process: DaphneProcess | None = None
        self.port: int | None = None
        self.static_root: str | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def collect_static(self) -> None:
        """``collectstatic`` into a fresh folder, which the server process serves from
        (``GUANDAN_STATIC_ROOT``, read by the settings it imports when spawned)."""
        self.static_root = tempfile.mkdtemp(prefix="guandan-static-")
        manage = Path(__file__).resolve().parents[1] / "manage.py"
        subprocess.run([sys.executable, str(manage), "collectstatic", "--noinput", "--verbosity", "0"],
                       env=dict(os.environ, GUANDAN_STATIC_ROOT=self.static_root), check=True, timeout=120)
        os.environ["GUANDAN_STATIC_ROOT"] = self.static_root

    def start(self) -> LiveSite:
        self.collect_static()
        # DaphneProcess makes its Value, Event and Queue with the default context, so the
        # default itself must be spawn before it is built.
        multiprocessing.set_start_method("spawn", force=True)
        self.process = DaphneProcess(
            host=self.host,
            get_application=partial(make_application, static_wrapper=None),
            setup=UseDatabase(self.database_name),
        )
        self.process.start()
        if not self.process.ready.wait(self.startup_timeout):
            error = self._startup_error()
            self.stop()
            raise RuntimeError(f"Daphne did not start within {self.startup_timeout} s" + (f":\n{error}" if error else ""))
        self.port = self.process.port.value
        return self

    def _startup_error(self) -> str:
        try:
            _exception, trace = self.process.errors.get(timeout=1)
        except queue.Empty:
            return ""
        return trace

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.join(timeout=10)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(timeout=5)
            self.process = None
        if self.static_root is not None:
            os.environ.pop("GUANDAN_STATIC_ROOT", None)
            shutil.rmtree(self.static_root, ignore_errors=True)
            self.static_root = None

    def __enter__(self) -> LiveSite:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

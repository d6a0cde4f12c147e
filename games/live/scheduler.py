"""Run a table's timers later: bot turns, think-time timeouts, the next deal, the sweep.

Every timer names a task by its string (``"table_turn"`` is the Celery task
``games.table_turn``) and gives its arguments; the task bodies (``games.live.tasks``)
are idempotent (keyed by table, deal and sequence number), so a timer that fires late,
twice, or after a restart does nothing harmful. The scheduler never imports the tasks:
they import the door, which schedules, so the tasks module registers its functions here
(``register``) when it is imported (by ``GamesConfig.ready`` in every process, and by
Celery's autodiscovery in a worker).

Two ways to run, same task functions (docs/architecture.md):

- ``GUANDAN_SCHEDULER = "celery"`` (``REDIS_URL`` set): ``send_task`` by name with a
  countdown, picked up by a Celery worker; Celery beat runs the sweep.
- ``"inprocess"`` (the embedded default): the timer lives on the server's own event loop
  (the loop the in-memory channel layer lives on, so broadcasts reach the pages). The
  ASGI application binds that loop on its first call (``bind_loop``) and starts a periodic
  sweep on it, which also re-arms what a restart dropped.

``schedule`` is called from synchronous code after commit; it never blocks on I/O in
the event loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Callable

from asgiref.sync import sync_to_async
from celery import current_app
from django.conf import settings

log = logging.getLogger(__name__)


_loop: asyncio.AbstractEventLoop | None = None
_sweeper: asyncio.Task | None = None
# Strong references: the event loop keeps only weak ones to running tasks.
_running: set[asyncio.Task] = set()
_lock = threading.Lock()


TASK_PREFIX = "games."  # Celery's name of task "table_turn" is "games.table_turn"
_registry: dict[str, Callable] = {}


def register(func: Callable) -> Callable:
    """Make ``func`` runnable by ``schedule(func.__name__, ...)`` in this process."""
    _registry[func.__name__] = func
    return func


def _task(name: str) -> Callable:
    try:
        return _registry[name]
    except KeyError:
        raise LookupError(f"no task {name!r} is registered (is games.live.tasks imported?)") from None


BACKGROUND_QUEUE = "analysis"  # Celery queue of long work (settings.CELERY_TASK_ROUTES)


def schedule(name: str, *args, delay: float, background: bool = False) -> None:
    """Run task ``name`` with ``args`` after ``delay`` seconds.

    ``background`` marks long work (a deal's analysis, seconds of CPU): in Celery it goes
    to its own queue (``BACKGROUND_QUEUE``), served by its own worker, so table turns never
    wait behind it; in process it runs on a thread of its own rather than on the one
    thread that runs every other task and the consumers' database calls."""
    delay = max(0.0, float(delay))
    if settings.GUANDAN_SCHEDULER == "celery":
        try:
            options = {"queue": BACKGROUND_QUEUE} if background else {}
            current_app.send_task(TASK_PREFIX + name, args=args, countdown=delay, **options)
        except Exception:
            # The broker is unreachable: the change this timer follows is committed, and
            # the sweep re-arms overdue timers once the broker is back.
            log.exception("timer %s%r could not be sent; the sweep will re-arm it", name, args)
        return
    loop = _loop
    if loop is None or loop.is_closed():
        # No server loop (a management command, a plain test): a daemon thread runs the
        # task function instead. The periodic sweep covers a process that exits first.
        timer = threading.Timer(delay, _run_sync, args=(name, args))
        timer.daemon = True
        timer.start()
        return
    # A fresh context: on_commit may run inside database_sync_to_async, and inheriting
    # its context makes asgiref think the single-thread executor would deadlock.
    loop.call_soon_threadsafe(_start, name, args, delay, background, context=contextvars.Context())


def _run_sync(name: str, args: tuple) -> None:
    try:
        _task(name)(*args)
    except Exception:  # a timer must never take the process down
        log.exception("task %s%r failed", name, args)


def _start(name: str, args: tuple, delay: float, background: bool = False) -> None:
    loop = asyncio.get_running_loop()
    loop.call_later(delay, _spawn, name, args, background)


def _spawn(name: str, args: tuple, background: bool = False) -> None:
    task = asyncio.ensure_future(_run_async(name, args, background))
    _running.add(task)
    task.add_done_callback(_running.discard)


async def _run_async(name: str, args: tuple, background: bool = False, kwargs: dict | None = None) -> None:
    try:
        # A background task's own thread still sends to the pages through this loop:
        # async_to_sync inside it runs the coroutine here (asgiref).
        await sync_to_async(_task(name), thread_sensitive=not background)(*args, **(kwargs or {}))
    except Exception:
        log.exception("task %s%r failed", name, args)


def bind_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Use ``loop`` for in-process timers (called by the ASGI app on every connection;
    cheap after the first) and start the periodic sweep on it."""
    global _loop, _sweeper
    if settings.GUANDAN_SCHEDULER != "inprocess" or loop is _loop:
        return
    with _lock:
        if loop is _loop:
            return
        _loop = loop
        _sweeper = loop.create_task(_sweep_forever())


def periodic_tasks() -> list[tuple[str, float]]:
    """(task name, seconds) of every periodic job: the entries of Celery beat's schedule
    (``CELERY_BEAT_SCHEDULE``) for this site's tasks, so the embedded mode runs exactly
    what beat runs in production (the sweep of overdue turns, the tournaments' steps)."""
    jobs = []
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        task = entry["task"]
        if task.startswith(TASK_PREFIX):
            jobs.append((task[len(TASK_PREFIX):], float(entry["schedule"])))
    return jobs


# The first sweep after the server starts: the restart lost every timer this process held,
# so each table not due yet gets its timer back too (``door.sweep``'s ``rearm``).
FIRST_RUN = {"sweep": {"rearm": True}}


async def _sweep_forever() -> None:
    """Every periodic job on its own interval, each run once right away (whatever a
    restart left overdue moves at once, and the sweep starts again every table's timer)."""
    loop = asyncio.get_running_loop()
    due = {name: loop.time() for name, _every in periodic_tasks()}
    every = dict(periodic_tasks())
    first = dict(FIRST_RUN)
    while True:
        for name in sorted(due, key=due.get):
            if due[name] <= loop.time():
                await _run_async(name, (), kwargs=first.pop(name, None))
                due[name] = loop.time() + every[name]
        await asyncio.sleep(max(0.05, min(due.values()) - loop.time()))


class SchedulerLoopMiddleware:
    """ASGI middleware: binds the server's event loop for in-process timers."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        bind_loop(asyncio.get_running_loop())
        return await self.app(scope, receive, send)

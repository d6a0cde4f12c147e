"""Tell live pages that a table changed, once the change is committed.

Group names: ``lobby`` for every lobby page, ``table-<id>`` for the pages of one table.

While a deal is on, a table's event carries everything its pages draw from (the table's
``Scene``: the deal's state, the seats' names and flags) and the public fragments,
rendered once for every page from the spectator's view (docs/architecture.md, "The live
table"). Each consumer then renders only its own viewer's part, without a query. The event
travels between server processes only (the channel layer); what reaches a browser is the
HTML its consumer renders from its own seat's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils import translation

from games.live.render import render_public, scene_for
from games.models import Table

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    """The channel group of one table's pages."""
    return f"table-{table_id}"


def send_table_changed(table_id: int, scene=None) -> None:
    """Send the change events now (call after commit). ``scene`` is the table's scene as
    committed (``table_render.Scene``); without one it is read from the database."""
    layer = get_channel_layer()
    if layer is None:
        return
    event = {"type": "table.changed", "table_id": table_id}
    event.update(_table_payload(table_id, scene))
    if scene is None or scene.seq == 0 or scene.state.is_over:
        # The lobby shows seats and status, which a move within a deal never changes.
        _group_send(layer, LOBBY_GROUP, {"type": "lobby.changed", "table_id": table_id})
    _group_send(layer, table_group(table_id), event)


def _table_payload(table_id: int, scene) -> dict:
    if scene is None:
        table = Table.objects.filter(pk=table_id).first()
        scene = scene_for(table) if table is not None else None
        if scene is None:
            return {}
    with translation.override(settings.LANGUAGE_CODE):
        public = render_public(scene)
    return {"public": public, "language": settings.LANGUAGE_CODE, "seq": scene.seq, "deal": scene.deal_id,
            "scene": scene.event_text()}


class _Announcement:
    """An on-commit callback that sends one table's change; one per table and transaction
    (``announce_table_changed`` updates a pending one rather than adding another)."""

    def __init__(self, table_id: int, scene):
        self.table_id = table_id
        self.scene = scene

    def __call__(self) -> None:
        # The change is committed whatever happens here: a failed send (the channel
        # layer's Redis down, say) must not reach whoever made the change as an error.
        # Pages that missed the event catch up from the database (the table consumer's
        # resync, docs/architecture.md "How a step reaches every page").
        try:
            if self.scene is None:
                send_table_changed(self.table_id)
            else:
                send_table_changed(self.table_id, self.scene)
        except Exception:
            log.exception("table %s: the change event could not be sent; pages will resync", self.table_id)


def announce_table_changed(table_id: int, scene=None) -> None:
    """Send the change events when the current transaction commits (never before the data
    is durable), or at once outside a transaction.

    Several changes to one table in one transaction make one announcement, with the last
    scene given: every page renders each committed step once.
    """
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        # Only an announcement made at this same level of ``atomic`` is merged, so one that
        # a rolled-back savepoint discards can never take this one with it.
        level = set(connection.savepoint_ids)
        for savepoints, callback, _robust in connection.run_on_commit:
            if isinstance(callback, _Announcement) and callback.table_id == table_id and savepoints == level:
                callback.scene = scene
                return
    transaction.on_commit(_Announcement(table_id, scene))


# ----------------------------------------------------------------------------------------
# Sending from synchronous code

_loop: asyncio.AbstractEventLoop | None = None
_loop_pid: int | None = None  # a forked child has the loop but not its thread
_loop_lock = threading.Lock()

# The event loop a database thread works for (``sends_on``), per thread.
_serving = threading.local()
# Sends handed to a server's loop and not done yet (the loop keeps only weak references).
_in_flight: set = set()
_in_flight_lock = threading.Lock()


@contextlib.contextmanager
def sends_on(loop: asyncio.AbstractEventLoop):
    """Within: this thread's group sends are handed to ``loop``, the running event loop of
    the server process that this thread does database work for (``games.live.consumer``'s
    ``_in_thread``), and the thread goes on without waiting for them.

    After a step's commit the door's thread used to cross back to the loop and wait there
    for the publish (``async_to_sync``): a second crossing between threads each step, with
    asgiref's context copied both ways, and the thread and its database connection held
    until Redis had answered. Handed over, the sends of one thread reach the loop in the
    order they were made; one that fails is logged, and the pages catch up from the
    database as after any lost event (docs/architecture.md, "How a step reaches every
    page")."""
    previous = getattr(_serving, "loop", None)
    _serving.loop = loop
    try:
        yield
    finally:
        _serving.loop = previous


def use_sender_loop() -> None:
    """Send from a long-lived event loop of this process's own (started once).

    For processes without an event loop of their own, such as a Celery worker: without it
    every ``async_to_sync`` call builds a new loop, and the Redis channel layer opens new
    connections for each one (its pools are per loop).
    """
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is not None and _loop_pid == os.getpid():
            return
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="channel-layer-sender", daemon=True).start()
        _loop, _loop_pid = loop, os.getpid()


def send_to_group(group: str, message: dict) -> None:
    """Send ``message`` to channel group ``group`` now, from synchronous code (call after
    commit); nothing happens without a channel layer."""
    layer = get_channel_layer()
    if layer is not None:
        _group_send(layer, group, message)


def _group_send(layer, group: str, message: dict) -> None:
    serving = getattr(_serving, "loop", None)
    if serving is not None and not serving.is_closed():
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), serving)
        with _in_flight_lock:
            _in_flight.add(future)
        future.add_done_callback(functools.partial(_sent, group))
        return
    loop = _loop
    if loop is None or _loop_pid != os.getpid():
        async_to_sync(layer.group_send)(group, message)
    else:
        asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop).result(timeout=30)


def _sent(group: str, future) -> None:
    with _in_flight_lock:
        _in_flight.discard(future)
    if not future.cancelled() and future.exception() is not None:
        log.error("group %s: an event could not be sent; its pages will resync", group, exc_info=future.exception())

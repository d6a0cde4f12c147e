"""The quick-play socket (``ws/quickplay/``) of a waiting player's pages (R10.9).

On connect it sends the player's panel (``#qp-panel``; ``?view=bar``: the slim bar other
pages show, ``#qp-bar``) as it is; again whenever the player's place changes (joined,
partnered, seated, left: the ``quickplay-<user>`` group); and each tier's waiting count
(``#qp-count-<tier>``) when any queue changes, drawn from the counts the event carries
(no query). While the player waits, it tells the queue every few seconds that a page is
open (``services.seen``): a player with no page open for ``GUANDAN_QUICKPLAY_PRESENCE``
seconds has left (R10.9). Once seated, the panel carries the table's address and the
page goes there by itself (static/quickplay/quickplay.js). Anything the page sends is
ignored.
"""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from accounts import career
from games.quickplay import selectors, services
from games.quickplay.models import QueueEntry
from games.tables.consumers import SessionBound, viewer_language

log = logging.getLogger(__name__)

NOT_SIGNED_IN = 4403


def render_panel(state: dict, view: str, language: str) -> str:
    template = "quickplay/_bar.html" if view == "bar" else "quickplay/_panel.html"
    with translation.override(language):
        return render_to_string(template, {"qp": state, "oob": True})


def render_counts(counts: dict[str, int], language: str) -> str:
    with translation.override(language):
        return "".join(
            render_to_string("quickplay/_count.html", {"tier": tier, "count": counts.get(tier, 0), "oob": True})
            for tier in career.TIERS
        )


class QuickPlayConsumer(SessionBound, AsyncWebsocketConsumer):
    groups = [services.COUNTS_GROUP]

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_SIGNED_IN)
            return
        self.user_id = user.pk
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.view = "bar" if query.get("view") == ["bar"] else "panel"
        self.language = viewer_language(self.scope)
        self.heartbeat: asyncio.Task | None = None
        await self.join_user_group()
        self.player_group = services.user_group(self.user_id)
        await self.channel_layer.group_add(self.player_group, self.channel_name)
        await self.accept()
        await self.refresh()

    async def disconnect(self, code):
        if getattr(self, "heartbeat", None) is not None:
            self.heartbeat.cancel()
        if hasattr(self, "player_group"):
            await self.channel_layer.group_discard(self.player_group, self.channel_name)
        await self.leave_user_group()

    async def receive(self, text_data=None, bytes_data=None):
        return  # the page has nothing to say here: joining and leaving are forms

    async def refresh(self):
        state = await database_sync_to_async(selectors.state_of)(self.scope["user"])
        await self.send(text_data=render_panel(state, self.view, self.language))
        waiting = state["entry"] is not None
        if waiting and self.heartbeat is None:
            self.heartbeat = asyncio.ensure_future(self._keep_place())
        elif not waiting and self.heartbeat is not None:
            self.heartbeat.cancel()
            self.heartbeat = None

    async def _keep_place(self):
        while True:
            await asyncio.sleep(settings.GUANDAN_QUICKPLAY_HEARTBEAT)
            try:
                status = await database_sync_to_async(services.seen)(user_id=self.user_id)
            except Exception:  # the database is away for a moment: try again next beat
                log.exception("quick play: could not keep user %s's place", self.user_id)
                continue
            if status != QueueEntry.Status.WAITING:
                # Seated or gone (a change event may have been lost): draw what is.
                self.heartbeat = None
                await self.refresh()
                return

    async def quickplay_changed(self, event):
        await self.refresh()

    async def quickplay_counts(self, event):
        counts = event.get("counts") or {}
        await self.send(text_data=render_counts(counts, self.language))

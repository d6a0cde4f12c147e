"""The tournament page's socket (``ws/tournaments/<id>/``): sends ``#trn-live`` drawn for
its viewer on connect and after every change of the tournament (a round paired, started
or ended, a table's board finished), at most once a second; and, for an entrant, says
every few seconds that the player is here (present when a round starts, R13.5).

It draws what the page draws (``present``): never a board nor a result before its round
has ended (R13.6). It accepts no actions."""

from __future__ import annotations

import asyncio
import logging
from importlib import import_module

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from games.tables.consumers import SessionBound, viewer_language

from . import present, selectors, services
from .models import Registration, Tournament

log = logging.getLogger(__name__)

# At most one drawing of the page's live part per socket in this many seconds: a burst
# of boards finished at many tables costs one.
DRAW_INTERVAL = 1.0


class TournamentConsumer(SessionBound, AsyncWebsocketConsumer):
    async def connect(self):
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.language = viewer_language(self.scope)
        self.pending: asyncio.Task | None = None
        self.presence: asyncio.Task | None = None
        if not await database_sync_to_async(self._may_see)():
            await self.close(code=4404)
            return
        self.group = services.tournament_group(self.tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_user_group()
        await self.accept()
        if self.registered:
            self.presence = asyncio.ensure_future(self._keep_present())
        await self.send_live()

    async def disconnect(self, code):
        for task in (self.pending, self.presence):
            if task is not None:
                task.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_user_group()

    async def receive(self, text_data=None, bytes_data=None):
        """Nothing to act on here: any message only asks for the page afresh."""
        await self.send_live()

    async def tournament_changed(self, event):
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self._draw_soon())

    async def _draw_soon(self):
        await asyncio.sleep(DRAW_INTERVAL)
        try:
            await self.send_live()
        except Exception:
            log.exception("tournament %s: the page could not be drawn", self.tournament_id)

    async def _keep_present(self):
        while True:
            try:
                await database_sync_to_async(services.seen)(tournament_id=self.tournament_id, user_id=self.user.pk)
            except Exception:  # the database is away: the next beat tries again
                log.warning("tournament %s: presence not recorded", self.tournament_id, exc_info=True)
            await asyncio.sleep(selectors.PRESENCE_EVERY)

    async def send_live(self):
        html = await database_sync_to_async(self.render)()
        if html:
            await self.send(text_data=html)

    # ---- in a worker thread --------------------------------------------------------

    def _absolute(self, path: str) -> str:
        """``path`` as the page's own address would give it (the partner link to send)."""
        headers = dict(self.scope.get("headers", ()))
        host = headers.get(b"host", b"").decode("latin-1")
        secure = self.scope.get("scheme") == "wss" or headers.get(b"x-forwarded-proto") == b"https"
        return f"{'https' if secure else 'http'}://{host}{path}" if host else path

    def _invited(self) -> set[int]:
        session = self.scope.get("session")
        if session is None or session.session_key is None:
            return set()
        return invitations_of(session.session_key)

    def _may_see(self) -> bool:
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        tournament = Tournament.objects.filter(pk=self.tournament_id).first()
        self.registered = self.user is not None and Registration.objects.filter(
            tournament_id=self.tournament_id, user=self.user).exists()
        return tournament is not None and selectors.may_see_tournament(tournament, self.user, self._invited())

    def render(self) -> str:
        tournament = Tournament.objects.filter(pk=self.tournament_id).first()
        if tournament is None:
            return ""
        with translation.override(self.language):
            context = present.live_context(tournament, self.user, invited=self.tournament_id in self._invited(),
                                           request_url=self._absolute)
            return render_to_string("tournaments/_live.html", context)


def invitations_of(session_key: str) -> set[int]:
    """The private tournaments this session opened an invitation to, read afresh."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    return selectors.invitations(store)

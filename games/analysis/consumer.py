"""The analysis socket of a replay page: the progress bar of the deal's analysis.

``ws/analysis/deals/<deal id>/``: joins the deal's analysis group
(``services.analysis_group``), sends the status panel at once (a page that reconnects
catches up) and again on every progress event the running analysis sends, as an htmx
out-of-band fragment (``#analysis-status``). When the analysis is done the fragment says
so and the page (static/replays/replay.js) reloads to show the verdicts.

It carries no card: only how many decisions are judged, of a finished deal. Whoever may
see the deal's match may open it (friend tables stay private, R10.3); others are refused
at the handshake. Anything the page sends is ignored.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import translation

from games.analysis import present
from games.analysis.services import analysis_group
from games.models import Deal, DealAnalysis
from games.tables import selectors as table_selectors
from games.tables.consumers import viewer_language
from games.tables.selectors import invitations


class AnalysisConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.deal_id = int(self.scope["url_route"]["kwargs"]["deal_id"])
        self.language = viewer_language(self.scope)
        if not await database_sync_to_async(self._may_see)():
            await self.close()
            return
        self.group = analysis_group(self.deal_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=await database_sync_to_async(self._render)())

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        return  # the page has nothing to say here

    async def analysis_progress(self, event):
        if event.get("status") in (DealAnalysis.Status.DONE, DealAnalysis.Status.FAILED):
            html = await database_sync_to_async(self._render)()  # the stored row is the truth
        else:
            html = self._draw(event["status"], event.get("done", 0), event.get("total", 0))
        await self.send(text_data=html)

    def _may_see(self) -> bool:
        deal = Deal.objects.select_related("match__table").filter(pk=self.deal_id).first()
        if deal is None or not deal.is_finished:
            return False
        session = self.scope.get("session")
        invited = invitations(session).keys() if session is not None and session.session_key else ()
        user = self.scope.get("user")
        return table_selectors.may_see_match(deal.match, table_selectors.viewer_for(user, invited_table_ids=invited))

    def _render(self) -> str:
        analysis = DealAnalysis.objects.filter(deal_id=self.deal_id).first()
        with translation.override(self.language):
            status = present.status_of(analysis)
        return self._fragment(status)

    def _draw(self, status: str, done: int, total: int) -> str:
        analysis = DealAnalysis(deal_id=self.deal_id, status=status, done=done, total=total, version=0)
        with translation.override(self.language):
            return self._fragment(present.status_of(analysis))

    def _fragment(self, status: dict) -> str:
        with translation.override(self.language):
            return render_to_string("analysis/_status.html", {"status": status, "oob": True})

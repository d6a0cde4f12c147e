"""WebSocket consumers: the lobby's live list of tables.

A consumer never forwards a payload from the group: an event only says that a table
changed, and each consumer renders the lobby fragment for its own viewer (friend tables and
the buttons differ per person), sending it as one element with a stable id that the htmx ws
extension swaps in.
"""

import logging
from importlib import import_module

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.template.loader import render_to_string
from django.utils import translation

from games.live.broadcast import LOBBY_GROUP
from games.tables import selectors
from games.tables.selectors import invitations

log = logging.getLogger(__name__)

# Close code of a socket whose session ended (logout): the page reconnects as whoever
# the browser is now.
SESSION_ENDED = 4401


def user_group(user_id: int) -> str:
    """The channel group of every socket a signed-in user has open, in any process."""
    return f"user-{user_id}"


@receiver(user_logged_out, dispatch_uid="games.end_sockets_on_logout")
def end_sockets_on_logout(sender, request, user, **kwargs):
    """Logging out ends the sockets that session opened (lobby and tables), so none of
    them keeps acting for the user. The user's other browsers keep theirs."""
    session = getattr(request, "session", None)
    if user is None or session is None or not session.session_key:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user.pk), {"type": "session.ended", "session": session.session_key})
    except Exception:  # the layer is away: the logout itself must still happen
        log.exception("could not end the sockets of user %s", user.pk)


class SessionBound:
    """A consumer mixin: joins its user's group, and closes when the session that
    opened it logs out (``end_sockets_on_logout``)."""

    async def join_user_group(self):
        user = self.scope.get("user")
        session = self.scope.get("session")
        self.session_key = session.session_key if session is not None else None
        self.user_group = user_group(user.pk) if user is not None and user.is_authenticated else None
        if self.user_group is not None:
            await self.channel_layer.group_add(self.user_group, self.channel_name)

    async def leave_user_group(self):
        if getattr(self, "user_group", None) is not None:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def session_ended(self, event):
        if event.get("session") == self.session_key:
            await self.close(code=SESSION_ENDED)


def viewer_language(scope) -> str:
    """The viewer's language: the language cookie when it names a site language."""
    cookies = scope.get("cookies", {})
    wanted = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    codes = {code for code, _name in settings.LANGUAGES}
    return wanted if wanted in codes else settings.LANGUAGE_CODE


class LobbyConsumer(SessionBound, AsyncWebsocketConsumer):
    """Joins the ``lobby`` group; sends ``#lobby-tables`` on connect (so a reconnecting
    page catches up) and again after every table change."""

    groups = [LOBBY_GROUP]

    async def connect(self):
        await self.join_user_group()
        await self.accept()
        await self.send_lobby()

    async def disconnect(self, code):
        await self.leave_user_group()

    async def lobby_changed(self, event):
        await self.send_lobby()

    async def send_lobby(self):
        await self.send(text_data=await database_sync_to_async(self.render_lobby)())

    def render_lobby(self) -> str:
        user = self.scope.get("user")
        viewer = selectors.viewer_for(user, invited_table_ids=self._invitations().keys())
        with translation.override(viewer_language(self.scope)):
            return render_to_string("tables/_lobby_tables.html", {"lobby": selectors.lobby_for(viewer), "user": user})

    def _invitations(self) -> dict[str, str]:
        # Read the session afresh: the player may have opened an invitation link in another
        # tab since this socket connected.
        session = self.scope.get("session")
        if session is None or session.session_key is None:
            return {}
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session.session_key)
        return invitations(store)

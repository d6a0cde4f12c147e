"""WebSocket consumers: the lobby's live list of tables.

A consumer never forwards a payload from the group: an event only says that a table
changed, and each consumer renders the lobby fragment for its own viewer (friend tables and
the buttons differ per person), sending it as one element with a stable id that the htmx ws
extension swaps in.
"""

from importlib import import_module

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from games.live.broadcast import LOBBY_GROUP
from games.tables import selectors
from games.tables.selectors import invitations


def viewer_language(scope) -> str:
    """The viewer's language, chosen as the pages choose it (``LocaleMiddleware``): the
    language cookie (which a signed-in player's profile keeps set, accounts/middleware.py),
    else the browser's Accept-Language, else the site's default. Variants fall back as on
    the pages (zh-TW and zh-Hant to zh-hans)."""
    cookies = scope.get("cookies", {})
    wanted = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    chosen = supported_language(wanted)
    if chosen:
        return chosen
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            for code, _quality in translation.trans_real.parse_accept_lang_header(value.decode("latin-1")):
                chosen = supported_language(code) if code != "*" else ""
                if chosen:
                    return chosen
            break
    return settings.LANGUAGE_CODE


def supported_language(code) -> str:
    """The site language ``code`` stands for ("" when none): ``zh-TW`` gives ``zh-hans``."""
    if not isinstance(code, str) or not code or len(code) > 20:
        return ""
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return ""


class LobbyConsumer(AsyncWebsocketConsumer):
    """Joins the ``lobby`` group; sends ``#lobby-tables`` on connect (so a reconnecting
    page catches up) and again after every table change."""

    groups = [LOBBY_GROUP]

    async def connect(self):
        await self.accept()
        await self.send_lobby()

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

"""WebSocket consumers: the lobby's live list of tables.

A consumer never forwards a payload from the group: an event only says that a table
changed, and each consumer renders the lobby fragment for its own viewer (friend tables and
the buttons differ per person), sending it as one element with a stable id that the htmx ws
extension swaps in.
"""

import asyncio
import json
import logging
import weakref
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

from accounts.deletion import account_deleted
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


@receiver(account_deleted, dispatch_uid="games.end_sockets_on_account_deletion")
def end_sockets_on_account_deletion(sender, user_id, **kwargs):
    """A deleted account's sockets close, in every browser it was signed in with."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": "account.deleted"})
    except Exception:  # the layer is away: the sockets' next message finds nobody signed in
        log.exception("could not end the sockets of deleted user %s", user_id)


class SessionBound:
    """A consumer mixin: joins its user's group, and closes when the session that
    opened it logs out (``end_sockets_on_logout``) or the account is deleted."""

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

    async def account_deleted(self, event):
        await self.close(code=SESSION_ENDED)


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


# At most one lobby render pass per process in this many seconds: a burst of table changes
# (or of guests starting practice tables) costs one pass, not one per change per page.
LOBBY_INTERVAL = 1.0
# A shared anonymous fragment is reused on connect for this long at most, even when no
# change was heard (a process hears changes only while it has lobby pages).
SHARED_FOR = 30.0


class _LobbyHub:
    """The lobby pages of one process (one event loop).

    Change events only mark the lobby dirty; one pass per ``LOBBY_INTERVAL`` then sends
    every page the lobby as it is. Anonymous viewers without invitations all see the
    same fragment, drawn once per pass and language (and reused on connect until the
    next change): 200 anonymous sockets cost one render, not 200.
    """

    def __init__(self, loop):
        self.loop = loop
        self.pages: set[LobbyConsumer] = set()
        self.version = 0  # changes heard
        self.shared: dict[str, tuple[int, float, str]] = {}  # language -> (version, when, html)
        self.timer: asyncio.TimerHandle | None = None
        self.last_pass = 0.0
        self.tasks: set[asyncio.Task] = set()

    def join(self, page):
        self.pages.add(page)

    def leave(self, page):
        self.pages.discard(page)
        if not self.pages:
            self.shared.clear()  # no page hears changes any more

    def changed(self):
        self.version += 1
        if self.timer is None:
            delay = max(0.0, self.last_pass + LOBBY_INTERVAL - self.loop.time())
            self.timer = self.loop.call_later(delay, self._start_pass)

    def _start_pass(self):
        task = self.loop.create_task(self.send_all())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def send_all(self):
        self.timer = None
        self.last_pass = self.loop.time()
        fresh: dict[str, str] = {}
        for page in list(self.pages):
            try:
                await page.send_lobby(fresh)
            except Exception:  # one page's failure must not stop the others' updates
                log.exception("lobby update failed for one page")

    async def shared_html(self, language: str, fresh: dict[str, str] | None) -> str:
        if fresh is not None and language in fresh:
            return fresh[language]
        cached = self.shared.get(language)
        if fresh is None and cached is not None and cached[0] == self.version \
                and self.loop.time() - cached[1] < SHARED_FOR:
            return cached[2]
        version = self.version
        html = await database_sync_to_async(render_lobby_for)(None, (), language)
        self.shared[language] = (version, self.loop.time(), html)
        if fresh is not None:
            fresh[language] = html
        return html


_hubs: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LobbyHub]" = weakref.WeakKeyDictionary()


def lobby_hub() -> _LobbyHub:
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = _LobbyHub(loop)
    return hub


def render_lobby_for(user, invited, language: str) -> str:
    viewer = selectors.viewer_for(user, invited_table_ids=invited)
    with translation.override(language):
        return render_to_string("tables/_lobby_tables.html", {"lobby": selectors.lobby_for(viewer), "user": user})


class LobbyConsumer(SessionBound, AsyncWebsocketConsumer):
    """Joins the ``lobby`` group; sends ``#lobby-tables`` on connect (so a reconnecting
    page catches up) and after table changes, at most once per ``LOBBY_INTERVAL``
    (``_LobbyHub``)."""

    groups = [LOBBY_GROUP]

    async def connect(self):
        await self.join_user_group()
        self.language = viewer_language(self.scope)
        self.hub = lobby_hub()
        self.hub.join(self)
        await self.accept()
        await self.send_lobby()

    async def disconnect(self, code):
        self.hub.leave(self)
        await self.leave_user_group()

    async def lobby_changed(self, event):
        self.hub.changed()

    async def receive(self, text_data=None, bytes_data=None):
        """The only message a lobby page sends: the header's switcher changed the page's
        language (static/site/language.js). The tables are sent again in it at once,
        instead of at the next change or reload. Anything else is ignored."""
        if text_data is None or len(text_data) > 200:
            return
        try:
            data = json.loads(text_data)
        except ValueError:
            return
        if not isinstance(data, dict) or data.get("action") != "language":
            return
        language = supported_language(data.get("language"))
        if language and language != self.language:
            self.language = language
            await self.send_lobby()

    async def send_lobby(self, fresh: dict[str, str] | None = None):
        """Send the lobby as it is now; ``fresh`` holds the shared anonymous fragments
        drawn in the current pass."""
        user = self.scope.get("user")
        session = self.scope.get("session")
        if (user is None or not user.is_authenticated) and (session is None or session.session_key is None):
            html = await self.hub.shared_html(self.language, fresh)  # no session, so no invitations
        else:
            html = await database_sync_to_async(self.render_lobby)()
            if html is None:
                html = await self.hub.shared_html(self.language, fresh)
        await self.send(text_data=html)

    def render_lobby(self) -> str | None:
        """This viewer's lobby; None when it is the shared anonymous one."""
        user = self.scope.get("user")
        invited = self._invitations()
        if (user is None or not user.is_authenticated) and not invited:
            return None
        return render_lobby_for(user, invited.keys(), self.language)

    def _invitations(self) -> dict[str, str]:
        # Read the session afresh: the player may have opened an invitation link in another
        # tab since this socket connected.
        session = self.scope.get("session")
        if session is None or session.session_key is None:
            return {}
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session.session_key)
        return invitations(store)

"""ASGI entry point: HTTP goes to Django, WebSockets to the Channels consumers.

WebSocket connections must come from an allowed host (``AllowedHostsOriginValidator``) and
carry the Django session and user (``AuthMiddlewareStack``), so a consumer knows who it
renders for.

The embedded mode's scheduler (bot turns, timeouts, the sweep) starts with the server,
not with its first request: on the ASGI lifespan's startup where the server speaks it
(uvicorn, hypercorn), and under Daphne, which does not, as soon as its reactor runs.
"""

import asyncio
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from guandan_site import websocket_close_reason, websocket_compression  # noqa: E402
from guandan_site.memory import freeze_startup_objects  # noqa: E402

# Daphne imports this module before it builds its WebSocket factory: switch on
# permessage-deflate now (guandan_site/websocket_compression.py), and the reasons of the
# close frames the site sends (guandan_site/websocket_close_reason.py).
if settings.GUANDAN_WS_COMPRESSION:
    websocket_compression.enable()
websocket_close_reason.enable()

from games.live import scheduler  # noqa: E402
from games.live.scheduler import SchedulerLoopMiddleware  # noqa: E402
from games.routing import bot_websocket_urlpatterns, websocket_urlpatterns  # noqa: E402


class Lifespan:
    """ASGI middleware: answers the lifespan protocol, binding the server's event loop
    for the embedded scheduler at startup (which starts the periodic sweep at once)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "lifespan":
            return await self.app(scope, receive, send)
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                scheduler.bind_loop(asyncio.get_running_loop())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def start_with_daphne() -> None:
    """Under Daphne (which has no lifespan), bind its event loop as soon as its reactor
    runs: Daphne installs Twisted's asyncio reactor before it loads this module."""
    if "daphne.server" not in sys.modules:
        return
    from twisted.internet import reactor

    def bind():
        scheduler.bind_loop(asyncio.get_running_loop())

    # callLater runs on the asyncio loop once it runs; callWhenRunning alone fires just
    # before the loop starts.
    reactor.callWhenRunning(lambda: reactor.callLater(0, bind))


start_with_daphne()


class BotSockets:
    """WebSockets under ``/ws/bot/`` go to the bot endpoint, which a program opens with
    its token: no Origin header and no session to check. Every other socket is a
    browser's: origin-checked and carrying the session's user."""

    PREFIX = "/ws/bot/"

    def __init__(self, bots, browsers):
        self.bots = bots
        self.browsers = browsers

    async def __call__(self, scope, receive, send):
        app = self.bots if scope.get("path", "").startswith(self.PREFIX) else self.browsers
        return await app(scope, receive, send)


# What the process loaded so far stays to its end: full garbage collections skip it
# (guandan_site/memory.py).
freeze_startup_objects()

# SchedulerLoopMiddleware hands the server's event loop to the embedded scheduler, so
# bot turns and timeouts run where the in-memory channel layer lives.
application = Lifespan(
    SchedulerLoopMiddleware(
        ProtocolTypeRouter(
            {
                "http": django_asgi_app,
                "websocket": BotSockets(
                    URLRouter(bot_websocket_urlpatterns),
                    AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
                ),
            }
        )
    )
)

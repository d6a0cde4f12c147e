"""ASGI entry point: HTTP goes to Django, WebSockets to the Channels consumers.

WebSocket connections must come from an allowed host (``AllowedHostsOriginValidator``) and
carry the Django session and user (``AuthMiddlewareStack``), so a consumer knows who it
renders for.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.live.scheduler import SchedulerLoopMiddleware  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# SchedulerLoopMiddleware hands the server's event loop to the embedded scheduler, so
# bot turns and timeouts run where the in-memory channel layer lives.
application = SchedulerLoopMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        }
    )
)
